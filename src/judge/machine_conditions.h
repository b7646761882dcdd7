// The state of the machine around a candidate's timing, which the timing cannot correct for: the CPUs' load (other
// processes share the cores the judge times on) and, on a GPU, the SM clock (a GPU that throttles runs slower). Read
// before the first timed loop and after the last; a change beyond what noise explains is a warning in the verdict.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace kernelarc::judge {

struct MachineConditions {
  std::optional<double> load_1min;       // /proc/loadavg's first field; nullopt where it cannot be read
  std::optional<unsigned> sm_clock_mhz;  // the GPU's SM clock from NVML; nullopt on the CPU or without NVML
};

// Now, for `device` ("cpu" or "cuda:N"). The load is read from /proc/loadavg, or from the file $KERNELARC_LOADAVG names.
MachineConditions read_machine_conditions(const std::string& device);

// The 1-minute load average in the text of /proc/loadavg; nullopt when it does not start with a number.
std::optional<double> parse_loadavg(const std::string& text);

// What moved between `before` and `after` beyond noise, as sentences for the verdict: the load by 1 or a quarter of the
// `cores`, whichever is more; the SM clock by more than 5%.
std::vector<std::string> conditions_moved(const MachineConditions& before, const MachineConditions& after, unsigned cores);

nlohmann::json to_json(const MachineConditions& conditions);

}  // namespace kernelarc::judge
