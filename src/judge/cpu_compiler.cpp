#include "judge/cpu_compiler.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "common/hash.h"
#include "common/subprocess.h"
#include "judge/abi_header.h"
#include "judge/build_cache.h"
#include "judge/compiler_sandbox.h"

namespace kernelarc::judge {

namespace fs = std::filesystem;

fs::path default_cache_directory() {
  if (const char* dir = std::getenv("KERNELARC_CACHE_DIR"); dir && *dir) return dir;
  if (const char* dir = std::getenv("XDG_CACHE_HOME"); dir && *dir) return fs::path(dir) / "kernelarc";
  if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".cache" / "kernelarc";
  return fs::temp_directory_path() / "kernelarc-cache";
}


namespace {

// What a compiler's output line is about.
enum class LineOrigin {
  own,           // located in the candidate's source, the build's own temporary files or the command line's -D knobs
  other,         // located in another file, or quoting one ("In file included from")
  tool,          // a compiler program's own summary ("collect2: error: ld returned 1 exit status", "ptxas info : ...")
  continuation,  // indented: the excerpt under a located line, which shares that line's origin
  unknown,
};

LineOrigin origin_of(const std::string& line, bool in_build_folder, const std::string& source_name) {
  static const std::regex located(R"(^(\S+?)(:\d+[:,]|:\(|\(\d+\)|: In |: At |: Assembler messages:|: (fatal error|error|warning|note):))");
  static const std::regex tool(R"(^[A-Za-z0-9_+.\-]+( (fatal|error|info|warning))?\s*: )");
  static const std::regex summary(R"(^(compilation terminated\.|\d+ errors? detected in the compilation of ))");
  if (line.empty() || line[0] == ' ' || line[0] == '\t') return LineOrigin::continuation;
  if (line.starts_with("In file included from")) return LineOrigin::other;
  if (std::smatch match; std::regex_search(line, match, located)) {
    const std::string file = match[1].str();
    return in_build_folder || file == source_name || file == "<command-line>" ? LineOrigin::own : LineOrigin::other;
  }
  if (std::regex_search(line, tool) || std::regex_search(line, summary)) return LineOrigin::tool;
  return LineOrigin::unknown;
}

// argv[0] as the shell would find it.
fs::path find_in_path(const std::string& program) {
  if (program.find('/') != std::string::npos) return program;
  const char* path = std::getenv("PATH");
  std::istringstream folders(path ? path : "/usr/bin:/bin");
  for (std::string folder; std::getline(folders, folder, ':');)
    if (!folder.empty() && access((fs::path(folder) / program).c_str(), X_OK) == 0) return fs::path(folder) / program;
  return program;
}

}  // namespace

std::string trim_compiler_output(const std::string& output, const std::string& temporary_directory, const std::string& source_name) {
  std::istringstream lines(output);
  std::string line;
  std::vector<std::string> all;
  std::size_t dropped = 0;
  bool keeping = false;  // whether the last located line was kept: its excerpt lines follow it
  while (std::getline(lines, line)) {
    const bool in_build_folder = !temporary_directory.empty() && line.starts_with(temporary_directory + "/");
    for (std::size_t at; !temporary_directory.empty() && (at = line.find(temporary_directory)) != std::string::npos;)
      line.erase(at, temporary_directory.size() + 1);
    const LineOrigin origin = origin_of(line, in_build_folder, source_name);
    if (origin != LineOrigin::continuation) keeping = origin == LineOrigin::own || origin == LineOrigin::tool;
    if (keeping) all.push_back(line);
    else if (!line.empty()) ++dropped;
  }
  std::string cleaned;
  constexpr std::size_t kContextLines = 3;
  constexpr std::size_t kMaxCharacters = 4000;
  std::size_t keep_until = 0;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const bool important = all[i].find("error") != std::string::npos || all[i].find("Error") != std::string::npos ||  // the assembler's
                           all[i].find("undefined reference") != std::string::npos;
    if (important) keep_until = i + kContextLines;
    if (important || i < keep_until) cleaned += all[i] + '\n';
  }
  if (cleaned.empty())  // no line said "error": keep the head of what the compiler said about the candidate
    for (std::size_t i = 0; i < all.size() && i < 20; ++i) cleaned += all[i] + '\n';
  if (cleaned.size() > kMaxCharacters) cleaned = cleaned.substr(0, kMaxCharacters) + "\n[... trimmed]\n";
  if (dropped > 0) cleaned += fmt::format("[{} line{} located in or quoting other files dropped]\n", dropped, dropped == 1 ? "" : "s");
  return cleaned;
}

std::vector<std::string> compiler_install_paths(const std::string& compiler) {
  std::error_code error;
  const fs::path program = fs::canonical(find_in_path(compiler), error);
  if (error) return {};
  const fs::path folder = program.parent_path(), prefix = folder.parent_path();
  return {folder.string(), (prefix / "lib").string(), (prefix / "lib64").string(), (prefix / "libexec").string(), (prefix / "include").string()};
}

CpuCompiler::CpuCompiler(CompilerOptions options) : options_(std::move(options)) {
  if (options_.cache_directory.empty()) options_.cache_directory = default_cache_directory();
  const auto version = common::run_command({options_.compiler, "--version"}, std::chrono::seconds(30));
  if (!version.ok())
    throw std::runtime_error(fmt::format("the C++ compiler '{}' does not run ({}): {}", options_.compiler,
                                         version.describe(), version.output));
  compiler_version_ = version.output.substr(0, version.output.find('\n'));
  install_paths_ = compiler_install_paths(options_.compiler);
  BuildCache cache(options_.cache_directory);  // creates the folders and the ABI header once
}

BuildResult CpuCompiler::build(const BuildRequest& request) const {
  const auto start = std::chrono::steady_clock::now();
  BuildResult result;
  std::vector<std::string> flags = options_.base_flags;
  flags.insert(flags.end(), request.flags.begin(), request.flags.end());
  for (const auto& [name, value] : request.knobs) flags.push_back(fmt::format("-D{}={}", name, value));
  // No file outside the key can change the build: the sandboxed compiler reads only the system's compiler, library and
  // include folders (which change with the compiler version in the key) and the ABI headers (in the key).
  result.cache_key = common::content_hash(fmt::format("{}\n{}\n{}\n{}", compiler_version_, fmt::join(flags, " "),
                                                      std::string(candidate_abi_header()) + std::string(dlpack_header()), request.source));
  const BuildCache cache(options_.cache_directory);
  result.library = cache.entry("cpu", result.cache_key, "so");
  const auto finish = [&]() {
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  };
  if (fs::exists(result.library)) {
    result.ok = true;
    result.cache_hit = true;
    return finish();
  }
  const fs::path work = cache.make_work_directory("cpu");
  write_file_atomically(work / "candidate.cpp", request.source);
  result.command = {options_.compiler};
  result.command.insert(result.command.end(), flags.begin(), flags.end());
  for (const auto& part : {std::string("-I") + cache.abi_include_directory().string(), std::string("-o"),
                           (work / "candidate.so").string(), (work / "candidate.cpp").string()})
    result.command.push_back(part);
  std::vector<std::string> read_only = install_paths_;
  read_only.push_back(cache.abi_include_directory().string());
  const CompilerSandbox sandbox(read_only, work);
  result.sandbox = sandbox.report();
  const auto compiled = sandbox.run(result.command, options_.timeout);
  if (compiled.ok()) {
    cache.publish(work / "candidate.so", result.library);
    result.ok = true;
  } else {
    result.diagnostics = trim_compiler_output(compiled.output, work.string());
    if (compiled.timed_out) result.diagnostics = fmt::format("compiler timed out after {} ms\n{}", options_.timeout.count(), result.diagnostics);
  }
  std::error_code ignored;
  fs::remove_all(work, ignored);
  return finish();
}

}  // namespace kernelarc::judge
