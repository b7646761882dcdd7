#include "engine/brain.h"

#include <algorithm>

namespace kernelarc::engine {

Knobs default_knobs(const task::Template& tmpl) {
  Knobs knobs;
  for (const auto& knob : tmpl.knobs) knobs[knob.name] = knob.values.front();
  return knobs;
}

bool knobs_allowed(const task::Template& tmpl, const Knobs& knobs) {
  task::Bindings names;
  for (const auto& [name, value] : knobs) names[name] = static_cast<double>(value);
  for (const auto& constraint : tmpl.constraints) {
    const auto variables = constraint.variables();
    if (!std::all_of(variables.begin(), variables.end(), [&](const std::string& v) { return names.count(v) > 0; })) continue;
    if (!constraint.evaluate_condition(names)) return false;
  }
  return true;
}

}  // namespace kernelarc::engine
