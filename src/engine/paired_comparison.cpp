#include "engine/paired_comparison.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

#include <fmt/format.h>

namespace kernelarc::engine {
namespace {

double median_of(std::vector<double>& values) {
  const std::size_t n = values.size();
  const auto mid = values.begin() + static_cast<std::ptrdiff_t>(n / 2);
  std::nth_element(values.begin(), mid, values.end());
  if (n % 2 == 1) return *mid;
  const double upper = *mid;
  const double lower = *std::max_element(values.begin(), mid);
  return (lower + upper) / 2;
}

}  // namespace

std::vector<PairedSample> pairs_over_workloads(const std::vector<std::vector<PairedSample>>& by_workload) {
  if (by_workload.empty()) return {};
  const std::size_t pairs = by_workload.front().size();
  std::vector<PairedSample> out(pairs);
  for (const auto& workload : by_workload) {
    if (workload.size() != pairs) throw std::invalid_argument("paired comparison: workloads with different numbers of pairs");
    for (std::size_t i = 0; i < pairs; ++i) {
      out[i].incumbent_ns += std::log(workload[i].incumbent_ns);
      out[i].challenger_ns += std::log(workload[i].challenger_ns);
    }
  }
  const auto n = static_cast<double>(by_workload.size());
  for (auto& pair : out) pair = {std::exp(pair.incumbent_ns / n), std::exp(pair.challenger_ns / n)};
  return out;
}

PairedResult compare_paired(const std::vector<PairedSample>& samples, const PairedOptions& options) {
  if (!(options.noise_floor >= 0) || !(options.confidence > 0 && options.confidence < 1) || options.resamples == 0) {
    throw std::invalid_argument("paired comparison: noise floor, confidence or resamples out of range");
  }
  PairedResult result;
  result.pairs = samples.size();
  result.threshold = 1 / (1 + options.noise_floor);
  std::vector<double> ratios;
  ratios.reserve(samples.size());
  for (const PairedSample& pair : samples) {
    const bool valid = std::isfinite(pair.incumbent_ns) && std::isfinite(pair.challenger_ns) && pair.incumbent_ns > 0 &&
                       pair.challenger_ns > 0;
    if (!valid) throw std::invalid_argument("paired comparison: a time is not finite and positive");
    ratios.push_back(pair.challenger_ns / pair.incumbent_ns);
  }
  if (ratios.empty()) {
    result.reason = "no pairs measured";
    return result;
  }
  std::vector<double> scratch = ratios;
  result.ratio = median_of(scratch);

  // Resample pairs with replacement; the index is drawn by modulo from a fixed engine so that the decision is the same
  // for a seed on every standard library (the bias of the modulo is negligible for a 64-bit draw).
  std::mt19937_64 engine(options.seed);
  std::vector<double> medians;
  medians.reserve(options.resamples);
  for (std::size_t r = 0; r < options.resamples; ++r) {
    for (double& value : scratch) value = ratios[engine() % ratios.size()];
    medians.push_back(median_of(scratch));
  }
  std::sort(medians.begin(), medians.end());
  const auto rank = static_cast<std::size_t>(std::ceil(options.confidence * static_cast<double>(medians.size()))) - 1;
  result.upper_bound = medians[std::min(rank, medians.size() - 1)];

  if (ratios.size() < options.min_pairs) {
    result.reason = fmt::format("{} pairs, fewer than the {} needed to decide", ratios.size(), options.min_pairs);
    return result;
  }
  result.challenger_wins = result.upper_bound < result.threshold;
  result.reason = fmt::format("{} pairs: challenger/incumbent {:.4f}, {:.0f}% upper bound {:.4f} {} {:.4f}", ratios.size(),
                              result.ratio, options.confidence * 100, result.upper_bound,
                              result.challenger_wins ? "<" : ">=", result.threshold);
  return result;
}

}  // namespace kernelarc::engine
