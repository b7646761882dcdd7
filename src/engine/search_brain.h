// The built-in brain: a search over a template's knobs, no model needed. An agent owns the knobs tagged with
// its strategy; from the incumbent's values it changes one of them at a time (every neighbour, in a seeded
// order), and jumps to a random valid configuration once every neighbour has been tried. Never proposes a
// configuration tried before or one that breaks the template's constraints.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>

#include "task/task.h"

namespace kernelarc::engine {

using Knobs = std::map<std::string, std::int64_t>;

struct Proposal {
  Knobs knobs;
  std::string hypothesis;  // one line: the change and why it might help
};

class SearchBrain {
 public:
  SearchBrain(const task::Template& tmpl, std::string strategy, std::uint64_t seed);

  // The next configuration from `base`, or nullopt when this strategy has nothing left to try.
  // `tried` holds every configuration judged so far, by any agent.
  std::optional<Proposal> propose(const Knobs& base, const std::set<Knobs>& tried);

  // The template's knobs at their first values: the starting candidate.
  static Knobs defaults(const task::Template& tmpl);
  // Whether `knobs` satisfies every constraint of the template that names only knobs.
  static bool allowed(const task::Template& tmpl, const Knobs& knobs);

 private:
  const task::Template& template_;
  std::string strategy_;
  std::mt19937_64 random_;
};

}  // namespace kernelarc::engine
