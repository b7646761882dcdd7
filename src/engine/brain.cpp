#include "engine/brain.h"

#include <algorithm>

namespace kernelarc::engine {

ModelUsage& ModelUsage::operator+=(const ModelUsage& other) {
  requests += other.requests;
  failures += other.failures;
  tokens_in += other.tokens_in;
  tokens_out += other.tokens_out;
  cost_usd += other.cost_usd;
  return *this;
}

nlohmann::json usage_json(const ModelUsage& u) {
  return {{"requests", u.requests}, {"failures", u.failures}, {"tokens_in", u.tokens_in}, {"tokens_out", u.tokens_out}, {"cost_usd", u.cost_usd}};
}

ModelUsage usage_from(const nlohmann::json& j) {
  return {j.value("requests", std::int64_t{0}), j.value("failures", std::int64_t{0}), j.value("tokens_in", std::int64_t{0}),
          j.value("tokens_out", std::int64_t{0}), j.value("cost_usd", 0.0)};
}

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
