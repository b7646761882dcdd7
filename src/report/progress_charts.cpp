#include "report/progress_charts.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/units.h"
#include "report/html_page.h"

namespace kernelarc::report {

using nlohmann::json;
using svg::escape;
using html::color, html::table, html::time_text, html::time_axis;

namespace {

// A best-so-far as step points: each point where the best changes (lower is better unless `higher`).
std::vector<svg::Point> best_so_far(const std::vector<std::pair<double, double>>& xy, bool higher, const std::string& what) {
  std::vector<svg::Point> out;
  for (const auto& [x, y] : xy) {
    if (!out.empty() && (higher ? y <= out.back().y : y >= out.back().y)) continue;
    out.push_back({x, y, ""});
  }
  (void)what;
  return out;
}

}  // namespace

double wall_extent(const RunData& d) {
  double end = d.candidates.empty() ? 0 : d.candidates.back().seconds;
  if (!d.run.finished_at.empty()) end = std::max(end, seconds_between(d.run.started_at, d.run.finished_at));
  return end;
}

svg::Series incumbent_series(const RunData& d, bool wall, const std::string& name, const std::string& colour, bool markers) {
  svg::Series s{name, colour, {}, true, true, markers, 0, false};
  for (const auto& c : d.candidates)
    if ((c.decision == "first" || c.decision == "promoted") && c.incumbent_ns > 0)
      s.points.push_back({wall ? c.seconds : static_cast<double>(c.number), c.incumbent_ns,
                          markers ? fmt::format("candidate {} ({}): {}", c.id, c.agent, common::format_time_ns(c.incumbent_ns)) : ""});
  s.extend_to_x = wall ? wall_extent(d) : (d.candidates.empty() ? 0 : static_cast<double>(d.candidates.back().number));
  return s;
}

std::vector<std::string> agents_of(const RunData& d) {
  std::vector<std::string> names;
  for (const auto& c : d.candidates)
    if (c.agent != "start" && std::find(names.begin(), names.end(), c.agent) == names.end()) names.push_back(c.agent);
  std::sort(names.begin(), names.end());
  return names;
}

std::string progress_charts(const RunData& d) {
  const auto agents = agents_of(d);
  std::string out;
  for (const bool wall : {false, true}) {
    svg::LineChart chart;
    chart.id = wall ? "best-time-wall" : "best-time-candidates";
    chart.title = wall ? "Best time over wall time" : "Best time over candidates judged";
    chart.x = wall ? svg::Axis{"seconds since the run started", false, [](double s) { return common::format_duration_s(s); }}
                   : svg::Axis{"candidates judged", false, {}};
    chart.y = time_axis("time (visible workloads' geometric mean)");
    if (!wall) {
      svg::Series all{"each correct candidate", "#b8c4d0", {}, false, false, true, 0, false};
      for (const auto& c : d.candidates)
        if (c.passed && c.time_ns > 0)
          all.points.push_back({static_cast<double>(c.number), c.time_ns, fmt::format("{} {} {}: {}", c.id, c.agent, c.decision, common::format_time_ns(c.time_ns))});
      chart.series.push_back(std::move(all));
    }
    chart.series.push_back(incumbent_series(d, wall, "team (incumbent)", "#000000", true));
    for (std::size_t a = 0; a < agents.size(); ++a) {
      std::vector<std::pair<double, double>> xy;
      for (const auto& c : d.candidates)
        if (c.agent == agents[a] && c.passed && c.time_ns > 0) xy.emplace_back(wall ? c.seconds : static_cast<double>(c.number), c.time_ns);
      svg::Series s{agents[a] + " (its best)", color(a), best_so_far(xy, false, "time"), true, true, false, 0, true};
      s.extend_to_x = wall ? wall_extent(d) : static_cast<double>(d.candidates.empty() ? 0 : d.candidates.back().number);
      chart.series.push_back(std::move(s));
    }
    out += svg::line_chart(chart);
  }
  const bool any_score = std::any_of(d.candidates.begin(), d.candidates.end(), [](const CandidatePoint& c) { return c.score.has_value(); });
  if (!any_score) {
    out += "<p class=\"note\" id=\"no-score\">No SOL score: the run had no baseline time T_b (<code>--baseline-torch</code> or "
           "<code>--baseline-file</code>).</p>";
    return out;
  }
  for (const bool wall : {false, true}) {
    svg::LineChart chart;
    chart.id = wall ? "score-wall" : "score-candidates";
    chart.title = wall ? "SOL score over wall time" : "SOL score over candidates judged";
    chart.x = wall ? svg::Axis{"seconds since the run started", false, [](double s) { return common::format_duration_s(s); }}
                   : svg::Axis{"candidates judged", false, {}};
    chart.y = {"SOL score (0.5 = T_b, 1 = speed of light)", false, {}};
    svg::Series team{"team (incumbent)", "#000000", {}, true, true, true, 0, false};
    for (const auto& c : d.candidates)
      if ((c.decision == "first" || c.decision == "promoted") && c.score)
        team.points.push_back({wall ? c.seconds : static_cast<double>(c.number), *c.score, fmt::format("candidate {}: {:.3f}", c.id, *c.score)});
    team.extend_to_x = wall ? wall_extent(d) : static_cast<double>(d.candidates.empty() ? 0 : d.candidates.back().number);
    chart.series.push_back(std::move(team));
    for (std::size_t a = 0; a < agents.size(); ++a) {
      std::vector<std::pair<double, double>> xy;
      for (const auto& c : d.candidates)
        if (c.agent == agents[a] && c.passed && c.score) xy.emplace_back(wall ? c.seconds : static_cast<double>(c.number), *c.score);
      svg::Series s{agents[a] + " (its best)", color(a), best_so_far(xy, true, "score"), true, true, false, team.extend_to_x, true};
      chart.series.push_back(std::move(s));
    }
    out += svg::line_chart(chart);
  }
  return out;
}

}  // namespace kernelarc::report
