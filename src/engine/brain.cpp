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

std::optional<Knobs> allowed_near(const task::Template& tmpl, const Knobs& knobs, const std::string& kept, const std::set<Knobs>& tried) {
  if (knobs_allowed(tmpl, knobs)) return tried.count(knobs) ? std::nullopt : std::optional(knobs);
  const auto usable = [&](const Knobs& candidate) { return !tried.count(candidate) && knobs_allowed(tmpl, candidate); };
  // Each other knob set to each of its other values, in order; `then` is called with each.
  const auto each_change = [&](const Knobs& from, std::size_t first_knob, const auto& then) -> std::optional<Knobs> {
    for (std::size_t k = first_knob; k < tmpl.knobs.size(); ++k) {
      const auto& knob = tmpl.knobs[k];
      if (knob.name == kept) continue;
      for (const auto value : knob.values) {
        if (from.count(knob.name) && from.at(knob.name) == value) continue;
        Knobs changed = from;
        changed[knob.name] = value;
        if (auto found = then(changed, k)) return found;
      }
    }
    return std::nullopt;
  };
  const auto itself = [&](const Knobs& changed, std::size_t) { return usable(changed) ? std::optional(changed) : std::nullopt; };
  if (auto one = each_change(knobs, 0, itself)) return one;
  return each_change(knobs, 0, [&](const Knobs& changed, std::size_t k) { return each_change(changed, k + 1, itself); });
}

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
