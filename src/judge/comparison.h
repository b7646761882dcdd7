// Output comparison in fp32 with the task format's tolerance semantics (docs/GUARD.md).
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

// What a comparison found over an output's values, before its verdict: the host's chunks merged, or what the device
// found (judge/cuda/device_comparison.h). Indices are flat value indices, -1 where none.
struct ComparisonFindings {
  std::int64_t mismatched = 0;           // outside the tolerance, NaN and Inf included
  std::int64_t poisoned_bad = 0;         // of those, the ones still holding a non-finite poison
  std::int64_t first_bad_index = -1;
  std::int64_t first_problem_index = -1; // the first NaN or Inf that is no poison
  double max_abs_error = 0, max_rel_error = 0;  // over the finite pairs
  double first_bad_got = 0, first_bad_want = 0;
  double first_problem_value = 0;        // the NaN or Inf at first_problem_index
  bool all_zero = true, reference_all_zero = true;
};

// The verdict on an output from its findings over `values` values (the rules of compare_output below).
Comparison comparison_verdict(const std::string& name, const std::vector<std::int64_t>& shape, int values_per_element,
                              std::int64_t values, const ComparisonFindings& found, const task::Tolerance& tolerance);

// Whether an element whose every byte (every nibble, for the 4-bit types) is `poison` decodes to finite values in
// `dtype`. Only a non-finite pattern can be told from a written value: 0xFE is -448 in float8_e4m3fn, and every pattern
// is a legal integer.
bool poison_is_finite(task::DType dtype, std::byte poison);

// An element passes when |x - y| <= atol + rtol * |y|; the output passes when the matched ratio is
// at least the required one and the largest error is under the cap. Any NaN or Inf fails (except
// -inf where the reference also has -inf and the tolerance allows it). All zeros against a non-zero
// reference fails. `poison` is the byte the buffer was filled with before the call: an element still holding it
// counts as "unwritten" only where that pattern is non-finite in `dtype`; elsewhere it is compared like any value.
Comparison compare_output(const std::string& name, task::DType dtype, const std::vector<std::int64_t>& shape,
                          const std::byte* actual, const std::byte* expected, const task::Tolerance& tolerance,
                          std::optional<std::byte> poison = std::nullopt);

// Checks a reference's own output: NaN, or Inf not allowed by the tolerance, makes it invalid.
std::optional<std::string> reference_output_problem(const std::string& name, task::DType dtype,
                                                    const std::vector<std::int64_t>& shape, const std::byte* values,
                                                    const task::Tolerance& tolerance);

// Whether every value is within `atol` of zero: an answer of zeros then matches it everywhere, so inputs that make it
// tell no answer from zeros (an extra round of shifted inputs through exp(-|x|), say) are no test of a kernel.
bool every_value_near_zero(task::DType dtype, const std::vector<std::int64_t>& shape, const std::byte* values, double atol);

// An element (a value, for the 4-bit types) that held the first poison's pattern after a call on buffers filled with
// `first_poison` and the second's after a call on the same inputs with `second_poison` was never written, whatever
// the patterns decode to. Returns how many, and the first, if any. Only values whose two patterns differ can be told
// from a written value: none when the poisons are equal, and for 4-bit types only the nibbles where they differ
// (0xFF then 0xFE: the low nibbles only, a high nibble 0xF being -6 both times; the judge pairs 0xFF with 0xEE).
std::optional<std::string> unwritten_in_both(const std::string& name, task::DType dtype, const std::vector<std::int64_t>& shape,
                                             const std::byte* first, std::byte first_poison, const std::byte* second,
                                             std::byte second_poison);

// Two runs on the same inputs must agree far inside the tolerance; returns why not, if they differ.
std::optional<std::string> nondeterminism(const std::string& name, task::DType dtype, const std::vector<std::int64_t>& shape,
                                          const std::byte* first, const std::byte* second, const task::Tolerance& tolerance);

// "[2, 17]" for a flat index into a row-major shape (fp4 x2 counts two values per element).
std::string format_index(std::int64_t flat_value_index, const std::vector<std::int64_t>& shape, int values_per_element);

}  // namespace kernelarc::judge
