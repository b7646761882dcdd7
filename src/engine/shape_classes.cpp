#include "engine/shape_classes.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace kernelarc::engine {

namespace {

constexpr double kUnusable = std::numeric_limits<double>::infinity();

// Per configuration, prefix sums of log-time over the groups of workloads of one size, sorted by size.
struct Costs {
  std::vector<std::vector<double>> prefix;  // [c][g]: sum over groups before g of the usable times' logs
  std::vector<std::vector<std::size_t>> unusable;  // [c][g]: workloads before group g that c has no time on
  std::vector<std::size_t> group_workloads;
  // The best configuration over groups [from, to) and its total log-time.
  std::pair<std::size_t, double> best(std::size_t from, std::size_t to) const {
    std::pair<std::size_t, double> out{0, kUnusable};
    for (std::size_t c = 0; c < prefix.size(); ++c)
      if (unusable[c][to] == unusable[c][from])
        if (const double cost = prefix[c][to] - prefix[c][from]; cost < out.second) out = {c, cost};
    return out;
  }
  std::size_t workloads(std::size_t from, std::size_t to) const {
    return std::accumulate(group_workloads.begin() + static_cast<std::ptrdiff_t>(from), group_workloads.begin() + static_cast<std::ptrdiff_t>(to),
                           std::size_t{0});
  }
};

}  // namespace

ShapeClasses choose_shape_classes(const std::vector<double>& sizes, const std::vector<std::vector<double>>& times, std::size_t max_classes,
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
  const std::size_t n = groups.size();
  Costs costs;
  for (const auto& group : groups) costs.group_workloads.push_back(group.size());
  for (const auto& row : times) {
    std::vector<double> prefix(n + 1, 0.0);
    std::vector<std::size_t> unusable(n + 1, 0);
    for (std::size_t g = 0; g < n; ++g) {
      prefix[g + 1] = prefix[g];
      unusable[g + 1] = unusable[g];
      for (const auto w : groups[g]) {
        if (std::isfinite(row[w]) && row[w] > 0) prefix[g + 1] += std::log(row[w]);
        else ++unusable[g + 1];
      }
    }
    costs.prefix.push_back(std::move(prefix));
    costs.unusable.push_back(std::move(unusable));
  }
  const auto [single, single_cost] = costs.best(0, n);
  if (!std::isfinite(single_cost)) throw std::invalid_argument("no configuration has a time on every workload");

  // best[k][j]: the least cost of groups [0, j) in k + 1 classes; cut[k][j]: where its last class starts.
  const std::size_t k_max = std::max<std::size_t>(1, std::min(max_classes, n));
  std::vector<std::vector<double>> best(k_max, std::vector<double>(n + 1, kUnusable));
  std::vector<std::vector<std::size_t>> cut(k_max, std::vector<std::size_t>(n + 1, 0));
  for (std::size_t j = 1; j <= n; ++j) best[0][j] = costs.best(0, j).second;
  for (std::size_t k = 1; k < k_max; ++k)
    for (std::size_t j = k + 1; j <= n; ++j)
      for (std::size_t i = k; i < j; ++i)
        if (const double cost = best[k - 1][i] + costs.best(i, j).second; cost < best[k][j] - 1e-12) best[k][j] = cost, cut[k][j] = i;
  std::size_t k = 0;  // the most classes that beat fewer by anything: noise is judged per border below
  for (std::size_t candidate = 1; candidate < k_max; ++candidate)
    if (best[candidate][n] < best[k][n] - 1e-12) k = candidate;
  std::vector<std::size_t> starts;  // each class's first group
  for (std::size_t j = n, level = k;; --level) {
    const std::size_t start = level == 0 ? 0 : cut[level][j];
    starts.insert(starts.begin(), start);
    if (level == 0) break;
    j = start;
  }
  // Merge the adjacent pair whose split gains least while that gain is under min_gain.
  for (;;) {
    std::size_t weakest = 0;
    double weakest_gain = kUnusable;
    for (std::size_t c = 0; c + 1 < starts.size(); ++c) {
      const std::size_t from = starts[c], middle = starts[c + 1], to = c + 2 < starts.size() ? starts[c + 2] : n;
      const double split = costs.best(from, middle).second + costs.best(middle, to).second;
      const double gain = std::exp((costs.best(from, to).second - split) / static_cast<double>(costs.workloads(from, to))) - 1;
      if (gain < weakest_gain) weakest_gain = gain, weakest = c;
    }
    if (starts.size() < 2 || weakest_gain >= min_gain) break;
    starts.erase(starts.begin() + static_cast<std::ptrdiff_t>(weakest) + 1);
  }
  ShapeClasses out;
  const auto total = static_cast<double>(sizes.size());
  out.single_ns = std::exp(single_cost / total);
  double classes_cost = 0;
  for (std::size_t c = 0; c < starts.size(); ++c) {
    const std::size_t from = starts[c], to = c + 1 < starts.size() ? starts[c + 1] : n;
    const auto [configuration, cost] = costs.best(from, to);
    classes_cost += cost;
    ShapeClass shape_class{configuration, kUnusable, costs.workloads(from, to)};
    if (to < n) shape_class.up_to = (group_size[to - 1] + group_size[to]) / 2;
    out.classes.push_back(shape_class);
  }
  out.classes_ns = std::exp(classes_cost / total);
  return out;
}

}  // namespace kernelarc::engine
