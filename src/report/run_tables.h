// The run page's tables: the summary at the top, the agents, the strategies, the incumbent's lineage, the plateaus and
// other journal events, the board's conclusions, the models' usage and the best kernel's knobs and source.
#pragma once

#include <string>

#include "report/run_data.h"

namespace kernelarc::report {

std::string summary_section(const RunData& d);  // the heading and the summary table
std::string agents_section(const RunData& d);
std::string strategies_section(const RunData& d);
std::string lineage_section(const RunData& d);
std::string events_section(const RunData& d);
std::string board_section(const RunData& d);
std::string usage_section(const RunData& d);
std::string source_section(const RunData& d);

}  // namespace kernelarc::report
