// kernelarc calibrate --device DEVICE: measure the device's ceilings once and cache them (its backend measures).
#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/option_checks.h"
#include "cli/options.h"
#include "judge/backend.h"

namespace kernelarc::cli {

namespace {

int calibrate(const std::string& device_text, bool json_output) {
  const auto device = parse_device(device_text);
  if (!device) {
    fmt::print(stderr, "kernelarc calibrate: unknown device \"{}\" (expected {})\n", device_text, judge::known_device_names());
    return kExitUsage;
  }
  if (auto why = judge::device_unavailable_reason(device_text)) {
    fmt::print(stderr, "kernelarc calibrate: no GPU is available for {}: {}\n", device_text, *why);
    return kExitUsage;
  }
  judge::CalibrationReport report;
  try {
    report = judge::backend_for(device_text).calibrate(device->ordinal, [&](const std::string& line) {
      if (!json_output) fmt::print(stderr, "{}\n", line);
    });
  } catch (const std::exception& error) {
    fmt::print(stderr, "kernelarc calibrate: {}\n", error.what());
    return kExitFailed;
  }
  if (json_output)
    std::cout << report.json.dump(2) << std::endl;
  else
    fmt::print("{}", report.text);
  return kExitOk;
}

}  // namespace

CLI::App* add_calibrate_command(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand("calibrate", "Measure the device's bandwidth and compute ceilings and cache them");
  auto device = std::make_shared<std::string>("cpu");
  auto json_output = std::make_shared<bool>(false);
  command->add_option("--device", *device, judge::known_device_names())->check(device_name())->capture_default_str();
  command->add_flag("--json", *json_output, "Print JSON");
  command->callback([device, json_output, &exit_code] { exit_code = calibrate(*device, *json_output); });
  return command;
}

}  // namespace kernelarc::cli
