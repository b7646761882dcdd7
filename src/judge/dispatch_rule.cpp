#include "judge/dispatch_rule.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace kernelarc::judge {

namespace {

// The var axes the size multiplies: `axis` alone, or every one for an empty `axis`.
std::vector<std::string> size_axes(const task::Definition& definition, const std::string& axis) {
  check_dispatch_axis(definition, axis);
  return axis.empty() ? var_axis_names(definition) : std::vector<std::string>{axis};
}

}  // namespace

std::vector<std::string> var_axis_names(const task::Definition& definition) {
  std::vector<std::string> names;
  for (const auto& axis : definition.axes)
    if (axis.kind == task::AxisKind::variable) names.push_back(axis.name);
  return names;
}

void check_dispatch_axis(const task::Definition& definition, const std::string& axis) {
  const auto names = var_axis_names(definition);
  if (!axis.empty() && std::find(names.begin(), names.end(), axis) == names.end())
    throw std::invalid_argument(fmt::format("a composed candidate dispatches by \"{}\", which is no var axis of task {}", axis, definition.name));
}

double dispatch_size(const task::Definition& definition, const task::Bindings& axes, const std::string& axis) {
  double size = 1;
  for (const auto& name : size_axes(definition, axis)) size *= axes.at(name);
  return size;
}

std::string axis_shape_reference(const task::Definition& definition, const std::string& axis) {
  const auto find_in = [&](const std::vector<task::TensorSpec>& tensors, const char* side) -> std::string {
    for (std::size_t t = 0; t < tensors.size(); ++t) {
      if (!tensors[t].shape) continue;
      for (std::size_t d = 0; d < tensors[t].shape->size(); ++d)
        if ((*tensors[t].shape)[d] == axis) return fmt::format("{}[{}]->shape[{}]", side, t, d);
    }
    return "";
  };
  if (auto found = find_in(definition.inputs, "inputs"); !found.empty()) return found;
  if (auto found = find_in(definition.outputs, "outputs"); !found.empty()) return found;
  throw std::runtime_error(fmt::format("the var axis \"{}\" is in no tensor's shape, so an entry point cannot read it from the tensors", axis));
}

std::string dispatch_size_cpp(const task::Definition& definition, const std::string& axis) {
  std::string out;
  for (const auto& name : size_axes(definition, axis)) out += fmt::format("{}(double){}", out.empty() ? "" : " * ", axis_shape_reference(definition, name));
  return out.empty() ? "1.0" : out;
}

std::size_t dispatched_part(const std::vector<DispatchPart>& parts, double size) {
  if (parts.empty()) throw std::logic_error("a composed candidate without parts");
  for (std::size_t i = 0; i + 1 < parts.size(); ++i)
    if (!parts[i].up_to || size <= static_cast<double>(*parts[i].up_to)) return i;
  return parts.size() - 1;
}

}  // namespace kernelarc::judge
