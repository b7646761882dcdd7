// What the judge's paired measurement of two candidates gives (Judge::time_paired): each candidate's samples on each
// visible workload, taken interleaved in one session (A B, then B A, ...) so that drift in the machine's speed lands on
// both alike. engine::compare_paired (engine/paired_comparison.h) turns them into a decision.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace kernelarc::judge {

struct PairedWorkload {
  std::string uuid;
  std::vector<double> first_ns, second_ns;  // same length: sample i of each taken back to back
};

struct PairedTiming {
  std::optional<std::string> failure;     // set when either candidate failed (wrong answer, crash, hang, a rule broken): says which and why
  std::vector<PairedWorkload> workloads;  // the visible (not held-out) workloads, in the task's order
  double seconds = 0;                     // wall time of the whole measurement
  std::vector<std::string> warnings;      // measurement warnings, as a verdict's measurement_warnings
};

}  // namespace kernelarc::judge
