#include "brains/random_brain.h"

#include <fmt/format.h>

namespace kernelarc::brains {

RandomBrain::RandomBrain(const task::Template& tmpl, std::string strategy, std::uint64_t seed)
    : template_(tmpl), strategy_(std::move(strategy)), random_(seed) {}

std::optional<engine::Proposal> RandomBrain::propose(const engine::Knobs& base, const std::set<engine::Knobs>& tried,
                                                     const std::vector<engine::Conclusion>& /*evidence: ignored on purpose*/) {
  std::vector<const task::Knob*> mine;
  for (const auto& knob : template_.knobs)
    if (knob.strategy == strategy_) mine.push_back(&knob);
  if (mine.empty()) return std::nullopt;
  // Sampling with rejection; a strategy whose few configurations are all tried stops after the attempts.
  for (int attempt = 0; attempt < 256; ++attempt) {
    engine::Knobs next = base;
    std::string changes;
    for (const auto* knob : mine) {
      next[knob->name] = knob->values[random_() % knob->values.size()];
      changes += fmt::format("{}{}={}", changes.empty() ? "" : " ", knob->name, next[knob->name]);
    }
    if (tried.count(next) || !engine::knobs_allowed(template_, next)) continue;
    return engine::Proposal{next, fmt::format("jump to {} ({}: a random sample)", changes, strategy_), std::nullopt};
  }
  return std::nullopt;
}

}  // namespace kernelarc::brains
