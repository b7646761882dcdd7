// The end of a run: classes of workloads by size from every configuration the run judged (engine/shape_classes.h),
// and, where more than one configuration is best somewhere, the composed candidate (engine/composition.h) to judge.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/brain.h"
#include "engine/shape_classes.h"
#include "judge/dispatch_rule.h"
#include "store/store.h"
#include "task/task.h"

namespace kernelarc::engine {

struct Specialisation {
  Knobs knobs;              // the composed candidate's (composed_knobs)
  std::string hypothesis;   // one line: the classes and the gain the measurements predict
  ShapeClasses classes;
  std::vector<judge::DispatchPart> parts;  // the composed candidate's, a part per class (a configuration may take several)
  std::string axis;         // the var axis the classes are drawn on; empty: the product of the var axes
};

// From run `run_id`'s candidates of template `tmpl` (its own source, knobs only) that passed every visible workload, each
// workload timed by the slower of a candidate's measurements, or, when the run screened two configurations or more on every
// visible workload, from those screenings (the median of a configuration's screenings per workload); `first` (the incumbent's knobs) is listed first so a tie
// goes to it. A class must gain 2%, or the median spread of those measurements where it is larger, over merging with
// its neighbour. Classes are drawn on the size that separates the configurations best: the product of the var axes or one
// var axis alone (a GEMM's rows decide its kernel more than its product does), the product where they tie. nullopt,
// with `why` said, when fewer than two classes come out.
std::optional<Specialisation> specialisation_of(const store::Store& store, std::int64_t run_id, const task::Task& task,
                                                const task::Template& tmpl, std::size_t max_configurations, const Knobs& first, std::string& why);

}  // namespace kernelarc::engine
