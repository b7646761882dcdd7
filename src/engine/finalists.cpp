#include "engine/finalists.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

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

std::optional<std::map<std::string, std::int64_t>> combined_moves(const std::map<std::string, std::int64_t>& base,
                                                                  const std::vector<std::map<std::string, std::int64_t>>& faster) {
  const auto special = [](const std::map<std::string, std::int64_t>& knobs) {
    return std::any_of(knobs.begin(), knobs.end(), [](const auto& knob) { return knob.first.starts_with("@"); });
  };
  if (special(base)) return std::nullopt;
  auto combined = base;
  std::set<std::string> changed_already;
  int moves = 0;
  for (const auto& knobs : faster) {
    if (special(knobs)) return std::nullopt;
    std::vector<std::string> changed;
    for (const auto& [name, value] : knobs)
      if (const auto at = base.find(name); at == base.end() || at->second != value) changed.push_back(name);
    if (changed.empty() || std::any_of(changed.begin(), changed.end(), [&](const std::string& name) { return changed_already.count(name) > 0; }))
      continue;
    for (const auto& name : changed) {
      combined[name] = knobs.at(name);
      changed_already.insert(name);
    }
    ++moves;
  }
  if (moves < 2) return std::nullopt;
  return combined;
}

}  // namespace kernelarc::engine
