#include "judge/machine_conditions.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "judge/backend.h"

namespace kernelarc::judge {

std::optional<double> parse_loadavg(const std::string& text) {
  std::istringstream in(text);
  double load = 0;
  if (!(in >> load) || !std::isfinite(load) || load < 0) return std::nullopt;
  return load;
}

MachineConditions read_machine_conditions(const std::string& device) {
  MachineConditions conditions;
  // $KERNELARC_LOADAVG stands for /proc/loadavg in tests (a named pipe gives a load that moves on cue).
  const char* path = std::getenv("KERNELARC_LOADAVG");
  std::ifstream file(path && *path ? path : "/proc/loadavg");
  std::stringstream text;
  text << file.rdbuf();
  conditions.load_1min = parse_loadavg(text.str());
  // The device's own clock, where its backend reads one (a GPU's SM clock from NVML).
  if (const Backend* backend = find_backend(device)) conditions.sm_clock_mhz = backend->clock_mhz(parse_device(device)->ordinal);
  return conditions;
}

std::vector<std::string> conditions_moved(const MachineConditions& before, const MachineConditions& after, unsigned cores) {
  std::vector<std::string> moved;
  if (before.load_1min && after.load_1min) {
    const double allowed = std::max(1.0, 0.25 * cores);
    if (std::abs(*after.load_1min - *before.load_1min) >= allowed)
      moved.push_back(fmt::format("the machine's load moved during timing, {:.2f} -> {:.2f} (1-minute load average, {} cores): other work "
                                  "shared the cores, so the times may be off; judge again on a quieter machine",
                                  *before.load_1min, *after.load_1min, cores));
  }
  if (before.sm_clock_mhz && after.sm_clock_mhz && *before.sm_clock_mhz > 0) {
    const double change = std::abs(static_cast<double>(*after.sm_clock_mhz) - *before.sm_clock_mhz) / *before.sm_clock_mhz;
    if (change > 0.05)
      moved.push_back(fmt::format("the GPU's SM clock moved during timing, {} MHz -> {} MHz: it throttled or boosted, so the times may be "
                                  "off; lock the clocks (nvidia-smi --lock-gpu-clocks) or judge again",
                                  *before.sm_clock_mhz, *after.sm_clock_mhz));
  }
  return moved;
}

nlohmann::json to_json(const MachineConditions& c) {
  return {{"load_1min", c.load_1min ? nlohmann::json(*c.load_1min) : nlohmann::json()},
          {"sm_clock_mhz", c.sm_clock_mhz ? nlohmann::json(*c.sm_clock_mhz) : nlohmann::json()}};
}

}  // namespace kernelarc::judge
