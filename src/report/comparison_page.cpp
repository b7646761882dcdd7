#include <fmt/format.h>

#include <map>

#include "common/units.h"
#include "report/html_page.h"
#include "report/html_report.h"
#include "report/parse_or_empty.h"
#include "report/progress_charts.h"

namespace kernelarc::report {

using nlohmann::json;
using svg::escape;
using html::color, html::table, html::time_text, html::time_axis;

std::string comparison_html(const std::vector<RunData>& runs) {
  if (runs.empty()) throw ReportError("no run to compare");
  for (const auto& r : runs)
    if (r.task != runs.front().task)
      throw ReportError(fmt::format("run {} is on task {} and run {} on task {}: a comparison needs runs of one task", r.run.id, r.task,
                                    runs.front().run.id, runs.front().task));
  std::string ids;
  for (const auto& r : runs) ids += (ids.empty() ? "" : ", ") + std::to_string(r.run.id);
  std::string body = fmt::format("<h1>Runs {} compared: {}</h1>", escape(ids), escape(runs.front().task));
  std::vector<std::vector<std::string>> rows;
  for (const auto& r : runs) {
    const json config = parse_or_empty(r.run.config_json);
    double start = 0, best = 0;
    for (const auto& c : r.candidates)
      if ((c.decision == "first" || c.decision == "promoted") && c.incumbent_ns > 0) (start == 0 ? start : best) = c.incumbent_ns, best = c.incumbent_ns;
    rows.push_back({std::to_string(r.run.id), r.run.device, r.run.status, config.value("brain", "-"), config.contains("agents") ? config["agents"].dump() : "-",
                    std::to_string(r.candidates.size()), time_text(start), time_text(best), common::speed_ratio(start, best),
                    common::format_duration_s(wall_extent(r))});
  }
  body += table({"run", "device", "status", "brain", "agents", "judged", "start", "best", "best vs start", "wall time"}, rows, "runs");
  body += "<h2>Progress</h2>";
  for (const bool wall : {false, true}) {
    svg::LineChart chart;
    chart.id = wall ? "compare-wall" : "compare-candidates";
    chart.title = wall ? "Best time over wall time" : "Best time over candidates judged";
    chart.x = wall ? svg::Axis{"seconds since the run started", false, [](double s) { return common::format_duration_s(s); }}
                   : svg::Axis{"candidates judged", false, {}};
    chart.y = time_axis("time (visible workloads' geometric mean)");
    for (std::size_t i = 0; i < runs.size(); ++i) chart.series.push_back(incumbent_series(runs[i], wall, fmt::format("run {}", runs[i].run.id), color(i), true));
    body += svg::line_chart(chart);
  }
  bool any_score = false;
  for (const auto& r : runs)
    for (const auto& c : r.candidates) any_score = any_score || c.score.has_value();
  if (any_score) {
    svg::LineChart chart;
    chart.id = "compare-score";
    chart.title = "SOL score over candidates judged";
    chart.x = {"candidates judged", false, {}};
    chart.y = {"SOL score", false, {}};
    for (std::size_t i = 0; i < runs.size(); ++i) {
      svg::Series s{fmt::format("run {}", runs[i].run.id), color(i), {}, true, true, true, 0, false};
      for (const auto& c : runs[i].candidates)
        if ((c.decision == "first" || c.decision == "promoted") && c.score) s.points.push_back({static_cast<double>(c.number), *c.score, fmt::format("candidate {}: {:.3f}", c.id, *c.score)});
      s.extend_to_x = runs[i].candidates.empty() ? 0 : static_cast<double>(runs[i].candidates.back().number);
      chart.series.push_back(std::move(s));
    }
    body += svg::line_chart(chart);
  }
  // Per workload: each run's best, the workloads in the first run's order, then any the others add.
  std::vector<std::string> order;
  std::map<std::string, bool> held;
  for (const auto& r : runs)
    for (const auto& w : r.workloads)
      if (!held.count(w.uuid)) order.push_back(w.uuid), held[w.uuid] = w.held_out;
  svg::BarChart bars;
  bars.id = "compare-workloads";
  bars.title = "Per workload: each run's best";
  bars.y = time_axis("median time");
  bars.note = "* held out";
  for (std::size_t i = 0; i < runs.size(); ++i) bars.bar_names.push_back(fmt::format("run {}", runs[i].run.id)), bars.bar_colors.push_back(color(i));
  std::vector<std::string> header = {"workload"};
  for (const auto& r : runs) header.push_back(fmt::format("run {} best", r.run.id));
  header.push_back("T_sol");
  std::vector<std::vector<std::string>> table_rows;
  std::vector<std::string> classes;
  for (const auto& uuid : order) {
    svg::BarGroup g{uuid, {}, held[uuid]};
    std::vector<std::string> row = {uuid};
    std::optional<double> sol;
    for (const auto& r : runs) {
      std::optional<double> best;
      for (const auto& w : r.workloads)
        if (w.uuid == uuid) best = w.best_ns, sol = sol ? sol : w.sol_ns;
      g.values.push_back(best);
      row.push_back(time_text(best));
    }
    row.push_back(time_text(sol));
    bars.groups.push_back(std::move(g));
    table_rows.push_back(std::move(row));
    classes.push_back(held[uuid] ? "held" : "");
  }
  body += "<h2>Workloads</h2>" + svg::bar_chart(bars) + table(header, table_rows, "workload-table", classes);
  return html::page(fmt::format("KernelArc runs {} compared: {}", ids, runs.front().task), body);
}

}  // namespace kernelarc::report
