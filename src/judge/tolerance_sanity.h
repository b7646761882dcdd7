// Degenerate answers tried against a workload's tolerance: one that accepts them cannot tell a kernel from a guess.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "task/dtype.h"
#include "task/task.h"

namespace kernelarc::judge {

// A degenerate answer that compare_output passed against the reference.
struct DegenerateAnswer {
  std::string output;              // the output's name
  std::string answer;              // what was tried, with its value: "the reference's mean (0.000244)"
  double matched_ratio = 0;
  double max_abs_error = 0;
  task::Tolerance tolerance;       // what it passed
  std::int64_t values_checked = 0; // the output's values, or the sample's
  std::int64_t values = 0;
  std::string sample;              // empty when every value was checked; else which ones were
};

// Outputs above this many values are checked on whole rows, evenly spaced (the same rows every time).
inline constexpr std::int64_t kToleranceSanityValues = std::int64_t{1} << 22;

// Tries, with compare_output's rules, zeros (but one value, so the all-zero rule does not decide), constants (the one
// matching the most reference values, the reference's mean, 1 / the row length), each row's mean, each column's mean
// over the rows, the reference shifted by one row (row i gets row i + 1's values, the last wraps), and the reference
// at a much coarser precision. A row is the last dimension. Returns the answers the tolerance accepts, in that order;
// outputs of fewer than two values are not checked. `reference` is one round's reference output.
std::vector<DegenerateAnswer> degenerate_answers_accepted(const std::string& name, task::DType dtype,
                                                          const std::vector<std::int64_t>& shape, const std::byte* reference,
                                                          const task::Tolerance& tolerance,
                                                          std::int64_t max_values = kToleranceSanityValues);

// "tolerance of workload W accepts a degenerate answer for output 'y': the reference's mean (0.000244) matches 99.30%
// within atol 0.01 + rtol 0.01 (required 99%), max abs error 0.0031"
std::string tolerance_warning(std::string_view workload, const DegenerateAnswer& finding);

}  // namespace kernelarc::judge
