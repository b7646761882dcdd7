#include "judge/cuda/cuda_compiler.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nvrtc.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <stdexcept>

#include "common/hash.h"
#include "common/subprocess.h"
#include "judge/build_cache.h"
#include "judge/compiler_sandbox.h"
#include "judge/cuda/resource_usage.h"

namespace kernelarc::judge::cuda {

namespace fs = std::filesystem;

namespace {

std::vector<std::string> knob_defines(const std::map<std::string, std::int64_t>& knobs) {
  std::vector<std::string> defines;
  for (const auto& [name, value] : knobs) defines.push_back(fmt::format("-D{}={}", name, value));
  return defines;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Fills the key and paths of a build; true when the cache already holds it (resources loaded too).
bool look_up(const BuildCache& cache, const std::string& key_text, const char* extension, BuildResult& result) {
  result.cache_key = common::content_hash(key_text);
  result.library = cache.entry("cuda", result.cache_key, extension);
  if (!fs::exists(result.library)) return false;
  const fs::path report_file = cache.entry("cuda", result.cache_key, "resources.json");
  if (fs::exists(report_file)) result.resources = nlohmann::json::parse(read_text_file(report_file), nullptr, false);
  result.ok = result.cache_hit = true;
  return true;
}

// `nvcc --version` once per toolkit and process: the judge makes a compiler per build, and a process per build took
// 0.47 s of every screening's build (a cache hit) while a run's compile pool kept the cores busy.
std::string nvcc_version_of(const fs::path& toolkit) {
  static std::mutex mutex;
  static std::map<std::string, std::string> known;
  std::lock_guard lock(mutex);
  if (const auto found = known.find(toolkit.string()); found != known.end()) return found->second;
  const auto nvcc = common::run_command({(toolkit / "bin" / "nvcc").string(), "--version"}, std::chrono::seconds(30));
  const auto build = nvcc.output.rfind("Build");
  if (!nvcc.ok() || build == std::string::npos) return "";  // asked again next time: a failure is not remembered
  return known.emplace(toolkit.string(), nvcc.output.substr(build)).first->second;
}

}  // namespace

std::string architecture_for(int major, int minor) { return fmt::format("sm_{}{}{}", major, minor, major >= 9 ? "a" : ""); }

CudaCompiler::CudaCompiler(CudaCompilerOptions options) : options_(std::move(options)) {
  if (options_.cache_directory.empty()) options_.cache_directory = default_cache_directory();
  if (const char* home = std::getenv("CUDA_HOME"); home && *home) options_.toolkit = home;
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  nvrtc_version_ = fmt::format("nvrtc {}.{}", major, minor);
  nvcc_version_ = nvcc_version_of(options_.toolkit);
  include_directory_ = BuildCache(options_.cache_directory).abi_include_directory();
}

BuildResult CudaCompiler::build_kernel(const CudaBuildRequest& request) const {
  const auto start = std::chrono::steady_clock::now();
  const BuildCache cache(options_.cache_directory);
  // The embedded headers' folder (kernelarc/device.cuh) too: its name is their content's hash, so the cache key has it.
  std::vector<std::string> flags = {"--gpu-architecture=" + options_.architecture, "--std=c++17", "-lineinfo",
                                    "--ptxas-options=-v", "-I" + (options_.toolkit / "include").string(),
                                    "-I" + (options_.toolkit / "include" / "cccl").string(), "-I" + include_directory_.string()};
  const auto defines = knob_defines(request.knobs);
  flags.insert(flags.end(), request.flags.begin(), request.flags.end());
  flags.insert(flags.end(), defines.begin(), defines.end());
  BuildResult result;
  result.command = flags;
  if (look_up(cache, fmt::format("nvrtc\n{}\n{}\n{}", nvrtc_version_, fmt::join(flags, " "), request.source), "cubin", result)) {
    result.seconds = seconds_since(start);
    return result;
  }
  const fs::path report_file = cache.entry("cuda", result.cache_key, "resources.json");
  nvrtcProgram program = nullptr;
  if (nvrtcCreateProgram(&program, request.source.c_str(), "candidate.cu", 0, nullptr, nullptr) != NVRTC_SUCCESS)
    throw std::runtime_error("NVRTC could not create a program");
  std::vector<const char*> options;
  for (const auto& flag : flags) options.push_back(flag.c_str());
  const nvrtcResult compiled = nvrtcCompileProgram(program, static_cast<int>(options.size()), options.data());
  std::size_t log_size = 0;
  nvrtcGetProgramLogSize(program, &log_size);
  std::string log(log_size, '\0');
  if (log_size > 0) nvrtcGetProgramLog(program, log.data());
  while (!log.empty() && log.back() == '\0') log.pop_back();
  if (compiled != NVRTC_SUCCESS) {
    result.diagnostics = trim_compiler_output(log, "", "candidate.cu");
    nvrtcDestroyProgram(&program);
    result.seconds = seconds_since(start);
    return result;
  }
  std::size_t cubin_size = 0;
  nvrtcGetCUBINSize(program, &cubin_size);
  std::string cubin(cubin_size, '\0');
  nvrtcGetCUBIN(program, cubin.data());
  nvrtcDestroyProgram(&program);
  result.resources = to_json(parse_ptxas_report(log));
  const fs::path work = cache.make_work_directory("cuda");
  write_file_atomically(work / "resources.json", result.resources.dump());
  write_file_atomically(work / "candidate.cubin", cubin);
  cache.publish(work / "resources.json", report_file);
  cache.publish(work / "candidate.cubin", result.library);
  std::error_code ignored;
  fs::remove_all(work, ignored);
  result.ok = true;
  result.seconds = seconds_since(start);
  return result;
}

BuildResult CudaCompiler::build_library(const CudaBuildRequest& request) const {
  const auto start = std::chrono::steady_clock::now();
  const BuildCache cache(options_.cache_directory);
  const std::string arch = options_.architecture.substr(options_.architecture.find('_') + 1);
  std::vector<std::string> flags = {"-std=c++17", "-O3", "-shared", "-Xcompiler", "-fPIC", "-lineinfo", "-Xptxas", "-v",
                                    fmt::format("-gencode=arch=compute_{},code=sm_{}", arch, arch), "-cudart", "shared"};
  const auto defines = knob_defines(request.knobs);
  flags.insert(flags.end(), request.flags.begin(), request.flags.end());
  flags.insert(flags.end(), defines.begin(), defines.end());
  BuildResult result;
  if (look_up(cache, fmt::format("nvcc\n{}\n{}\n{}\n{}", nvcc_version_, fmt::join(flags, " "), include_directory_.filename().string(), request.source),
              "so", result)) {
    result.seconds = seconds_since(start);
    return result;
  }
  const fs::path report_file = cache.entry("cuda", result.cache_key, "resources.json");
  const fs::path work = cache.make_work_directory("cuda");
  write_file_atomically(work / "candidate.cu", request.source);
  result.command = {(options_.toolkit / "bin" / "nvcc").string()};
  result.command.insert(result.command.end(), flags.begin(), flags.end());
  for (const auto& part : {"-I" + include_directory_.string(), std::string("-o"), (work / "candidate.so").string(),
                           (work / "candidate.cu").string()})
    result.command.push_back(part);
  // nvcc reads the toolkit (its real folder too: /usr/local/cuda is usually a link) and runs the system's host compiler.
  std::vector<std::string> read_only = {options_.toolkit.string(), include_directory_.string()};
  std::error_code unresolved;
  if (const fs::path real = fs::canonical(options_.toolkit, unresolved); !unresolved) read_only.push_back(real.string());
  const CompilerSandbox sandbox(read_only, work);
  result.sandbox = sandbox.report();
  const auto compiled = sandbox.run(result.command, options_.timeout);
  if (compiled.ok()) {
    result.resources = to_json(parse_ptxas_report(compiled.output));
    write_file_atomically(work / "resources.json", result.resources.dump());
    cache.publish(work / "resources.json", report_file);
    cache.publish(work / "candidate.so", result.library);
    result.ok = true;
  } else {
    result.diagnostics = trim_compiler_output(compiled.output, work.string(), "candidate.cu");
  }
  std::error_code ignored;
  fs::remove_all(work, ignored);
  result.seconds = seconds_since(start);
  return result;
}

}  // namespace kernelarc::judge::cuda
