#include "engine/finalists.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace kernelarc::engine {

std::vector<std::size_t> fastest_beating(const std::vector<std::optional<double>>& times, std::optional<double> incumbent_ns,
                                         double min_improvement, std::size_t at_most) {
  std::vector<std::size_t> kept;
  for (std::size_t i = 0; i < times.size(); ++i)
    if (times[i] && *times[i] > 0 && (!incumbent_ns || *times[i] * (1 + min_improvement) < *incumbent_ns)) kept.push_back(i);
  std::stable_sort(kept.begin(), kept.end(), [&](std::size_t a, std::size_t b) { return *times[a] < *times[b]; });
  if (kept.size() > at_most) kept.resize(at_most);
  return kept;
}

std::size_t survivors_of(std::size_t round_size, double keep) {
  return std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(keep * static_cast<double>(round_size))));
}

}  // namespace kernelarc::engine
