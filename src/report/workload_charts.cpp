#include "report/workload_charts.h"

#include <fmt/format.h>

#include "common/units.h"
#include "report/html_page.h"

namespace kernelarc::report {

using nlohmann::json;
using svg::escape;
using html::color, html::table, html::time_text, html::time_axis;

std::string workload_section(const RunData& d) {
  if (d.workloads.empty()) return "<p class=\"note\">No verdicts recorded for the best candidate.</p>";
  svg::BarChart chart;
  chart.id = "workloads";
  chart.title = "Per workload: the start and the best against T_b and T_sol";
  chart.bar_names = {"start", "best", "T_b (baseline)", "T_sol"};
  chart.bar_colors = {"#9aa5b1", "#1f77b4", "#ff7f0e", "#2ca02c"};
  chart.y = time_axis("median time");
  chart.note = "* held out: judged, never shown to the agents";
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> classes;
  for (const auto& w : d.workloads) {
    chart.groups.push_back({w.uuid, {w.start_ns, w.best_ns, w.baseline_ns, w.sol_ns}, w.held_out});
    rows.push_back({w.uuid, w.held_out ? "yes" : "", w.best_status, time_text(w.start_ns), time_text(w.best_ns),
                    w.start_ns && w.best_ns ? common::speed_ratio(*w.start_ns, *w.best_ns) : "-", time_text(w.baseline_ns), time_text(w.sol_ns),
                    w.sol_ns && w.best_ns && *w.best_ns > 0 ? fmt::format("{:.1f}", 100 * *w.sol_ns / *w.best_ns) : "-", html::number_text(w.score)});
    classes.push_back(w.held_out ? "held" : "");
  }
  return svg::bar_chart(chart) +
         table({"workload", "held out", "status (best)", "start", "best", "best vs start", "T_b", "T_sol", "%SOL", "score"}, rows, "workload-table", classes);
}

std::string roofline_section(const RunData& d) {
  svg::Roofline chart;
  chart.id = "roofline";
  chart.title = "Roofline: each workload of the start and the best";
  chart.bytes_per_second = d.memory_roof;
  chart.compute_roofs = d.compute_roofs;
  svg::Series start{"start", "#9aa5b1", {}, false, false, true, 0, false}, best{"best", "#1f77b4", {}, false, false, true, 0, false};
  for (const auto& w : d.workloads) {
    if (w.flops <= 0 || w.bytes <= 0) continue;
    const double intensity = w.flops / w.bytes;
    if (w.start_ns && *w.start_ns > 0)
      start.points.push_back({intensity, w.flops / (*w.start_ns * 1e-9), fmt::format("{} start: {}", w.uuid, common::format_time_ns(*w.start_ns))});
    if (w.best_ns && *w.best_ns > 0)
      best.points.push_back({intensity, w.flops / (*w.best_ns * 1e-9), fmt::format("{} best: {}", w.uuid, common::format_time_ns(*w.best_ns))});
  }
  if (start.points.empty() && best.points.empty())
    return "<p class=\"note\" id=\"no-roofline\">Roofline unavailable: the verdicts record no FLOP and byte counts with a nonzero FLOP count "
           "(a task without a roofline, or a kernel that only moves data).</p>";
  if (d.memory_roof <= 0 && d.compute_roofs.empty())
    return "<p class=\"note\" id=\"no-roofline\">Roofline unavailable: the store records no T_sol from which the device's peaks can be read.</p>";
  chart.series = {start, best};
  std::string roofs = d.memory_roof > 0 ? fmt::format("memory {}B/s", svg::compact_number(d.memory_roof)) : "memory roof unknown";
  for (const auto& [name, rate] : d.compute_roofs) roofs += fmt::format(", {} {}FLOP/s", name, svg::compact_number(rate));
  if (d.compute_roofs.empty()) roofs += "; no compute-bound workload, so no compute roof";
  return svg::roofline_chart(chart) + "<p class=\"note\">Roofs read from the recorded T_sol (the peaks the judge used): " + escape(roofs) + ".</p>";
}

}  // namespace kernelarc::report
