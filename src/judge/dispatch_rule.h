// The rule a composed candidate (engine/composition.h) dispatches by, one rule for the judge, the composed source and
// an export: a workload's size is the product of its var axes, and it goes to the first part whose bound it does not
// exceed (the last part has none).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "task/task.h"

namespace kernelarc::judge {

// One configuration of a composed candidate and the largest size it takes.
struct DispatchPart {
  std::map<std::string, std::int64_t> knobs;
  std::optional<std::int64_t> up_to;            // nullopt: every size above the previous part's (the last part)
  std::optional<task::LaunchGeometry> launch;   // a kernel-only part's launch (its kernel renamed in the composed module)
};

// The product of the workload's var axes: a size every entry point can read from its tensors' shapes.
double dispatch_size(const task::Definition& definition, const task::Bindings& axes);

// The index of the part that takes a workload of `size`.
std::size_t dispatched_part(const std::vector<DispatchPart>& parts, double size);

}  // namespace kernelarc::judge
