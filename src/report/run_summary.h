// The table printed when a run ends: one row per agent, then the start, the best, and why the run stopped.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "engine/run.h"

namespace kernelarc::report {

std::string summary_table(const std::string& title, const engine::RunSummary& summary);

// The same for machines: every agent's record, the start, the best, the roofline share and the SOL score.
nlohmann::json summary_json(const engine::RunSummary& summary);

}  // namespace kernelarc::report
