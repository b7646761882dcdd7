// Output comparison in fp32 with the task format's tolerance semantics (shared/GUARD.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "task/task.h"

namespace kernelarc::judge {

struct Comparison {
  bool passed = false;
  std::string reason;               // empty when passed; else what failed, where, by how much
  std::int64_t values = 0;
  std::int64_t mismatched = 0;      // outside atol + rtol * |expected|
  std::int64_t first_bad_index = -1;
  double max_abs_error = 0;
  double max_rel_error = 0;
  double matched_ratio = 1;
  bool unwritten = false;            // every bad value still held the poison pattern
};

// An element passes when |x - y| <= atol + rtol * |y|; the output passes when the matched ratio is
// at least the required one and the largest error is under the cap. Any NaN or Inf fails (except
// -inf where the reference also has -inf and the tolerance allows it). All zeros against a non-zero
// reference fails. `poison` is the byte the buffer was filled with before the call, to say "unwritten".
Comparison compare_output(const std::string& name, task::DType dtype, const std::vector<std::int64_t>& shape,
                          const std::byte* actual, const std::byte* expected, const task::Tolerance& tolerance,
                          std::optional<std::byte> poison = std::nullopt);

// Checks a reference's own output: NaN, or Inf not allowed by the tolerance, makes it invalid.
std::optional<std::string> reference_output_problem(const std::string& name, task::DType dtype,
                                                    const std::vector<std::int64_t>& shape, const std::byte* values,
                                                    const task::Tolerance& tolerance);

// Two runs on the same inputs must agree far inside the tolerance; returns why not, if they differ.
std::optional<std::string> nondeterminism(const std::string& name, task::DType dtype, const std::vector<std::int64_t>& shape,
                                          const std::byte* first, const std::byte* second, const task::Tolerance& tolerance);

// "[2, 17]" for a flat index into a row-major shape (fp4 x2 counts two values per element).
std::string format_index(std::int64_t flat_value_index, const std::vector<std::int64_t>& shape, int values_per_element);

}  // namespace kernelarc::judge
