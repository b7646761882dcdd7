// Speed-of-light time per workload and the SOL score (docs/SOL_EXECBENCH.md).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "task/task.h"

namespace kernelarc::task {

// A device's peak rates. For GPUs these are datasheet peaks, never measured ceilings.
struct DevicePeaks {
  std::string name;
  double bytes_per_second = 0;
  std::map<std::string, double> flops_per_second;  // by math kind: fp32, tensor_core_bf16, ...
  std::string source;                              // "datasheet", "calibrated on ...", "command line"
  int multiprocessors = 0;                         // a GPU's SM count (launch rules' num_sms); 0: unknown or a CPU
  // The device's own last-level cache (a GPU's L2), write-back: outputs up to this size can still sit there when a
  // kernel ends, so their bytes need not have crossed the memory bus by then. 0: unknown, or a CPU.
  double cache_bytes = 0;
};

// Datasheet peaks of known GPUs, matched by a substring of the device name ("H200", "H100", ...).
std::optional<DevicePeaks> known_gpu_peaks(std::string_view device_name);

struct RooflineEstimate {
  double flops = 0;
  double bytes = 0;
  double seconds = 0;   // T_sol
  std::string bound;    // "memory" or "compute"
  // The least time any honest kernel can take, which the judge's "below the speed of light" check uses: T_sol with the
  // outputs the cache can hold taken off the memory traffic. An honest bf16 softmax of 4096x4096 on an H100 (64 MiB
  // moved, 20.03 us at the datasheet's 3.35 TB/s) ran in 19.9 us: its 32 MiB of outputs fit the 50 MiB L2.
  double floor_seconds = 0;
};

// Throws TaskError when an expression fails or the device has no rate for the task's math kind.
RooflineEstimate estimate_roofline(const Task& task, const ResolvedWorkload& workload, const DevicePeaks& peaks);

// S = 1 / (1 + (T - T_sol) / (T_b - T_sol)); see TASK_FORMAT.md for the degenerate case.
double sol_score(double seconds, double sol_seconds, double baseline_seconds);

}  // namespace kernelarc::task
