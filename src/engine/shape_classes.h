// Classes of workloads by size, each with the configuration that is fastest on it: what a composed candidate
// (engine/composition.h) is made of. Pure: sizes and per-workload times in, classes out, the same every time.
#pragma once

#include <cstddef>
#include <limits>
#include <vector>

namespace kernelarc::engine {

struct ShapeClass {
  std::size_t configuration = 0;   // index into the times given
  double up_to = std::numeric_limits<double>::infinity();  // largest size it takes: the midpoint to the next class's smallest
  std::size_t workloads = 0;
};

struct ShapeClasses {
  std::vector<ShapeClass> classes;  // by size, increasing; one class: no configuration is better on a part of the sizes
  double single_ns = 0;             // geometric mean over the workloads of the best single configuration
  double classes_ns = 0;            // the same with each workload timed by its class's configuration
};

// `sizes`: one per workload; `times[c][w]`: configuration c's median time on workload w (not finite or <= 0: c cannot
// take a class holding w). Up to `max_classes` contiguous classes over the workloads sorted by size (workloads of one
// size stay together), minimising the sum of log-times (dynamic programming); then adjacent classes are merged while
// splitting them gains less than `min_gain` (a fraction of their geometric-mean time), so noise does not split. Ties
// go to the lower configuration index. Throws std::invalid_argument for mismatched sizes or no configuration that
// can take every workload alone.
ShapeClasses choose_shape_classes(const std::vector<double>& sizes, const std::vector<std::vector<double>>& times, std::size_t max_classes,
                                  double min_gain = 0.02);

}  // namespace kernelarc::engine
