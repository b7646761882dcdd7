// A control for experiments: an agent that samples its strategy's knobs uniformly among the allowed configurations
// not yet tried, blind to the board and to the incumbent's neighbourhood. A search that beats it has learnt something.
#pragma once

#include <random>
#include <string>

#include "engine/brain.h"

namespace kernelarc::brains {

class RandomBrain : public engine::KnobBrain {
 public:
  RandomBrain(const task::Template& tmpl, std::string strategy, std::uint64_t seed);
  std::optional<engine::Proposal> propose(const engine::Knobs& base, const std::set<engine::Knobs>& tried,
                                          const std::vector<engine::Conclusion>& evidence) override;

 private:
  const task::Template& template_;
  std::string strategy_;
  std::mt19937_64 random_;
};

}  // namespace kernelarc::brains
