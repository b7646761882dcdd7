#include "judge/cuda/cuda_backend.h"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <ranges>
#include <string_view>

#include "judge/build_cache.h"
#include "judge/cuda/cuda_compiler.h"
#include "judge/cuda/cuda_driver.h"
#include "judge/cuda/gemm_calibration.h"
#include "judge/cuda/gpu_calibration.h"
#include "judge/cuda/gpu_worker.h"
#include "judge/cuda/sm_clock.h"
#include "judge/judge.h"

namespace kernelarc::judge {

const Backend* cuda_backend() {
  static const cuda::CudaBackend backend;
  return &backend;
}

}  // namespace kernelarc::judge

namespace kernelarc::judge::cuda {

namespace fs = std::filesystem;

std::optional<std::string> CudaBackend::unavailable_reason() const {
  std::string why;
  if (!load_driver(&why)) return why;
  return std::nullopt;
}

// The datasheet's peaks (T_sol uses them), with the device's own SM count; a GPU the table lacks is an error.
task::DevicePeaks CudaBackend::peaks(int ordinal, const CompilerOptions&, const PeakOverrides&, const ProgressCallback&) const {
  std::string why;
  const auto* api = load_driver(&why);
  if (!api) throw std::runtime_error(why);
  CUdevice device = 0;
  char name[256] = {};
  check(*api, api->device_get(&device, ordinal), "cuDeviceGet");
  check(*api, api->device_get_name(name, sizeof name, device), "cuDeviceGetName");
  if (auto peaks = task::known_gpu_peaks(name)) {
    // The device's own SM count over the datasheet's (a cut-down variant, a MIG slice): launch rules' num_sms.
    int multiprocessors = 0;
    if (api->device_get_attribute(&multiprocessors, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device) == CUDA_SUCCESS && multiprocessors > 0)
      peaks->multiprocessors = multiprocessors;
    int l2_bytes = 0;
    if (api->device_get_attribute(&l2_bytes, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, device) == CUDA_SUCCESS && l2_bytes > 0)
      peaks->cache_bytes = l2_bytes;
    return *peaks;
  }
  throw std::runtime_error(fmt::format("no datasheet peaks are known for \"{}\" (src/task/roofline.cpp lists the known GPUs)", name));
}

// Copy bandwidth with a kernel of our own, tensor-core rates through cuBLASLt, and the SM clock seen right after them
// (under load, not the idle clock); cached as calibration-cudaN.json.
CalibrationReport CudaBackend::calibrate(int ordinal, const ProgressCallback&) const {
  CudaCompilerOptions options;
  options.architecture = compile_target(ordinal);
  const CudaCompiler compiler(options);
  const auto measured = calibrate_gpu(ordinal, compiler);
  auto out = to_json(measured);
  const auto& api = *load_driver();
  CUdevice device = 0;
  CUcontext context = nullptr;
  char bus_id[64] = {};
  check(api, api.device_get(&device, ordinal), "cuDeviceGet");
  check(api, api.device_get_pci_bus_id(bus_id, sizeof bus_id, device), "cuDeviceGetPCIBusId");
  check(api, api.primary_ctx_retain(&context, device), "cuDevicePrimaryCtxRetain");
  check(api, api.ctx_set_current(context), "cuCtxSetCurrent");
  const auto idle_clock = sm_clock_mhz(bus_id);
  std::string gemm_why;
  const auto rates = measure_gemm_rates(api, &gemm_why);
  const auto loaded_clock = sm_clock_mhz(bus_id);
  api.primary_ctx_release(device);
  out["gemm"] = nlohmann::json::array();
  for (const auto& rate : rates) out["gemm"].push_back(to_json(rate));
  if (rates.empty()) out["gemm_unavailable"] = gemm_why;
  out["sm_clock_mhz_before"] = idle_clock ? nlohmann::json(*idle_clock) : nlohmann::json();
  out["sm_clock_mhz_after_gemm"] = loaded_clock ? nlohmann::json(*loaded_clock) : nlohmann::json();
  const auto datasheet = task::known_gpu_peaks(measured.name);
  if (datasheet) {
    out["datasheet_bytes_per_second"] = datasheet->bytes_per_second;
    out["copy_fraction_of_datasheet"] = measured.copy_bytes_per_second / datasheet->bytes_per_second;
  }
  const auto file = default_cache_directory() / fmt::format("calibration-cuda{}.json", ordinal);
  fs::create_directories(file.parent_path());
  write_file_atomically(file, out.dump(2));

  CalibrationReport report;
  report.json = out;
  std::string& text = report.text;
  text += fmt::format("{} (cuda:{}, sm_{}{}, {} SMs, {} MiB L2, {} GiB, max SM clock {} MHz, driver {})\n", measured.name, ordinal,
                      measured.compute_major, measured.compute_minor, measured.multiprocessors, measured.l2_bytes >> 20,
                      measured.memory_bytes >> 30, measured.max_sm_clock_khz / 1000, measured.driver_version);
  text += fmt::format("  copy bandwidth  {:.3f} TB/s (read + write; spread {:.1f}%){}\n", measured.copy_bytes_per_second / 1e12,
                      100 * measured.copy_spread,
                      datasheet ? fmt::format(", {:.1f}% of the datasheet {:.2f} TB/s",
                                              100 * measured.copy_bytes_per_second / datasheet->bytes_per_second,
                                              datasheet->bytes_per_second / 1e12)
                                : std::string());
  for (const auto& rate : rates) {
    if (!rate.error.empty())
      text += fmt::format("  {} GEMM {}x{}x{}: not measured ({})\n", rate.dtype, rate.m, rate.n, rate.k, rate.error);
    else
      text += fmt::format("  {} GEMM {}x{}x{}: {:.0f} TFLOP/s ({:.3f} ms, cuBLASLt)\n", rate.dtype, rate.m, rate.n, rate.k,
                          rate.flops_per_second / 1e12, rate.median_ms);
  }
  if (rates.empty()) text += fmt::format("  GEMM rates not measured: {}\n", gemm_why);
  text += fmt::format("  SM clock {} MHz before the GEMMs, {} MHz right after (NVML)\n", idle_clock ? std::to_string(*idle_clock) : "unknown",
                      loaded_clock ? std::to_string(*loaded_clock) : "unknown");
  text += fmt::format("  {}; cached in {}\n", measured.date, file.string());
  return report;
}

std::optional<unsigned> CudaBackend::clock_mhz(int ordinal) const {
  try {
    return sm_clock_mhz_of_device(ordinal);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// A run's search on a GPU: 5 rounds, 5 warm-up and 20 timed calls, 5 re-checked. Datasheet peaks: no margin below them.
JudgeProtocol CudaBackend::protocol(ProtocolUse use) const {
  JudgeProtocol protocol;
  if (use == ProtocolUse::search) {
    protocol.rounds = 5;
    protocol.warmup = 5;
    protocol.iterations = 20;
    protocol.rechecks = 5;
    protocol.unseen_calls = 3;
  }
  if (use == ProtocolUse::screening) {  // to rank configurations: one round, a few flushed calls timed by CUPTI
    protocol.rounds = 1;
    protocol.warmup = 2;
    protocol.iterations = 10;
    protocol.rechecks = 0;
    protocol.unseen_calls = 0;
    protocol.stricter_rounds = false;
    protocol.checks_each_call = false;
  }
  return protocol;
}

std::string CudaBackend::compile_target(int ordinal) const {
  const DriverApi* api = load_driver();
  CUdevice device = 0;
  int major = 0, minor = 0;
  if (!api || !api->device_get_attribute || api->device_get(&device, ordinal) != CUDA_SUCCESS ||
      api->device_get_attribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device) != CUDA_SUCCESS ||
      api->device_get_attribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device) != CUDA_SUCCESS)
    return CudaCompilerOptions{}.architecture;
  return architecture_for(major, minor);
}

BuildResult CudaBackend::build(const CandidateSource& candidate, const task::Task&, const CpuCompiler&,
                               const CompilerOptions& options) const {
  CudaCompilerOptions cuda_options;
  cuda_options.cache_directory = options.cache_directory;
  if (!options.cuda_architecture.empty()) cuda_options.architecture = options.cuda_architecture;
  const CudaCompiler compiler(cuda_options);
  if (candidate.form == task::TemplateForm::kernel) return compiler.build_kernel({candidate.source, candidate.flags, candidate.knobs});
  return compiler.build_library({candidate.source, candidate.flags, candidate.knobs});
}

// The driver reserves far more address space than it uses, so there is no such limit; it keeps its device files, its
// own /proc entry, sysfs and the CUDA libraries.
void CudaBackend::adjust_candidate_policy(SandboxPolicy& policy) const {
  std::error_code ignored;
  for (const auto& entry : fs::directory_iterator("/dev", ignored))
    if (entry.path().filename().string().starts_with("nvidia")) policy.read_write.push_back(entry.path().string());
  policy.read_only.insert(policy.read_only.end(), {"/proc/self", "/proc/driver/nvidia", "/sys", "/usr/local/cuda"});
  // The libraries the candidate's own library links against (the CUDA runtime) may sit on the loader's path.
  if (const char* path = std::getenv("LD_LIBRARY_PATH"))
    for (const auto folder : std::views::split(std::string_view(path), ':'))
      if (!folder.empty()) policy.read_only.emplace_back(folder.begin(), folder.end());
  // Landlock follows symbolic links when the rule is made, so /usr/local/cuda -> cuda-13.0 is allowed as the real folder.
  const auto real = fs::canonical("/usr/local/cuda", ignored);
  if (!ignored) policy.read_only.push_back(real.string());
}

int CudaBackend::serve_worker(WorkerChannel& channel, const DeviceName& device) const { return run_gpu_worker(channel, device.text()); }

}  // namespace kernelarc::judge::cuda
