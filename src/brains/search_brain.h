// The built-in brain: a search over a template's knobs, no model needed. An agent owns the knobs tagged with
// its strategy; from the incumbent's values it changes one of them at a time, and jumps to a random valid
// configuration once every neighbour has been tried. The order of the moves is a bandit's: each move (a knob
// set to a value) is scored by what the board's conclusions say about setting that knob to that value (their
// effects summed, a failure counting -1), unknown moves score 0 and come in a seeded random order, so an empty
// board means pure exploration. Never proposes a configuration tried before or one that breaks the template's
// constraints.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>

#include "engine/brain.h"
#include "task/task.h"

namespace kernelarc::brains {

using engine::Conclusion;
using engine::Knobs;
using engine::Proposal;

class SearchBrain : public engine::KnobBrain {
 public:
  SearchBrain(const task::Template& tmpl, std::string strategy, std::uint64_t seed);

  std::optional<Proposal> propose(const Knobs& base, const std::set<Knobs>& tried, const std::vector<Conclusion>& evidence = {}) override;

  // The knob values a conclusion's change set, read from this brain's hypotheses ("BLOCK 256 -> 512 (...)",
  // "jump to BLOCK=512 VEC=4 (...)"); empty for any other text.
  static Knobs settings_in(const std::string& change);

 private:
  const task::Template& template_;
  std::string strategy_;
  std::mt19937_64 random_;
};

}  // namespace kernelarc::brains
