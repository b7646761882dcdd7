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
  std::vector<ShapeClass> classes;  // by size, increasing (a configuration may recur); one: none is better on a part of the sizes
  double single_ns = 0;             // geometric mean over the workloads of the best single configuration
  double classes_ns = 0;            // the same with each workload timed by its class's configuration
};

// `sizes`: one per workload; `times[c][w]`: configuration c's median time on workload w (not finite or <= 0: c cannot
// take a class holding w). Up to `max_configurations` configurations, chosen to minimise the sum of log-times when each size
// takes the fastest of them (added greedily, then swapped while that helps); the classes are the runs of sizes one
// configuration takes, so a configuration may take sizes on both sides of another's (a GEMM's ragged M can want another
// tile than its neighbours; workloads of one size stay together). A configuration whose workloads would be less than
// `min_gain` (a fraction of their geometric-mean time) slower without it is dropped, and a run gaining less than that
// over a neighbour's configuration joins it, so noise neither adds a configuration nor draws a border. Ties go to the
// lower configuration index. Throws std::invalid_argument for mismatched sizes or no configuration that can take every
// workload alone.
ShapeClasses choose_shape_classes(const std::vector<double>& sizes, const std::vector<std::vector<double>>& times, std::size_t max_configurations,
                                  double min_gain = 0.02);

}  // namespace kernelarc::engine
