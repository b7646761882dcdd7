#include "engine/brain.h"

#include <algorithm>
#include <random>

#include "task/knob_grid.h"

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

Knobs default_knobs(const task::Template& tmpl) { return task::default_knobs(tmpl); }

bool knobs_allowed(const task::Template& tmpl, const Knobs& knobs) { return !task::broken_knob_constraint(tmpl, knobs); }

std::optional<Knobs> random_knobs(const task::Template& tmpl, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  for (int draw = 0; draw < 10000; ++draw) {
    Knobs knobs;
    for (const auto& knob : tmpl.knobs) knobs[knob.name] = knob.values[random() % knob.values.size()];
    if (knobs_allowed(tmpl, knobs)) return knobs;
  }
  return std::nullopt;
}

}  // namespace kernelarc::engine
