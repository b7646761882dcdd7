#include "judge/tolerance_sanity.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string_view>
#include <unordered_set>
#include <utility>

#include "judge/comparison.h"

namespace kernelarc::judge {
namespace {

// The rows the check reads: every row, or evenly spaced ones, and how many stored elements of each (a prefix when
// one row alone is over the budget).
struct RowSample {
  std::vector<std::int64_t> rows;
  std::int64_t row_elements = 0;
  std::string description;  // empty when every value is read
};

RowSample choose_rows(std::int64_t rows, std::int64_t row_elements, int per_element, std::int64_t max_values) {
  RowSample sample;
  sample.row_elements = row_elements;
  const std::int64_t row_values = row_elements * per_element;
  std::int64_t taken = rows;
  if (rows * row_values > max_values) {
    if (row_values <= max_values) {
      taken = std::max<std::int64_t>(max_values / row_values, 1);
      sample.description = fmt::format("{} of {} rows, evenly spaced", taken, rows);
    } else {
      taken = std::min<std::int64_t>(rows, 2);
      // Even, so that a prefix of 4-bit values is whole bytes.
      sample.row_elements = std::max<std::int64_t>(max_values / taken / per_element, 2) & ~std::int64_t{1};
      sample.description = fmt::format("the first {} values of {} of {} rows", sample.row_elements * per_element, taken, rows);
    }
  }
  for (std::int64_t k = 0; k < taken; ++k) sample.rows.push_back(k * rows / taken);
  return sample;
}

// `elements` stored elements from `first_element` on as float32 values; a 4-bit type may start mid-byte.
std::vector<float> decode(task::DType dtype, const std::byte* base, std::int64_t first_element, std::int64_t elements) {
  if (task::dtype_bits(dtype) == 4 && first_element % 2 != 0) {
    auto values = task::to_float32(dtype, base + first_element / 2, elements + 1);
    values.erase(values.begin());
    return values;
  }
  return task::to_float32(dtype, base + static_cast<std::size_t>(first_element) * task::dtype_bits(dtype) / 8, elements);
}

// `value` as the dtype stores it, read back.
float representable(task::DType dtype, float value) {
  const float pair[2] = {value, value};
  std::byte bytes[16] = {};
  task::from_float32(dtype, pair, 2, bytes);
  return task::to_float32(dtype, bytes, 1)[0];
}

// The value covered by the most of the intervals |c - y| <= atol + rtol * |y| (the middle of the best stretch).
float best_constant(const std::vector<float>& reference, const task::Tolerance& tolerance) {
  constexpr std::size_t kMostValues = 1 << 16;  // a strided subset is enough to place the constant
  const std::size_t stride = std::max<std::size_t>(reference.size() / kMostValues, 1);
  std::vector<std::pair<double, int>> events;
  for (std::size_t i = 0; i < reference.size(); i += stride) {
    const double y = reference[i];
    if (!std::isfinite(y)) continue;
    const double band = tolerance.max_atol + tolerance.max_rtol * std::fabs(y);
    events.emplace_back(y - band, 1);
    events.emplace_back(y + band, -1);
  }
  if (events.empty()) return 0;
  // Opening before closing at the same point: the intervals are closed.
  std::sort(events.begin(), events.end(), [](const auto& a, const auto& b) { return a.first != b.first ? a.first < b.first : a.second > b.second; });
  int covered = 0, best = 0;
  double from = 0, to = 0;
  for (std::size_t e = 0; e < events.size(); ++e) {
    covered += events[e].second;
    if (covered > best) best = covered, from = events[e].first, to = events[e + 1].first;  // an opening always has a closing after it
  }
  return static_cast<float>((from + to) / 2);
}

double mean_of_finite(const float* values, std::size_t count) {
  double sum = 0;
  std::int64_t finite = 0;
  for (std::size_t i = 0; i < count; ++i)
    if (std::isfinite(values[i])) sum += values[i], ++finite;
  return finite ? sum / static_cast<double>(finite) : 0.0;
}

// Round to nearest even, keeping `bits` bits of the float32 mantissa and its whole exponent range.
float with_mantissa_bits(float value, int bits) {
  if (!std::isfinite(value)) return value;
  const int dropped = 23 - bits;
  auto word = std::bit_cast<std::uint32_t>(value);
  word += (1u << (dropped - 1)) - 1 + ((word >> dropped) & 1u);
  return std::bit_cast<float>(word & ~((1u << dropped) - 1));
}

// Mantissa bits of a much coarser format to round the reference to (0: none), and that format's name.
std::pair<int, std::string_view> coarser_precision(task::DType dtype) {
  switch (dtype) {
    case task::DType::float64:
    case task::DType::float32:
    case task::DType::float16:
    case task::DType::bfloat16: return {3, "float8_e4m3fn"};
    case task::DType::float8_e4m3fn:
    case task::DType::float8_e5m2: return {1, "float4_e2m1"};
    default: return {0, ""};
  }
}

std::string percent(double ratio) {
  // Rounded down, so that just below a requirement never prints as meeting it.
  return fmt::format("{:.2f}%", std::floor(ratio * 10000.0) / 100.0);
}

}  // namespace

std::vector<DegenerateAnswer> degenerate_answers_accepted(const std::string& name, task::DType dtype,
                                                          const std::vector<std::int64_t>& shape, const std::byte* reference,
                                                          const task::Tolerance& tolerance, std::int64_t max_values) {
  const std::int64_t count = task::element_count(shape);
  const int per_element = task::values_per_element(dtype);
  const int bits = task::dtype_bits(dtype);
  const std::int64_t values = count * per_element;
  if (values < 2) return {};
  const std::int64_t full_row_elements = shape.size() >= 2 ? shape.back() : count;
  const std::int64_t rows = count / full_row_elements;
  const RowSample sample = choose_rows(rows, full_row_elements, per_element, std::max<std::int64_t>(max_values, 2));
  const auto taken = static_cast<std::int64_t>(sample.rows.size());
  const std::int64_t row_elements = sample.row_elements;
  const auto row_values = static_cast<std::size_t>(row_elements * per_element);
  const std::vector<std::int64_t> sample_shape = {taken, row_elements};
  const std::size_t sample_bytes = task::storage_bytes(dtype, taken * row_elements);

  // The reference's sampled rows as values, and (for the shifted answer) each one's next row.
  std::vector<float> want, next;
  want.reserve(static_cast<std::size_t>(taken) * row_values);
  if (rows >= 2) next.reserve(want.capacity());
  for (const std::int64_t r : sample.rows) {
    const auto row = decode(dtype, reference, r * full_row_elements, row_elements);
    want.insert(want.end(), row.begin(), row.end());
    if (rows >= 2) {
      const auto following = decode(dtype, reference, ((r + 1) % rows) * full_row_elements, row_elements);
      next.insert(next.end(), following.begin(), following.end());
    }
  }
  // The reference's bytes as stored (exact for int64 and float64, which float32 values are not); 4-bit values are
  // exact as float32 and are encoded again, since a row of them may start mid-byte.
  std::vector<std::byte> want_bytes(sample_bytes);
  if (bits >= 8) {
    const std::size_t element_bytes = static_cast<std::size_t>(bits / 8);
    for (std::size_t k = 0; k < sample.rows.size(); ++k)
      std::memcpy(want_bytes.data() + k * static_cast<std::size_t>(row_elements) * element_bytes,
                  reference + static_cast<std::size_t>(sample.rows[k] * full_row_elements) * element_bytes,
                  static_cast<std::size_t>(row_elements) * element_bytes);
  } else {
    task::from_float32(dtype, want.data(), static_cast<std::int64_t>(want.size()), want_bytes.data());
  }

  std::vector<DegenerateAnswer> accepted;
  std::unordered_set<std::size_t> tried;  // hashes of the answers' bytes: the same answer is judged once
  std::vector<std::byte> answer_bytes(sample_bytes);
  const auto judge_answer = [&](const std::string& description, const std::vector<float>& answer, bool skip_if_exact) {
    task::from_float32(dtype, answer.data(), static_cast<std::int64_t>(answer.size()), answer_bytes.data());
    const std::string_view as_text(reinterpret_cast<const char*>(answer_bytes.data()), answer_bytes.size());
    if (!tried.insert(std::hash<std::string_view>{}(as_text)).second) return;
    if (skip_if_exact && answer_bytes == want_bytes) return;
    const Comparison comparison = compare_output(name, dtype, sample_shape, answer_bytes.data(), want_bytes.data(), tolerance);
    if (!comparison.passed) return;
    accepted.push_back({name, description, comparison.matched_ratio, comparison.max_abs_error, tolerance,
                        taken * row_elements * per_element, values, sample.description});
  };

  // Zeros, with one value copied from the reference where it has one: the all-zero rule alone would refuse them.
  {
    std::vector<float> answer(want.size(), 0.0f);
    const auto nonzero = std::find_if(want.begin(), want.end(), [](float v) { return v != 0; });
    if (nonzero == want.end()) {
      judge_answer("zeros (the reference is all zeros)", answer, false);
    } else {
      answer[static_cast<std::size_t>(nonzero - want.begin())] = *nonzero;
      judge_answer("zeros but for one value copied from the reference (the all-zero rule needs one)", answer, false);
    }
  }
  // Constants; one that the dtype stores as zero is the zeros above. An answer identical to an earlier one is not repeated.
  const auto judge_constant = [&](float value, const std::string& description) {
    const float stored = representable(dtype, value);
    if (stored == 0 || !std::isfinite(stored)) return;
    judge_answer(fmt::format(fmt::runtime(description), stored), std::vector<float>(want.size(), stored), false);
  };
  // One over the row length first: a kernel can know it without the reference (a softmax row's mean).
  const std::int64_t full_row_values = full_row_elements * per_element;
  if (task::is_floating(dtype) && full_row_values >= 2)
    judge_constant(static_cast<float>(1.0 / static_cast<double>(full_row_values)),
                   fmt::format("the constant 1/{} ({{:.6g}}, one over the row length)", full_row_values));
  judge_constant(best_constant(want, tolerance), "the constant {:.6g} (the one within tolerance of the most reference values)");
  judge_constant(static_cast<float>(mean_of_finite(want.data(), want.size())), "the reference's mean ({:.6g})");
  // Row statistics: each row's mean over its row, each column's mean over the rows.
  if (row_values >= 2) {
    std::vector<float> answer(want.size());
    for (std::size_t k = 0; k < sample.rows.size(); ++k) {
      const float mean = static_cast<float>(mean_of_finite(want.data() + k * row_values, row_values));
      std::fill_n(answer.begin() + static_cast<std::ptrdiff_t>(k * row_values), row_values, mean);
    }
    judge_answer("each row's mean, broadcast over the row", answer, false);
  }
  if (taken >= 2) {
    std::vector<double> sums(row_values, 0.0);
    std::vector<std::int64_t> finite(row_values, 0);
    for (std::size_t i = 0; i < want.size(); ++i)
      if (std::isfinite(want[i])) sums[i % row_values] += want[i], ++finite[i % row_values];
    std::vector<float> answer(want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
      const std::size_t column = i % row_values;
      answer[i] = finite[column] ? static_cast<float>(sums[column] / static_cast<double>(finite[column])) : 0.0f;
    }
    judge_answer("each column's mean over the rows, the same in every row", answer, false);
  }
  if (rows >= 2) judge_answer("the reference shifted by one row (row i holds row i + 1's values, the last row the first's)", next, false);
  // Lower precision: where the reference is already that coarse, the answer is the reference, not a finding.
  if (const auto [mantissa_bits, format] = coarser_precision(dtype); mantissa_bits > 0) {
    std::vector<float> answer(want.size());
    // Saturating at the dtype's largest value, as a kernel would (448 rounds to 512, past e4m3fn's range).
    const auto largest = static_cast<float>(std::min<double>(task::max_finite(dtype), std::numeric_limits<float>::max()));
    std::transform(want.begin(), want.end(), answer.begin(),
                   [&](float v) { return std::isfinite(v) ? std::clamp(with_mantissa_bits(v, mantissa_bits), -largest, largest) : v; });
    judge_answer(fmt::format("the reference rounded to {} mantissa bit{} ({}'s precision)", mantissa_bits,
                             mantissa_bits == 1 ? "" : "s", format),
                 answer, true);
  }
  return accepted;
}

std::string tolerance_warning(std::string_view workload, const DegenerateAnswer& finding) {
  const task::Tolerance& t = finding.tolerance;
  std::string cap = t.max_error_cap ? fmt::format(" and max error {:g}", *t.max_error_cap) : "";
  std::string sampled = finding.sample.empty()
                            ? ""
                            : fmt::format(" (checked on {} of {} values: {})", finding.values_checked, finding.values, finding.sample);
  return fmt::format(
      "tolerance of workload {} accepts a degenerate answer for output '{}': {} matches {} within atol {:g} + rtol {:g}{} "
      "(required {:g}%), max abs error {:.4g}{}",
      workload, finding.output, finding.answer, percent(finding.matched_ratio), t.max_atol, t.max_rtol, cap,
      100.0 * t.required_matched_ratio, finding.max_abs_error, sampled);
}

}  // namespace kernelarc::judge
