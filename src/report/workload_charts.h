// The run page's per-workload views of the start and the best: bars against T_b and T_sol with their table, and the
// roofline of the recorded FLOP and byte counts.
#pragma once

#include <string>

#include "report/run_data.h"

namespace kernelarc::report {

std::string workload_section(const RunData& d);
std::string roofline_section(const RunData& d);

}  // namespace kernelarc::report
