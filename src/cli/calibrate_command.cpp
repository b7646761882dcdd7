// kernelarc calibrate --device cpu: measure this machine's ceilings once and cache them.
#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/option_checks.h"
#include "cli/options.h"
#include "judge/build_cache.h"
#include "judge/cpu_calibration.h"
#ifdef KERNELARC_HAVE_CUDA
#include "judge/cuda/cuda_driver.h"
#include "judge/cuda/gemm_calibration.h"
#include "judge/cuda/gpu_calibration.h"
#include "judge/cuda/sm_clock.h"
#endif

namespace kernelarc::cli {

namespace {

#ifdef KERNELARC_HAVE_CUDA
int calibrate_cuda(int ordinal, bool json_output) {
  judge::cuda::CudaCompiler compiler;
  const auto measured = judge::cuda::calibrate_gpu(ordinal, compiler);
  auto out = judge::cuda::to_json(measured);
  // Tensor-core rates through cuBLASLt, and the SM clock seen right after them (under load, not the idle clock).
  const auto& api = *judge::cuda::load_driver();
  CUdevice device = 0;
  CUcontext context = nullptr;
  char bus_id[64] = {};
  judge::cuda::check(api, api.device_get(&device, ordinal), "cuDeviceGet");
  judge::cuda::check(api, api.device_get_pci_bus_id(bus_id, sizeof bus_id, device), "cuDeviceGetPCIBusId");
  judge::cuda::check(api, api.primary_ctx_retain(&context, device), "cuDevicePrimaryCtxRetain");
  judge::cuda::check(api, api.ctx_set_current(context), "cuCtxSetCurrent");
  const auto idle_clock = judge::cuda::sm_clock_mhz(bus_id);
  std::string gemm_why;
  const auto rates = judge::cuda::measure_gemm_rates(api, &gemm_why);
  const auto loaded_clock = judge::cuda::sm_clock_mhz(bus_id);
  api.primary_ctx_release(device);
  out["gemm"] = nlohmann::json::array();
  for (const auto& rate : rates) out["gemm"].push_back(judge::cuda::to_json(rate));
  if (rates.empty()) out["gemm_unavailable"] = gemm_why;
  out["sm_clock_mhz_before"] = idle_clock ? nlohmann::json(*idle_clock) : nlohmann::json();
  out["sm_clock_mhz_after_gemm"] = loaded_clock ? nlohmann::json(*loaded_clock) : nlohmann::json();
  const auto datasheet = task::known_gpu_peaks(measured.name);
  if (datasheet) {
    out["datasheet_bytes_per_second"] = datasheet->bytes_per_second;
    out["copy_fraction_of_datasheet"] = measured.copy_bytes_per_second / datasheet->bytes_per_second;
  }
  const auto file = judge::default_cache_directory() / fmt::format("calibration-cuda{}.json", ordinal);
  std::filesystem::create_directories(file.parent_path());
  judge::write_file_atomically(file, out.dump(2));
  if (json_output) {
    std::cout << out.dump(2) << std::endl;
    return kExitOk;
  }
  fmt::print("{} (cuda:{}, sm_{}{}, {} SMs, {} MiB L2, {} GiB, max SM clock {} MHz, driver {})\n", measured.name, ordinal,
             measured.compute_major, measured.compute_minor, measured.multiprocessors, measured.l2_bytes >> 20,
             measured.memory_bytes >> 30, measured.max_sm_clock_khz / 1000, measured.driver_version);
  fmt::print("  copy bandwidth  {:.3f} TB/s (read + write; spread {:.1f}%){}\n", measured.copy_bytes_per_second / 1e12,
             100 * measured.copy_spread,
             datasheet ? fmt::format(", {:.1f}% of the datasheet {:.2f} TB/s", 100 * measured.copy_bytes_per_second / datasheet->bytes_per_second,
                                     datasheet->bytes_per_second / 1e12)
                       : std::string());
  for (const auto& rate : rates) {
    if (!rate.error.empty())
      fmt::print("  {} GEMM {}x{}x{}: not measured ({})\n", rate.dtype, rate.m, rate.n, rate.k, rate.error);
    else
      fmt::print("  {} GEMM {}x{}x{}: {:.0f} TFLOP/s ({:.3f} ms, cuBLASLt)\n", rate.dtype, rate.m, rate.n, rate.k, rate.flops_per_second / 1e12,
                 rate.median_ms);
  }
  if (rates.empty()) fmt::print("  GEMM rates not measured: {}\n", gemm_why);
  fmt::print("  SM clock {} MHz before the GEMMs, {} MHz right after (NVML)\n", idle_clock ? std::to_string(*idle_clock) : "unknown",
             loaded_clock ? std::to_string(*loaded_clock) : "unknown");
  fmt::print("  {}; cached in {}\n", measured.date, file.string());
  return kExitOk;
}
#endif

int calibrate(const std::string& device_text, bool json_output) {
  const auto device = parse_device(device_text);
  if (!device) {
    fmt::print(stderr, "kernelarc calibrate: unknown device \"{}\" (expected cpu or cuda:N)\n", device_text);
    return kExitUsage;
  }
  if (device->kind == "cuda") {
    if (auto why = cuda_unavailable_reason()) {
      fmt::print(stderr, "kernelarc calibrate: no GPU is available for {}: {}\n", device_text, *why);
      return kExitUsage;
    }
#ifdef KERNELARC_HAVE_CUDA
    try {
      return calibrate_cuda(device->ordinal, json_output);
    } catch (const std::exception& error) {
      fmt::print(stderr, "kernelarc calibrate: {}\n", error.what());
      return kExitFailed;
    }
#endif
  }
  judge::CompilerOptions options;
  judge::CpuCompiler compiler(options);
  if (!json_output) fmt::print(stderr, "measuring copy bandwidth and fp32 throughput on all cores...\n");
  const auto peaks = judge::calibrate_cpu(compiler);
  judge::save_cpu_calibration(judge::default_cache_directory(), peaks);
  if (json_output) {
    std::cout << nlohmann::json{{"name", peaks.name}, {"bytes_per_second", peaks.bytes_per_second},
                                {"flops_per_second", peaks.flops_per_second}, {"source", peaks.source}}
                     .dump(2)
              << std::endl;
  } else {
    fmt::print("{}\n  copy bandwidth  {:.1f} GB/s (read + write)\n  fp32 FMA rate   {:.1f} GFLOP/s\n  {}; cached in {}\n", peaks.name,
               peaks.bytes_per_second / 1e9, peaks.flops_per_second.at("fp32") / 1e9, peaks.source,
               judge::default_cache_directory().string());
  }
  return kExitOk;
}

}  // namespace

CLI::App* add_calibrate_command(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand("calibrate", "Measure the device's bandwidth and compute ceilings and cache them");
  auto device = std::make_shared<std::string>("cpu");
  auto json_output = std::make_shared<bool>(false);
  command->add_option("--device", *device, "cpu or cuda:N")->check(device_name())->capture_default_str();
  command->add_flag("--json", *json_output, "Print JSON");
  command->callback([device, json_output, &exit_code] { exit_code = calibrate(*device, *json_output); });
  return command;
}

}  // namespace kernelarc::cli
