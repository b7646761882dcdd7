// The rule a composed candidate (engine/composition.h) dispatches by, one rule for the judge, the composed source and
// an export: a workload's size is one var axis's value (its dispatch axis) or, without one, the product of its var axes,
// and it goes to the first part whose bound it does not exceed (the last part has none).
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

// Var axis `axis`'s value in the workload, or, for an empty `axis`, the product of its var axes: a size every entry point
// can read from its tensors' shapes. Throws std::invalid_argument when `axis` is no var axis of the definition.
double dispatch_size(const task::Definition& definition, const task::Bindings& axes, const std::string& axis = "");

// The same size as C++ over an entry point's tensors (`inputs`, `outputs`: DLTensor* const*), in double arithmetic, for
// generated host code: a composed full source and an exported launcher. Throws std::runtime_error for a var axis no
// tensor shape names, std::invalid_argument when `axis` is no var axis.
std::string dispatch_size_cpp(const task::Definition& definition, const std::string& axis = "");

// The names of the definition's var axes, in its order: the axes a composed candidate may dispatch by.
std::vector<std::string> var_axis_names(const task::Definition& definition);
// Throws std::invalid_argument unless `axis` is empty (the product) or a var axis of the definition.
void check_dispatch_axis(const task::Definition& definition, const std::string& axis);

// Where an entry point reads var axis `axis` per call: "inputs[0]->shape[1]", the first tensor whose shape names it
// (inputs, then outputs). Throws std::runtime_error when none does.
std::string axis_shape_reference(const task::Definition& definition, const std::string& axis);

// The index of the part that takes a workload of `size`.
std::size_t dispatched_part(const std::vector<DispatchPart>& parts, double size);

}  // namespace kernelarc::judge
