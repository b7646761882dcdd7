#include "cli/options.h"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "judge/build_cache.h"
#include "judge/cpu_calibration.h"
#include "judge/input_range_check.h"
#ifdef KERNELARC_HAVE_CUDA
#include "judge/cuda/cuda_driver.h"
#endif

#ifndef KERNELARC_TASKS_DIR
#define KERNELARC_TASKS_DIR "tasks"
#endif

namespace kernelarc::cli {

namespace fs = std::filesystem;

fs::path builtin_tasks_directory() {
  if (const char* dir = std::getenv("KERNELARC_TASKS_DIR"); dir && *dir) return dir;
  return KERNELARC_TASKS_DIR;
}

namespace {

task::Task load_task_directory(const std::string& argument, const std::optional<fs::path>& extensions_file) {
  if (fs::is_directory(argument)) return task::load_task(argument, extensions_file);
  const fs::path builtin = builtin_tasks_directory() / argument;
  if (argument.find('/') == std::string::npos && fs::is_directory(builtin)) return task::load_task(builtin, extensions_file);
  throw task::TaskError(argument, "", fmt::format("expected a task directory or the name of a built-in task (see `kernelarc tasks`; "
                                                  "built-in tasks are in {})", builtin_tasks_directory().string()));
}

}  // namespace

task::Task load_task_argument(const std::string& argument, const std::string& extensions) {
  const auto extensions_file = extensions.empty() ? std::nullopt : std::optional<fs::path>(extensions);
  task::Task task = load_task_directory(argument, extensions_file);
  // Said at load, before any candidate is judged on inputs its reference cannot take.
  for (const auto& warning : judge::input_range_warnings(task)) fmt::print(stderr, "kernelarc: warning: {}\n", warning);
  return task;
}

fs::path default_store_path() {
  if (const char* path = std::getenv("KERNELARC_STORE"); path && *path) return path;
  if (const char* data = std::getenv("XDG_DATA_HOME"); data && *data) return fs::path(data) / "kernelarc" / "runs.db";
  if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".local" / "share" / "kernelarc" / "runs.db";
  return "kernelarc-runs.db";
}

store::Store open_store_for_writing(const std::string& given) {
  const fs::path path = given.empty() ? default_store_path() : fs::path(given);
  if (!given.empty() && path.has_parent_path() && !fs::is_directory(path.parent_path()))
    throw std::runtime_error(fmt::format("cannot use the store {}: the folder {} does not exist (create it, or give another --store)", path.string(),
                                         path.parent_path().string()));
  try {
    auto store = store::Store::open(path);
    store.transaction([] {});  // a write lock taken and given back: a read-only file fails here, not after the work
    return store;
  } catch (const store::StoreError& error) {
    throw std::runtime_error(fmt::format("cannot use the store {}: {}", path.string(), error.what()));
  }
}

task::DevicePeaks cpu_device_peaks(const judge::CpuCompiler& compiler, const judge::CompilerOptions& options,
                                   const CpuPeakOverrides& overrides) {
  const fs::path cache = options.cache_directory.empty() ? judge::default_cache_directory() : options.cache_directory;
  task::DevicePeaks peaks;
  if (overrides.bandwidth_gbps > 0 && overrides.gflops > 0) {
    peaks.name = "CPU " + judge::cpu_model_name();
    peaks.source = "command line";
  } else if (auto cached = judge::load_cpu_calibration(cache)) {
    peaks = *cached;
  } else {
    fmt::print(stderr, "Calibrating this CPU once (copy bandwidth and fp32 rate; cached in {})...\n", cache.string());
    peaks = judge::calibrate_cpu(compiler);
    judge::save_cpu_calibration(cache, peaks);
  }
  if (overrides.bandwidth_gbps > 0) peaks.bytes_per_second = overrides.bandwidth_gbps * 1e9;
  if (overrides.gflops > 0) peaks.flops_per_second["fp32"] = overrides.gflops * 1e9;
  return peaks;
}

std::optional<DeviceName> parse_device(const std::string& text) {
  if (text == "cpu") return DeviceName{"cpu", 0};
  if (text == "cuda") return DeviceName{"cuda", 0};
  if (text.rfind("cuda:", 0) != 0 || text.size() == 5) return std::nullopt;
  int ordinal = 0;
  for (char c : text.substr(5)) {
    if (c < '0' || c > '9' || ordinal > 1000) return std::nullopt;
    ordinal = ordinal * 10 + (c - '0');
  }
  return DeviceName{"cuda", ordinal};
}

std::optional<std::string> cuda_unavailable_reason() {
#ifdef KERNELARC_HAVE_CUDA
  std::string why;
  if (!judge::cuda::load_driver(&why)) return why;
  return std::nullopt;
#else
  return "this build has no CUDA support (the CUDA toolkit was not found when it was built)";
#endif
}

task::DevicePeaks device_peaks(const std::string& device, const judge::CompilerOptions& options, const CpuPeakOverrides& overrides) {
  const auto name = parse_device(device);
  if (!name) throw std::runtime_error(fmt::format("unknown device \"{}\" (expected cpu or cuda:N)", device));
  if (name->kind == "cpu") return cpu_device_peaks(judge::CpuCompiler(options), options, overrides);
  return gpu_device_peaks(name->ordinal);
}

task::DevicePeaks gpu_device_peaks(int ordinal) {
#ifdef KERNELARC_HAVE_CUDA
  std::string why;
  const auto* api = judge::cuda::load_driver(&why);
  if (!api) throw std::runtime_error(why);
  CUdevice device = 0;
  char name[256] = {};
  judge::cuda::check(*api, api->device_get(&device, ordinal), "cuDeviceGet");
  judge::cuda::check(*api, api->device_get_name(name, sizeof name, device), "cuDeviceGetName");
  if (auto peaks = task::known_gpu_peaks(name)) {
    // The device's own SM count over the datasheet's (a cut-down variant, a MIG slice): launch rules' num_sms.
    int multiprocessors = 0;
    if (api->device_get_attribute(&multiprocessors, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device) == CUDA_SUCCESS && multiprocessors > 0)
      peaks->multiprocessors = multiprocessors;
    return *peaks;
  }
  throw std::runtime_error(fmt::format("no datasheet peaks are known for \"{}\" (src/task/roofline.cpp lists the known GPUs)", name));
#else
  (void)ordinal;
  throw std::runtime_error("this build has no CUDA support");
#endif
}

std::map<std::string, double> load_baseline_file(const fs::path& path) {
  nlohmann::json baseline;
  try {
    baseline = nlohmann::json::parse(judge::read_text_file(path));
  } catch (const nlohmann::json::exception& error) {
    throw std::runtime_error(fmt::format("{} is not JSON: {}", path.string(), error.what()));
  }
  if (!baseline.is_object()) throw std::runtime_error(fmt::format("{} must hold a JSON object: workload uuid -> milliseconds", path.string()));
  std::map<std::string, double> ns;
  for (const auto& [uuid, ms] : baseline.items()) {
    if (!ms.is_number() || ms.get<double>() <= 0)
      throw std::runtime_error(fmt::format("{}: the baseline of {} must be a positive number of milliseconds", path.string(), uuid));
    ns[uuid] = ms.get<double>() * 1e6;
  }
  return ns;
}

}  // namespace kernelarc::cli
