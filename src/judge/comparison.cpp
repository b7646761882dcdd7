#include "judge/comparison.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "common/parallel.h"

namespace kernelarc::judge {

std::string format_index(std::int64_t flat_value_index, const std::vector<std::int64_t>& shape, int values_per_element) {
  std::int64_t element = flat_value_index / values_per_element;
  std::vector<std::int64_t> index(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    const std::int64_t extent = std::max<std::int64_t>(shape[d], 1);
    index[d] = element % extent;
    element /= extent;
  }
  std::string text = fmt::format("[{}]", fmt::join(index, ", "));
  if (values_per_element > 1) text += fmt::format(" value {}", flat_value_index % values_per_element);
  return text;
}

namespace {

// What one chunk of a comparison found; chunks are merged in order, so the first problem is the first in the output.
using ChunkFindings = ComparisonFindings;

constexpr std::int64_t kChunkElements = 1 << 16;  // even, so a chunk of 4-bit elements starts on a byte

// The common case without branches: every value finite and within tolerance. Then the findings are only the errors and
// the zero flags; otherwise the caller walks the chunk value by value for the first problem and the counts.
bool all_within_tolerance(const std::vector<float>& got, const std::vector<float>& want, const task::Tolerance& tolerance,
                          ChunkFindings& found) {
  double max_abs = 0, max_rel = 0;
  bool suspicious = false, all_zero = true, reference_all_zero = true;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double x = got[i], y = want[i];
    const double error = std::fabs(x - y), magnitude = std::fabs(y);
    suspicious |= !(error <= tolerance.max_atol + tolerance.max_rtol * magnitude) | !std::isfinite(x) | !std::isfinite(y);
    max_abs = std::max(max_abs, error);
    max_rel = std::max(max_rel, y != 0 ? error / magnitude : 0.0);
    all_zero &= x == 0;
    reference_all_zero &= y == 0;
  }
  if (suspicious) return false;
  found.max_abs_error = max_abs;
  found.max_rel_error = max_rel;
  found.all_zero = all_zero;
  found.reference_all_zero = reference_all_zero;
  return true;
}

}  // namespace

bool poison_is_finite(task::DType dtype, std::byte poison) {
  // Two elements cover both nibbles of a 4-bit type's byte; float64 is read as a double (0xFE... is -2^1008).
  const std::vector<std::byte> filled(std::max<std::size_t>(task::dtype_bits(dtype) / 8, 1) * 2, poison);
  if (dtype == task::DType::float64) return std::isfinite(task::load_element(dtype, filled.data(), 0));
  const auto values = task::to_float32(dtype, filled.data(), 2);
  return std::all_of(values.begin(), values.end(), [](float v) { return std::isfinite(v); });
}

Comparison compare_output(const std::string& name, task::DType dtype, const std::vector<std::int64_t>& shape,
                          const std::byte* actual, const std::byte* expected, const task::Tolerance& tolerance,
                          std::optional<std::byte> poison) {
  const std::int64_t count = task::element_count(shape);
  const int per_element = task::values_per_element(dtype);
  const std::size_t element_bytes = std::max<std::size_t>(task::dtype_bits(dtype) / 8, 1);
  // A finite pattern is a value a kernel may write (-448 in e4m3fn, -1 in the integers): compared, never "unwritten".
  const bool poison_detectable = poison && !poison_is_finite(dtype, *poison);
  const auto is_poison = [&](std::int64_t value_index) {
    if (!poison_detectable) return false;
    const std::byte* element = actual + (value_index / per_element) * element_bytes;
    for (std::size_t b = 0; b < element_bytes; ++b)
      if (element[b] != *poison) return false;
    return true;
  };
  std::vector<ChunkFindings> chunks(static_cast<std::size_t>((count + kChunkElements - 1) / kChunkElements));
  common::for_each_chunk(count, kChunkElements, [&](std::int64_t begin, std::int64_t end, std::int64_t index) {
    const std::size_t byte_offset = static_cast<std::size_t>(begin) * task::dtype_bits(dtype) / 8;
    thread_local std::vector<float> got, want;
    task::to_float32_into(dtype, actual + byte_offset, end - begin, got);
    task::to_float32_into(dtype, expected + byte_offset, end - begin, want);
    const std::int64_t first_value = begin * per_element;
    ChunkFindings& found = chunks[static_cast<std::size_t>(index)];
    if (all_within_tolerance(got, want, tolerance, found)) return;
    for (std::size_t i = 0; i < got.size(); ++i) {
      const double x = got[i], y = want[i];
      const std::int64_t at = first_value + static_cast<std::int64_t>(i);
      found.all_zero = found.all_zero && x == 0;
      found.reference_all_zero = found.reference_all_zero && y == 0;
      bool bad;
      if (std::isnan(x) || std::isinf(x)) {
        bad = !(tolerance.allow_negative_inf && x < 0 && std::isinf(x) && y == x);
        if (bad && found.first_problem_index < 0 && !is_poison(at)) found.first_problem_index = at;
      } else if (std::isinf(y)) {
        bad = true;  // the reference has -inf here (allowed by tolerance), the candidate a finite value
      } else {
        const double error = std::fabs(x - y);
        bad = error > tolerance.max_atol + tolerance.max_rtol * std::fabs(y);
        found.max_abs_error = std::max(found.max_abs_error, error);
        if (y != 0) found.max_rel_error = std::max(found.max_rel_error, error / std::fabs(y));
      }
      if (bad) {
        if (found.first_bad_index < 0) found.first_bad_index = at, found.first_bad_got = x, found.first_bad_want = y;
        ++found.mismatched;
        if (is_poison(at)) ++found.poisoned_bad;
      }
    }
  });
  ComparisonFindings total;
  for (const auto& found : chunks) {
    total.all_zero = total.all_zero && found.all_zero;
    total.reference_all_zero = total.reference_all_zero && found.reference_all_zero;
    total.mismatched += found.mismatched;
    total.poisoned_bad += found.poisoned_bad;
    // std::max keeps NaN out only when it comes second; a NaN error cannot arise here (NaN inputs take the other branch).
    total.max_abs_error = std::max(total.max_abs_error, found.max_abs_error);
    total.max_rel_error = std::max(total.max_rel_error, found.max_rel_error);
    if (total.first_bad_index < 0 && found.first_bad_index >= 0)
      total.first_bad_index = found.first_bad_index, total.first_bad_got = found.first_bad_got, total.first_bad_want = found.first_bad_want;
    if (total.first_problem_index < 0) total.first_problem_index = found.first_problem_index;
  }
  if (total.first_problem_index >= 0) {
    // Decoded again from the bytes; 4-bit elements come in pairs, so start at the pair's first.
    const std::int64_t element = total.first_problem_index / per_element;
    const std::int64_t base = task::dtype_bits(dtype) < 8 ? element & ~std::int64_t{1} : element;
    const auto decoded = task::to_float32(dtype, actual + static_cast<std::size_t>(base) * task::dtype_bits(dtype) / 8, element - base + 1);
    total.first_problem_value = decoded[static_cast<std::size_t>((element - base) * per_element + total.first_problem_index % per_element)];
  }
  return comparison_verdict(name, shape, per_element, count * per_element, total, tolerance);
}

Comparison comparison_verdict(const std::string& name, const std::vector<std::int64_t>& shape, int per_element, std::int64_t values,
                              const ComparisonFindings& found, const task::Tolerance& tolerance) {
  Comparison result;
  result.values = values;
  result.mismatched = found.mismatched;
  result.first_bad_index = found.first_bad_index;
  result.max_abs_error = found.max_abs_error;
  result.max_rel_error = found.max_rel_error;
  const std::int64_t poisoned_bad = found.poisoned_bad;
  std::string first_problem;
  if (found.first_problem_index >= 0) {
    const double x = found.first_problem_value;
    first_problem = fmt::format("{} at {}", std::isnan(x) ? "NaN" : (x > 0 ? "+inf" : "-inf"),
                                format_index(found.first_problem_index, shape, per_element));
  }
  // matched / values, not 1 - mismatched / values: the subtraction rounds a ratio exactly at the requirement
  // (0.07 of 100, 0.1 of 10, ...) to just below it.
  result.matched_ratio =
      result.values ? static_cast<double>(result.values - result.mismatched) / static_cast<double>(result.values) : 1.0;
  result.unwritten = poisoned_bad > 0 && poisoned_bad == result.mismatched;
  const auto where = [&](std::int64_t i) {
    return fmt::format("{}: got {:.6g}, expected {:.6g}", format_index(i, shape, per_element), found.first_bad_got, found.first_bad_want);
  };
  if (poisoned_bad > 0) {
    result.reason = fmt::format("output '{}': {} of {} values left unwritten (still the poison pattern), first at {}",
                                name, poisoned_bad, result.values, format_index(result.first_bad_index, shape, per_element));
  } else if (!first_problem.empty()) {
    result.reason = fmt::format("output '{}': {} ({} bad values in all)", name, first_problem, result.mismatched);
  } else if (found.all_zero && !found.reference_all_zero) {
    result.reason = fmt::format("output '{}': every value is zero but the reference is not", name);
  } else if (result.matched_ratio < tolerance.required_matched_ratio) {
    result.reason = fmt::format(
        "output '{}': {} of {} values ({:.2f}%) outside atol {:g} + rtol {:g}, need {:.2f}% matched; first bad {}; "
        "max abs error {:.4g}",
        name, result.mismatched, result.values, 100.0 * result.mismatched / std::max<std::int64_t>(result.values, 1),
        tolerance.max_atol, tolerance.max_rtol, 100.0 * tolerance.required_matched_ratio, where(result.first_bad_index),
        result.max_abs_error);
  } else if (tolerance.max_error_cap && result.max_abs_error > *tolerance.max_error_cap) {
    result.reason = fmt::format("output '{}': max abs error {:.4g} is over the cap {:g}", name, result.max_abs_error,
                                *tolerance.max_error_cap);
  } else if (result.mismatched > 0 && std::isnan(result.max_abs_error)) {
    result.reason = fmt::format("output '{}': invalid values", name);
  }
  // NaN or Inf fail even when few enough to fit in the unmatched ratio.
  if (result.reason.empty() && !first_problem.empty())
    result.reason = fmt::format("output '{}': {}", name, first_problem);
  result.passed = result.reason.empty();
  return result;
}

std::optional<std::string> reference_output_problem(const std::string& name, task::DType dtype,
                                                    const std::vector<std::int64_t>& shape, const std::byte* values,
                                                    const task::Tolerance& tolerance) {
  const std::int64_t count = task::element_count(shape);
  const int per_element = task::values_per_element(dtype);
  // The first bad value of each chunk (its index, and whether it is a NaN), read in chunks over the machine's cores.
  std::vector<std::pair<std::int64_t, bool>> first_bad(static_cast<std::size_t>((count + kChunkElements - 1) / kChunkElements), {-1, false});
  common::for_each_chunk(count, kChunkElements, [&](std::int64_t begin, std::int64_t end, std::int64_t index) {
    thread_local std::vector<float> data;
    task::to_float32_into(dtype, values + static_cast<std::size_t>(begin) * task::dtype_bits(dtype) / 8, end - begin, data);
    for (std::size_t i = 0; i < data.size(); ++i) {
      const float v = data[i];
      if (std::isnan(v) || (std::isinf(v) && !(tolerance.allow_negative_inf && v < 0))) {
        first_bad[static_cast<std::size_t>(index)] = {begin * per_element + static_cast<std::int64_t>(i), std::isnan(v)};
        return;
      }
    }
  });
  for (const auto& [at, nan] : first_bad)
    if (at >= 0) return fmt::format("reference output '{}' has {} at {}", name, nan ? "NaN" : "Inf", format_index(at, shape, per_element));
  return std::nullopt;
}

bool every_value_near_zero(task::DType dtype, const std::vector<std::int64_t>& shape, const std::byte* values, double atol) {
  const std::int64_t count = task::element_count(shape);
  std::vector<char> near(static_cast<std::size_t>((count + kChunkElements - 1) / kChunkElements), 1);
  common::for_each_chunk(count, kChunkElements, [&](std::int64_t begin, std::int64_t end, std::int64_t index) {
    thread_local std::vector<float> decoded;
    task::to_float32_into(dtype, values + static_cast<std::size_t>(begin) * task::dtype_bits(dtype) / 8, end - begin, decoded);
    near[static_cast<std::size_t>(index)] = std::all_of(decoded.begin(), decoded.end(), [&](float v) { return std::fabs(v) <= atol; });
  });
  return std::all_of(near.begin(), near.end(), [](char n) { return n != 0; });
}

namespace {

// How many whole elements of `Word` in [begin, end) hold `first_pattern` in `first` and `second_pattern` in `second`;
// the first such index goes to `first_found`.
template <typename Word>
std::int64_t count_in_both(const std::byte* first, Word first_pattern, const std::byte* second, Word second_pattern,
                           std::int64_t begin, std::int64_t end, std::int64_t& first_found) {
  std::int64_t found = 0;
  for (std::int64_t i = begin; i < end; ++i) {
    Word a, b;
    std::memcpy(&a, first + i * static_cast<std::int64_t>(sizeof(Word)), sizeof(Word));
    std::memcpy(&b, second + i * static_cast<std::int64_t>(sizeof(Word)), sizeof(Word));
    if (a == first_pattern && b == second_pattern) {
      if (found++ == 0) first_found = i;
    }
  }
  return found;
}

template <typename Word>
Word filled_with(std::byte poison) {
  Word word;
  std::memset(&word, static_cast<int>(poison), sizeof(Word));
  return word;
}

}  // namespace

std::optional<std::string> unwritten_in_both(const std::string& name, task::DType dtype, const std::vector<std::int64_t>& shape,
                                             const std::byte* first, std::byte first_poison, const std::byte* second,
                                             std::byte second_poison) {
  const std::int64_t count = task::element_count(shape);
  const int per_element = task::values_per_element(dtype);
  const int bits = task::dtype_bits(dtype);
  const bool nibbles = bits == 4 || per_element == 2;  // float4_e2m1 (a nibble an element) or _x2 (two a byte)
  const std::int64_t values = count * per_element;
  if (first_poison == second_poison) return std::nullopt;  // a value written alike in both runs would look unwritten
  struct Found {
    std::int64_t count = 0, first = -1;
  };
  // Chunks count values; kChunkElements is even, so a chunk of nibbles starts on a byte.
  std::vector<Found> chunks(static_cast<std::size_t>((values + kChunkElements - 1) / kChunkElements));
  common::for_each_chunk(values, kChunkElements, [&](std::int64_t begin, std::int64_t end, std::int64_t index) {
    Found& found = chunks[static_cast<std::size_t>(index)];
    if (nibbles) {
      const auto a = reinterpret_cast<const std::uint8_t*>(first), b = reinterpret_cast<const std::uint8_t*>(second);
      const auto p = static_cast<std::uint8_t>(first_poison), q = static_cast<std::uint8_t>(second_poison);
      for (std::int64_t v = begin; v < end; ++v) {
        const int shift = (v % 2) * 4;  // low nibble first
        if (((p ^ q) >> shift & 0xF) == 0) continue;  // the same nibble in both patterns: a written value looks alike
        if (((a[v / 2] ^ p) >> shift & 0xF) == 0 && ((b[v / 2] ^ q) >> shift & 0xF) == 0)
          if (found.count++ == 0) found.first = v;
      }
      return;
    }
    switch (bits) {
      case 8: found.count = count_in_both(first, filled_with<std::uint8_t>(first_poison), second, filled_with<std::uint8_t>(second_poison), begin, end, found.first); break;
      case 16: found.count = count_in_both(first, filled_with<std::uint16_t>(first_poison), second, filled_with<std::uint16_t>(second_poison), begin, end, found.first); break;
      case 32: found.count = count_in_both(first, filled_with<std::uint32_t>(first_poison), second, filled_with<std::uint32_t>(second_poison), begin, end, found.first); break;
      case 64: found.count = count_in_both(first, filled_with<std::uint64_t>(first_poison), second, filled_with<std::uint64_t>(second_poison), begin, end, found.first); break;
      default: throw std::invalid_argument(fmt::format("unwritten_in_both: {} bits an element", bits));
    }
  });
  std::int64_t total = 0, first_at = -1;
  for (const auto& found : chunks) {
    total += found.count;
    if (first_at < 0) first_at = found.first;
  }
  if (total == 0) return std::nullopt;
  return fmt::format("output '{}': {} of {} values left unwritten (the poison pattern in both runs, 0x{:02X} then 0x{:02X}), first at {}",
                     name, total, values, static_cast<unsigned>(first_poison), static_cast<unsigned>(second_poison),
                     format_index(first_at, shape, per_element));
}

std::optional<std::string> nondeterminism(const std::string& name, task::DType dtype, const std::vector<std::int64_t>& shape,
                                          const std::byte* first, const std::byte* second, const task::Tolerance& tolerance) {
  const std::int64_t count = task::element_count(shape);
  // The first differing value of each chunk; chunks are read in order, so the reported one is the first in the output.
  std::vector<std::int64_t> first_difference(static_cast<std::size_t>((count + kChunkElements - 1) / kChunkElements), -1);
  common::for_each_chunk(count, kChunkElements, [&](std::int64_t begin, std::int64_t end, std::int64_t index) {
    const std::size_t byte_offset = static_cast<std::size_t>(begin) * task::dtype_bits(dtype) / 8;
    const std::size_t byte_end = (static_cast<std::size_t>(end) * task::dtype_bits(dtype) + 7) / 8;
    if (std::memcmp(first + byte_offset, second + byte_offset, byte_end - byte_offset) == 0) return;  // the usual case
    const auto a = task::to_float32(dtype, first + byte_offset, end - begin);
    const auto b = task::to_float32(dtype, second + byte_offset, end - begin);
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (std::isnan(a[i]) && std::isnan(b[i])) continue;
      if (a[i] == b[i]) continue;
      // An infinity makes the band below infinite; +inf then -inf (or inf then a number) is no rounding difference.
      // Rounding differences from a different summation order stay far inside the task's band.
      const double band = 0.1 * (tolerance.max_atol + tolerance.max_rtol * std::fabs(b[i]));
      if (std::isinf(a[i]) || std::isinf(b[i]) || !(std::fabs(a[i] - b[i]) <= band)) {
        first_difference[static_cast<std::size_t>(index)] = begin * task::values_per_element(dtype) + static_cast<std::int64_t>(i);
        return;
      }
    }
  });
  for (const std::int64_t at : first_difference) {
    if (at < 0) continue;
    const int per_element = task::values_per_element(dtype);
    const std::int64_t element = at / per_element;
    const std::int64_t base = task::dtype_bits(dtype) < 8 ? element & ~std::int64_t{1} : element;
    const auto offset = static_cast<std::size_t>(base) * task::dtype_bits(dtype) / 8;
    const auto value = [&](const std::byte* data) {
      return task::to_float32(dtype, data + offset, element - base + 1)[static_cast<std::size_t>((element - base) * per_element + at % per_element)];
    };
    return fmt::format("output '{}' differs between two runs on the same inputs at {}: {:.6g} then {:.6g}", name,
                       format_index(at, shape, per_element), value(first), value(second));
  }
  return std::nullopt;
}

}  // namespace kernelarc::judge
