// kernelarc calibrate --device cpu: measure this machine's ceilings once and cache them.
#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/options.h"
#include "judge/cpu_calibration.h"

namespace kernelarc::cli {

namespace {

int calibrate(const std::string& device, bool json_output) {
  if (device != "cpu") {
    fmt::print(stderr, "kernelarc calibrate: device \"{}\" is not available in this build (CPU only for now)\n", device);
    return kExitUsage;
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
  command->add_option("--device", *device, "cpu")->capture_default_str();
  command->add_flag("--json", *json_output, "Print JSON");
  command->callback([device, json_output, &exit_code] { exit_code = calibrate(*device, *json_output); });
  return command;
}

}  // namespace kernelarc::cli
