// `kernelarc report`: a run (or several of one task) as one self-contained HTML page: curves of the best time and SOL
// score, per-workload bars against T_b and T_sol, a roofline, the strategies, the board, the incumbent's lineage, the
// plateaus, the models' cost and the best kernel's source. Charts are inline SVG (report/svg_chart.h); the page has no
// script and loads nothing from outside. The run's data: report/run_data.h; the page's parts: html_page.h (shell and
// tables), progress_charts.h, workload_charts.h, run_tables.h; the comparison: comparison_page.cpp.
#pragma once

#include <string>
#include <vector>

#include "report/run_data.h"

namespace kernelarc::report {

// The page of one run.
std::string run_report_html(const RunData& data);

// The page comparing runs of one task; throws ReportError naming the run of another task.
std::string comparison_html(const std::vector<RunData>& runs);

}  // namespace kernelarc::report
