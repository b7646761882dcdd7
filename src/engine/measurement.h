// A judged candidate reduced to the controller's numbers, from the judge's verdict while a run judges it or from its
// verdict rows in the store when a run is replayed: one function over the same numbers, so both give the same Measured.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/controller.h"
#include "judge/verdict.h"
#include "store/store.h"

namespace kernelarc::engine {

// One workload's part of a measurement, as the store keeps it.
struct WorkloadNumbers {
  std::string uuid;
  std::string status;  // PASSED, INCORRECT_NUMERICAL, ...
  std::string reason;
  bool held_out = false;
  std::optional<double> median_ns, q1_ns, q3_ns;  // set together, when the workload was timed
  std::optional<double> sol_ns;
  std::optional<double> score;
};

// The geometric mean of the visible workloads' medians and the median of their relative spreads (interquartile range
// over median); failed when the build or any workload failed, with the first reason.
Measured measure(std::int64_t number, bool built, const std::string& diagnostics, const std::vector<WorkloadNumbers>& workloads);
Measured measure(std::int64_t number, const judge::CandidateVerdict& verdict);

// A candidate's measurements as recorded: the first, and the second one taken before a promotion when there was one.
struct RecordedMeasurements {
  Measured first;
  std::optional<Measured> again;
};
RecordedMeasurements recorded_measurements(const store::Store& store, const store::CandidateRecord& candidate, std::int64_t number);

}  // namespace kernelarc::engine
