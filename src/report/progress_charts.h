// The run page's progress charts: the best time and the SOL score over the candidates judged and over wall time, the
// team's incumbent beside each agent's own best, and every correct candidate as a dot.
#pragma once

#include <string>
#include <vector>

#include "report/run_data.h"
#include "report/svg_chart.h"

namespace kernelarc::report {

// The run's wall time: to its last candidate, or to its end when it finished.
double wall_extent(const RunData& d);
// The incumbent over the candidates judged (x: number) or over wall time (x: seconds).
svg::Series incumbent_series(const RunData& d, bool wall, const std::string& name, const std::string& colour, bool markers);
// The agents that proposed candidates (not the start), sorted.
std::vector<std::string> agents_of(const RunData& d);
// The progress charts of one run (or a note where there is no score).
std::string progress_charts(const RunData& d);

}  // namespace kernelarc::report
