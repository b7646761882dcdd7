// A workload resolved: every axis bound, the constraints checked, every tensor's shape known.
#include <fmt/format.h>

#include <algorithm>

#include "task/task.h"

namespace kernelarc::task {

namespace fs = std::filesystem;

std::int64_t element_count(const std::vector<std::int64_t>& shape) {
  std::int64_t count = 1;
  for (auto extent : shape) count *= extent;
  return count;
}

ResolvedWorkload resolve_workload(const Task& task, const Workload& workload) {
  const fs::path workload_file = task.directory / (workload.held_out ? "held-out workloads" : "workload.jsonl");
  const auto fail = [&](const std::string& field, const std::string& problem) -> void {
    throw TaskError(workload_file, fmt::format("workload {}: {}", workload.uuid, field), problem);
  };
  ResolvedWorkload resolved;
  for (const auto& axis : task.definition.axes) {
    if (axis.kind == AxisKind::constant) resolved.axes[axis.name] = static_cast<double>(axis.value);
    if (axis.kind == AxisKind::variable) resolved.axes[axis.name] = static_cast<double>(workload.axes.at(axis.name));
  }
  // Expression axes may refer to each other: resolve until nothing changes.
  std::vector<const Axis*> pending;
  for (const auto& axis : task.definition.axes)
    if (axis.kind == AxisKind::expression) pending.push_back(&axis);
  while (!pending.empty()) {
    const std::size_t before = pending.size();
    for (auto it = pending.begin(); it != pending.end();) {
      const auto variables = (*it)->expression->variables();
      if (std::all_of(variables.begin(), variables.end(), [&](const std::string& v) { return resolved.axes.count(v); })) {
        try {
          const std::int64_t value = (*it)->expression->evaluate_integer(resolved.axes);
          if (value < 0) fail("axes." + (*it)->name, fmt::format("expression gives {}, expected >= 0", value));
          resolved.axes[(*it)->name] = static_cast<double>(value);
        } catch (const ExpressionError& error) {
          fail("axes." + (*it)->name, error.what());
        }
        it = pending.erase(it);
      } else {
        ++it;
      }
    }
    if (pending.size() == before) fail("axes." + pending.front()->name, "expression axes refer to each other in a cycle");
  }
  for (const auto& constraint : task.definition.constraints) {
    bool holds = false;
    try {
      holds = constraint.evaluate_condition(resolved.axes);
    } catch (const ExpressionError& error) {
      fail("constraints", error.what());
    }
    if (!holds) fail("constraints", fmt::format("\"{}\" does not hold", constraint.text()));
  }
  const auto shapes = [&](const std::vector<TensorSpec>& tensors) {
    std::vector<std::vector<std::int64_t>> out;
    for (const auto& tensor : tensors) {
      std::vector<std::int64_t> shape;
      if (tensor.shape)
        for (const auto& axis : *tensor.shape) shape.push_back(static_cast<std::int64_t>(resolved.axes.at(axis)));
      out.push_back(std::move(shape));
    }
    return out;
  };
  resolved.input_shapes = shapes(task.definition.inputs);
  resolved.output_shapes = shapes(task.definition.outputs);
  for (std::size_t i = 0; i < task.definition.inputs.size(); ++i) {
    const auto& spec = task.definition.inputs[i];
    auto source = workload.inputs.find(spec.name);
    if (spec.is_scalar() && (source == workload.inputs.end() || source->second.kind != InputKind::scalar))
      fail("inputs." + spec.name, "is a plain scalar in the definition, so the workload must give it as {\"type\": \"scalar\"}");
  }
  return resolved;
}

}  // namespace kernelarc::task
