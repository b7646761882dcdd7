#include "engine/shape_classes.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace kernelarc::engine {

namespace {

constexpr double kUnusable = std::numeric_limits<double>::infinity();

// Each group (the workloads of one size) given to a configuration of a set, and the total log-time that costs.
struct Assignment {
  std::vector<std::size_t> owner;  // per group: a configuration of the set
  double total = kUnusable;
};

// cost[c][g]: configuration c's sum of log-times over group g's workloads; kUnusable where it lacks a time on one.
Assignment assign(const std::vector<std::vector<double>>& cost, std::vector<std::size_t> set) {
  std::sort(set.begin(), set.end());  // ties go to the lower configuration index
  Assignment out;
  out.total = 0;
  const std::size_t groups = cost.front().size();
  out.owner.assign(groups, set.front());
  for (std::size_t g = 0; g < groups; ++g) {
    double best = kUnusable;
    for (const auto c : set)
      if (cost[c][g] < best) best = cost[c][g], out.owner[g] = c;
    out.total += best;
  }
  return out;
}

std::vector<std::size_t> without(std::vector<std::size_t> set, std::size_t index) {
  set.erase(set.begin() + static_cast<std::ptrdiff_t>(index));
  return set;
}

}  // namespace

ShapeClasses choose_shape_classes(const std::vector<double>& sizes, const std::vector<std::vector<double>>& times, std::size_t max_configurations,
                                  double min_gain) {
  if (sizes.empty()) throw std::invalid_argument("no workloads to classify");
  if (times.empty()) throw std::invalid_argument("no configurations to choose from");
  for (const auto& row : times)
    if (row.size() != sizes.size()) throw std::invalid_argument(fmt::format("{} times for {} workloads", row.size(), sizes.size()));
  std::vector<std::size_t> order(sizes.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return sizes[a] < sizes[b]; });
  std::vector<double> group_size;  // the size of each group
  std::vector<std::vector<std::size_t>> groups;
  for (const auto w : order) {
    if (group_size.empty() || sizes[w] != group_size.back()) {
      group_size.push_back(sizes[w]);
      groups.emplace_back();
    }
    groups.back().push_back(w);
  }
  const std::size_t n = groups.size(), configurations = times.size();
  std::vector<std::vector<double>> cost(configurations, std::vector<double>(n, 0.0));
  for (std::size_t c = 0; c < configurations; ++c)
    for (std::size_t g = 0; g < n; ++g)
      for (const auto w : groups[g]) cost[c][g] += std::isfinite(times[c][w]) && times[c][w] > 0 ? std::log(times[c][w]) : kUnusable;
  const auto workloads_of = [&](const std::vector<std::size_t>& owner, std::size_t c) {
    std::size_t count = 0;
    for (std::size_t g = 0; g < n; ++g) count += owner[g] == c ? groups[g].size() : 0;
    return count;
  };

  std::size_t single = 0;
  for (std::size_t c = 1; c < configurations; ++c)
    if (assign(cost, {c}).total < assign(cost, {single}).total - 1e-12) single = c;
  const double single_cost = assign(cost, {single}).total;
  if (!std::isfinite(single_cost)) throw std::invalid_argument("no configuration has a time on every workload");

  // Up to max_configurations configurations, each group to the fastest of them: added one at a time, the one that lowers the
  // total most, then swapped for another while that lowers it (the first picks are not always the best pair).
  std::vector<std::size_t> chosen{single};
  const std::size_t k_max = std::max<std::size_t>(1, max_configurations);
  double total = single_cost;
  while (chosen.size() < k_max) {
    std::size_t pick = configurations;
    double best = total - 1e-12;
    for (std::size_t c = 0; c < configurations; ++c) {
      if (std::find(chosen.begin(), chosen.end(), c) != chosen.end()) continue;
      auto trial = chosen;
      trial.push_back(c);
      if (const double t = assign(cost, trial).total; t < best) best = t, pick = c;
    }
    if (pick == configurations) break;
    chosen.push_back(pick);
    total = best;
  }
  for (bool improved = true; improved;) {
    improved = false;
    for (std::size_t i = 0; i < chosen.size(); ++i)
      for (std::size_t c = 0; c < configurations; ++c) {
        if (std::find(chosen.begin(), chosen.end(), c) != chosen.end()) continue;
        auto trial = chosen;
        trial[i] = c;
        if (const double t = assign(cost, trial).total; t < total - 1e-12) chosen = trial, total = t, improved = true;
      }
  }
  // A configuration stays only if the workloads it takes would be min_gain slower without it: none is kept for noise.
  for (;;) {
    if (chosen.size() < 2) break;
    const auto now = assign(cost, chosen);
    std::size_t weakest = 0;
    double weakest_gain = kUnusable;
    for (std::size_t i = 0; i < chosen.size(); ++i) {
      const double rest = assign(cost, without(chosen, i)).total;
      if (!std::isfinite(rest)) continue;
      const std::size_t served = workloads_of(now.owner, chosen[i]);
      const double gain = served == 0 ? 0 : std::exp((rest - now.total) / static_cast<double>(served)) - 1;
      if (gain < weakest_gain) weakest_gain = gain, weakest = i;
    }
    if (weakest_gain >= min_gain) break;
    chosen = without(chosen, weakest);
  }
  // Runs of groups with one configuration are the classes; a run that gains less than min_gain over a neighbour's
  // configuration joins it (weakest first), so a border is never drawn on noise.
  auto owner = assign(cost, chosen).owner;
  const auto runs_of = [&] {
    std::vector<std::pair<std::size_t, std::size_t>> runs;  // [from, to) groups
    for (std::size_t g = 0; g < n; ++g)
      if (runs.empty() || owner[g] != owner[runs.back().first]) runs.emplace_back(g, g + 1);
      else runs.back().second = g + 1;
    return runs;
  };
  const auto run_cost = [&](std::size_t c, std::size_t from, std::size_t to) {
    double sum = 0;
    for (std::size_t g = from; g < to; ++g) sum += cost[c][g];
    return sum;
  };
  for (;;) {
    const auto runs = runs_of();
    std::size_t weakest = runs.size(), joins = 0;
    double weakest_gain = kUnusable;
    for (std::size_t r = 0; r < runs.size(); ++r) {
      const auto [from, to] = runs[r];
      std::size_t run_workloads = 0;
      for (std::size_t g = from; g < to; ++g) run_workloads += groups[g].size();
      const double own = run_cost(owner[from], from, to);
      for (const std::size_t neighbour : {r - 1, r + 1}) {
        if (neighbour >= runs.size()) continue;  // r - 1 of the first run wraps past the end
        const std::size_t other = owner[runs[neighbour].first];
        const double gain = std::exp((run_cost(other, from, to) - own) / static_cast<double>(run_workloads)) - 1;
        if (gain < weakest_gain) weakest_gain = gain, weakest = r, joins = other;
      }
    }
    if (weakest == runs.size() || weakest_gain >= min_gain) break;
    for (std::size_t g = runs[weakest].first; g < runs[weakest].second; ++g) owner[g] = joins;
  }

  ShapeClasses out;
  const auto workloads_total = static_cast<double>(sizes.size());
  out.single_ns = std::exp(single_cost / workloads_total);
  double classes_cost = 0;
  for (const auto& [from, to] : runs_of()) {
    classes_cost += run_cost(owner[from], from, to);
    ShapeClass shape_class{owner[from], kUnusable, 0};
    for (std::size_t g = from; g < to; ++g) shape_class.workloads += groups[g].size();
    if (to < n) shape_class.up_to = (group_size[to - 1] + group_size[to]) / 2;
    out.classes.push_back(shape_class);
  }
  out.classes_ns = std::exp(classes_cost / workloads_total);
  return out;
}

}  // namespace kernelarc::engine
