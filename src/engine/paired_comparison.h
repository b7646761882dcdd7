// The paired confirmation (issue 25, item 4): the incumbent and a challenger timed interleaved (I C I C ...) on the
// same workloads, and the challenger wins only if it is faster beyond the noise of those pairs. Pure: the timings come
// in, a decision comes out, the same for the same seed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kernelarc::engine {

// One pair: the incumbent's and the challenger's time of one call on one workload, taken back to back.
struct PairedSample {
  double incumbent_ns = 0;
  double challenger_ns = 0;
};

// What the judge's paired timing gives the engine: one sample of each per round, or why it could not be taken.
struct PairedTimes {
  std::optional<std::string> failure;   // either candidate failed there (a wrong answer, a crash): no samples
  std::vector<PairedSample> samples;
  std::vector<std::string> warnings;
  double seconds = 0;
};

// Pair i over several workloads: the geometric mean of each side's i-th time over the workloads (the controller's time
// is a geometric mean over workloads too). Every workload must have the same number of pairs.
std::vector<PairedSample> pairs_over_workloads(const std::vector<std::vector<PairedSample>>& by_workload);

struct PairedOptions {
  double noise_floor = 0.01;     // the challenger must be faster by more than this fraction
  double confidence = 0.95;      // one-sided, of the bootstrap upper bound
  std::size_t resamples = 2000;  // bootstrap resamples
  std::size_t min_pairs = 10;    // fewer pairs decide nothing: the challenger does not win
  std::uint64_t seed = 1;
};

struct PairedResult {
  std::size_t pairs = 0;
  double ratio = 1;        // median of the per-pair ratios challenger / incumbent (below 1: the challenger is faster)
  double upper_bound = 1;  // the one-sided `confidence` bootstrap upper bound of that median
  double threshold = 1;    // 1 / (1 + noise_floor): the upper bound must fall below it
  bool challenger_wins = false;
  std::string reason;      // one line, for the journal and the report
};

// Median of per-pair ratios, bootstrapped by resampling pairs; the challenger wins iff the upper bound of the ratio is
// below 1 / (1 + noise_floor). A pair with a time that is not finite and positive is an error (std::invalid_argument).
PairedResult compare_paired(const std::vector<PairedSample>& samples, const PairedOptions& options = {});

}  // namespace kernelarc::engine
