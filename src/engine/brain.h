// What proposes the next candidate of an agent. The engine knows only this interface; the brains themselves (the
// built-in knob searches, later language models) live in src/brains/ and are handed to a run as a factory.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/board.h"
#include "task/task.h"

namespace kernelarc::engine {

using Knobs = std::map<std::string, std::int64_t>;

struct Proposal {
  Knobs knobs;
  std::string hypothesis;  // one line: the change and why it might help
};

class Brain {
 public:
  virtual ~Brain() = default;
  // The next configuration from `base`, or nullopt when this agent has nothing left to try. `tried` holds every
  // configuration judged or in flight, by any agent; `evidence` is the board's entries for this agent, most relevant
  // first.
  virtual std::optional<Proposal> propose(const Knobs& base, const std::set<Knobs>& tried, const std::vector<Conclusion>& evidence) = 0;
};

// Makes the brain of one agent: the template it searches, the agent's strategy, its seed.
using BrainFactory = std::function<std::unique_ptr<Brain>(const task::Template& tmpl, const std::string& strategy, std::uint64_t seed)>;

// The template's knobs at their first values: the starting candidate.
Knobs default_knobs(const task::Template& tmpl);
// Whether `knobs` satisfies every constraint of the template that names only knobs (the judge checks the ones over a
// workload's axes, per workload).
bool knobs_allowed(const task::Template& tmpl, const Knobs& knobs);

}  // namespace kernelarc::engine
