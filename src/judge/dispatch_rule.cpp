#include "judge/dispatch_rule.h"

#include <stdexcept>

namespace kernelarc::judge {

double dispatch_size(const task::Definition& definition, const task::Bindings& axes) {
  double size = 1;
  for (const auto& axis : definition.axes)
    if (axis.kind == task::AxisKind::variable) size *= axes.at(axis.name);
  return size;
}

std::size_t dispatched_part(const std::vector<DispatchPart>& parts, double size) {
  if (parts.empty()) throw std::logic_error("a composed candidate without parts");
  for (std::size_t i = 0; i + 1 < parts.size(); ++i)
    if (!parts[i].up_to || size <= static_cast<double>(*parts[i].up_to)) return i;
  return parts.size() - 1;
}

}  // namespace kernelarc::judge
