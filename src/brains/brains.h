// The brains a run can be given by name (`kernelarc run --brain NAME`). A new search is one file and one line here.
#pragma once

#include <string>
#include <vector>

#include "engine/brain.h"

namespace kernelarc::brains {

// "search": local search from the incumbent, moves ordered by the board (brains/search_brain.h).
// "random": uniform samples of the agent's knobs, blind to the board (brains/random_brain.h), a control.
std::vector<std::string> brain_names();

// The factory of the brain called `name`; throws std::invalid_argument naming the known ones.
engine::BrainFactory brain_factory(const std::string& name);

}  // namespace kernelarc::brains
