#include "report/html_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "common/units.h"
#include "report/svg_chart.h"

namespace kernelarc::report {

using nlohmann::json;
using svg::escape;

namespace {

// Rows a table shows before it says how many more there are (a 10,000-candidate run stays a few megabytes).
constexpr std::size_t kTableRows = 200;

const std::vector<std::string> kPalette = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22"};

const std::string& color(std::size_t i) { return kPalette[i % kPalette.size()]; }

json parse_or_empty(const std::string& text) {
  json value = json::parse(text, nullptr, false);
  return value.is_discarded() ? json::object() : value;
}

std::string time_text(std::optional<double> ns) { return ns && *ns > 0 ? common::format_time_ns(*ns) : "-"; }

std::string number_text(std::optional<double> v, const char* format = "{:.3f}") { return v ? fmt::format(fmt::runtime(format), *v) : "-"; }

// The visible workloads' geometric mean of one measurement (the first of each workload), or 0 if any failed.
double geometric_mean(const std::vector<const store::VerdictRow*>& rows) {
  double log_sum = 0;
  int count = 0;
  for (const auto* v : rows) {
    if (v->status != "PASSED" || !v->median_ns || *v->median_ns <= 0) return 0;
    if (v->held_out) continue;
    log_sum += std::log(*v->median_ns), ++count;
  }
  return count ? std::exp(log_sum / count) : 0;
}

std::string css() {
  return R"(body{font-family:sans-serif;margin:24px auto;max-width:1100px;color:#222;line-height:1.4}
h1{font-size:22px;margin-bottom:4px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ddd;padding-bottom:4px}
table{border-collapse:collapse;font-size:13px;margin:8px 0}td,th{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f4f4f4}td.n{text-align:right;font-variant-numeric:tabular-nums}tr.held td:first-child::after{content:" *"}
.meta{color:#555;font-size:13px}.note{color:#666;font-size:13px}pre{background:#f7f7f7;border:1px solid #ddd;padding:10px;overflow:auto;font-size:12px}
svg.chart{display:block;margin:12px 0;max-width:100%;height:auto}.good{color:#1a7f37}.bad{color:#b42318}
)";
}

std::string page(const std::string& title, const std::string& body) {
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\">"
      "<meta name=\"generator\" content=\"kernelarc report\"><title>{}</title><style>{}</style></head><body>\n{}\n</body></html>\n",
      escape(title), css(), body);
}

std::string table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows, const std::string& id,
                  const std::vector<std::string>& row_classes = {}) {
  std::string out = fmt::format("<table id=\"{}\"><thead><tr>", escape(id));
  for (const auto& h : header) out += "<th>" + escape(h) + "</th>";
  out += "</tr></thead><tbody>";
  for (std::size_t r = 0; r < rows.size(); ++r) {
    out += r < row_classes.size() && !row_classes[r].empty() ? "<tr class=\"" + row_classes[r] + "\">" : "<tr>";
    for (const auto& cell : rows[r]) {
      // Numbers (and times, ratios) align right; a cell that starts with a digit or '-' followed by one counts.
      const bool numeric = !cell.empty() && (std::isdigit(static_cast<unsigned char>(cell[0])) || (cell.size() > 1 && cell[0] == '-' && std::isdigit(static_cast<unsigned char>(cell[1]))));
      out += (numeric ? "<td class=\"n\">" : "<td>") + escape(cell) + "</td>";
    }
    out += "</tr>";
  }
  return out + "</tbody></table>";
}

std::string more_rows_note(std::size_t total, const std::string& where) {
  return total > kTableRows ? fmt::format("<p class=\"note\">The newest {} of {} are shown; {} has them all.</p>", kTableRows, total, escape(where)) : "";
}

svg::Axis time_axis(const std::string& label) { return {label, true, [](double ns) { return common::format_time_ns(ns); }}; }

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

double wall_extent(const RunData& d) {
  double end = d.candidates.empty() ? 0 : d.candidates.back().seconds;
  if (!d.run.finished_at.empty()) end = std::max(end, seconds_between(d.run.started_at, d.run.finished_at));
  return end;
}

// The incumbent over the candidates judged (x: number) or over wall time (x: seconds).
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

std::string curves(const RunData& d) {
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
                    w.sol_ns && w.best_ns && *w.best_ns > 0 ? fmt::format("{:.1f}", 100 * *w.sol_ns / *w.best_ns) : "-", number_text(w.score)});
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

std::string strategies_section(const RunData& d) {
  struct Row {
    std::int64_t candidates = 0, correct = 0, promotions = 0;
    std::optional<double> best_effect;
  };
  std::map<std::string, Row> by;
  for (const auto& c : d.candidates) {
    if (c.decision == "first" || c.decision == "eval") continue;
    auto& r = by[c.strategy.empty() ? "-" : c.strategy];
    ++r.candidates, r.correct += c.passed, r.promotions += c.decision == "promoted";
  }
  for (const auto& c : d.conclusions) {
    auto& r = by[c.strategy.empty() ? "-" : c.strategy];
    if (c.outcome == "promoted" || c.outcome == "backup") r.best_effect = std::max(r.best_effect.value_or(-1e300), c.effect);
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& [name, r] : by)
    rows.push_back({name, std::to_string(r.candidates), std::to_string(r.correct), std::to_string(r.promotions),
                    r.best_effect ? common::effect_ratio(*r.best_effect) : "-"});
  if (rows.empty()) return "<p class=\"note\">No candidate beyond the start.</p>";
  return table({"strategy", "candidates", "correct", "promotions", "best effect (vs the incumbent then)"}, rows, "strategies");
}

std::string agents_section(const RunData& d) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& agent : agents_of(d)) {
    std::int64_t judged = 0, promoted = 0, correct = 0;
    double best = 0;
    std::set<std::string> strategies;
    for (const auto& c : d.candidates)
      if (c.agent == agent) {
        ++judged, promoted += c.decision == "promoted", correct += c.passed;
        if (c.passed && c.time_ns > 0 && (best == 0 || c.time_ns < best)) best = c.time_ns;
        if (!c.strategy.empty()) strategies.insert(c.strategy);
      }
    std::string names;
    for (const auto& s : strategies) names += (names.empty() ? "" : ", ") + s;
    rows.push_back({agent, names, std::to_string(judged), std::to_string(correct), std::to_string(promoted), time_text(best)});
  }
  if (rows.empty()) return "";
  return table({"agent", "strategies", "judged", "correct", "promoted", "its best"}, rows, "agents");
}

std::string board_section(const RunData& d) {
  if (d.conclusions.empty()) return "<p class=\"note\">The run left no conclusions.</p>";
  std::vector<std::vector<std::string>> rows;
  const std::size_t from = d.conclusions.size() > kTableRows ? d.conclusions.size() - kTableRows : 0;
  for (std::size_t i = d.conclusions.size(); i-- > from;) {
    const auto& c = d.conclusions[i];
    rows.push_back({std::to_string(c.id), c.strategy, c.change, c.outcome,
                    c.outcome == "promoted" || c.outcome == "backup" ? common::effect_ratio(c.effect) : "-", c.lesson});
  }
  return table({"id", "strategy", "change", "outcome", "effect", "lesson"}, rows, "board") +
         more_rows_note(d.conclusions.size(), fmt::format("kernelarc board --run {}", d.run.id));
}

std::string lineage_section(const RunData& d) {
  std::vector<std::vector<std::string>> rows;
  double previous = 0, start = 0;
  for (const auto& c : d.candidates) {
    if (c.decision != "first" && c.decision != "promoted") continue;
    if (start == 0) start = c.incumbent_ns;
    rows.push_back({std::to_string(c.number), std::to_string(c.id), c.agent, c.strategy, time_text(c.incumbent_ns),
                    previous > 0 ? common::speed_ratio(previous, c.incumbent_ns) : "-", common::speed_ratio(start, c.incumbent_ns),
                    common::format_duration_s(c.seconds)});
    previous = c.incumbent_ns;
  }
  if (rows.empty()) return "<p class=\"note\">No incumbent: the starting candidate failed.</p>";
  return table({"judged", "candidate", "agent", "strategy", "time", "vs the previous", "vs the start", "at"}, rows, "lineage");
}

std::string events_section(const RunData& d) {
  static const std::set<std::string> kinds = {"plateau", "agent_reassigned", "budget_extended", "run_resumed", "run_started", "run_finished", "start_measured_again"};
  std::vector<std::vector<std::string>> rows;
  std::size_t total = 0;
  for (const auto& e : d.events) total += kinds.count(e.kind);
  std::size_t skip = total > kTableRows ? total - kTableRows : 0;
  for (const auto& e : d.events) {
    if (!kinds.count(e.kind) || (skip > 0 && skip--)) continue;
    json p = parse_or_empty(e.payload_json);
    std::string detail;
    if (e.kind == "plateau") {
      detail = fmt::format("after {} candidates (window {}, gain below {}): strategies rotated", p.value("judged", json()).dump(), p.value("window", json()).dump(),
                           p.value("min_gain", json()).dump());
      if (p.contains("action") && p["action"].contains("restart_from")) detail += ", restart from candidate " + p["action"]["restart_from"].dump();
    } else if (e.kind == "agent_reassigned") {
      detail = fmt::format("{}: {} -> {} ({})", p.value("agent", ""), p.value("from", ""), p.value("to", ""), p.value("reason", ""));
    } else if (e.kind == "run_finished") {
      detail = p.value("stop_reason", "");
    } else if (e.kind == "run_started") {
      detail = "agents " + (p.contains("agents") ? p["agents"].dump() : std::string("-"));
    } else {
      p.erase("config"), p.erase("measured");
      detail = p.dump();
    }
    rows.push_back({common::format_duration_s(seconds_between(d.run.started_at, e.created_at)), e.kind, detail});
  }
  if (rows.empty()) return "<p class=\"note\">No plateau or other event.</p>";
  return table({"at", "event", "what"}, rows, "events") + (total > kTableRows ? fmt::format("<p class=\"note\">The last {} of {} events are shown.</p>", kTableRows, total) : "");
}

std::string usage_section(const RunData& d) {
  RunData::Usage total;
  std::vector<std::vector<std::string>> rows;
  for (const auto& [agent, u] : d.usage) {
    total.requests += u.requests, total.failures += u.failures, total.tokens_in += u.tokens_in, total.tokens_out += u.tokens_out, total.cost_usd += u.cost_usd;
    rows.push_back({agent, std::to_string(u.requests), std::to_string(u.failures), std::to_string(u.tokens_in), std::to_string(u.tokens_out),
                    fmt::format("{:.4f}", u.cost_usd)});
  }
  if (total.requests == 0) return "<p class=\"note\">No language model was used.</p>";
  rows.push_back({"all", std::to_string(total.requests), std::to_string(total.failures), std::to_string(total.tokens_in), std::to_string(total.tokens_out),
                  fmt::format("{:.4f}", total.cost_usd)});
  return table({"agent", "requests", "failed", "tokens in", "tokens out", "cost (USD)"}, rows, "usage");
}

std::string source_section(const RunData& d) {
  if (!d.best) return "<p class=\"note\">No correct kernel.</p>";
  const json knobs = parse_or_empty(d.best->knobs_json);
  std::vector<std::vector<std::string>> rows;
  if (knobs.is_object())
    for (const auto& [name, value] : knobs.items())
      if (name != "__source__") rows.push_back({name, value.is_string() ? value.get<std::string>() : value.dump()});
  std::string out = fmt::format("<p class=\"meta\">Candidate {} ({}), by {}: {}</p>", d.best->id, escape(d.best->name), escape(d.best->proposer),
                                escape(d.best->hypothesis));
  if (!rows.empty()) out += table({"knob", "value"}, rows, "knobs");
  return out + "<pre id=\"source\"><code>" + escape(d.best->source) + "</code></pre>";
}

std::string header(const RunData& d) {
  const json summary = parse_or_empty(d.run.summary_json);
  const json config = parse_or_empty(d.run.config_json);
  std::string out = fmt::format("<h1>Run {}: {}</h1><p class=\"meta\">{} on {}, {}; started {}{}</p>", d.run.id, escape(d.task), escape(d.run.kind),
                                escape(d.run.device), escape(d.run.status), escape(d.run.started_at),
                                d.run.finished_at.empty() ? " (still running or stopped)" : ", finished " + escape(d.run.finished_at));
  double start = 0, best = 0;
  for (const auto& c : d.candidates)
    if ((c.decision == "first" || c.decision == "promoted") && c.incumbent_ns > 0) (start == 0 ? start : best) = c.incumbent_ns, best = c.incumbent_ns;
  if (summary.is_object() && summary.value("start_again_ns", json()).is_number()) start = std::min(start, summary["start_again_ns"].get<double>());
  std::vector<std::vector<std::string>> rows = {
      {"candidates judged", fmt::format("{}{}", d.candidates.size(), config.contains("budget") ? " of a budget of " + config["budget"].dump() : "")},
      {"start", time_text(start)},
      {"best", best > 0 ? fmt::format("{} ({} than the start){}", common::format_time_ns(best), common::speed_ratio(start, best),
                                      d.best ? fmt::format(", candidate {}", d.best->id) : "")
                        : "-"},
      {"promotions", std::to_string(std::count_if(d.candidates.begin(), d.candidates.end(), [](const CandidatePoint& c) { return c.decision == "promoted"; }))},
      {"template, brain", fmt::format("{}, {}", config.value("template", "-"), config.value("brain", "-"))},
      {"stopped because", summary.is_object() ? summary.value("stop_reason", "-") : "-"},
      {"wall time", common::format_duration_s(wall_extent(d))}};
  return out + table({"", ""}, rows, "summary");
}

// The first measurement of each workload of one candidate.
std::map<std::string, const store::VerdictRow*> first_of_each(const std::vector<store::VerdictRow>& rows) {
  std::map<std::string, const store::VerdictRow*> out;
  for (const auto& v : rows) out.emplace(v.workload_uuid, &v);
  return out;
}

}  // namespace

double seconds_between(const std::string& from, const std::string& to) {
  auto parse = [](const std::string& text) -> std::optional<double> {
    std::tm t{};
    int millis = 0;
    if (std::sscanf(text.c_str(), "%d-%d-%dT%d:%d:%d.%dZ", &t.tm_year, &t.tm_mon, &t.tm_mday, &t.tm_hour, &t.tm_min, &t.tm_sec, &millis) < 6)
      return std::nullopt;
    t.tm_year -= 1900, t.tm_mon -= 1;
    return static_cast<double>(timegm(&t)) + millis / 1000.0;
  };
  const auto a = parse(from), b = parse(to);
  return a && b ? std::max(0.0, *b - *a) : 0;
}

RunData load_run(const store::RunReader& reader, std::int64_t run_id) {
  RunData d;
  auto run = reader.run(run_id);
  if (!run) throw ReportError(fmt::format("there is no run {} in the store (kernelarc runs lists them)", run_id));
  d.run = *run;
  const auto task = reader.task(run->task_id);
  d.task = task ? task->name : "?";
  const auto candidates = reader.candidates(run_id);
  const auto verdicts = reader.verdicts_of_run(run_id);
  std::map<std::int64_t, std::vector<const store::VerdictRow*>> by_candidate;
  for (const auto& v : verdicts) by_candidate[v.candidate_id].push_back(&v);
  std::map<std::int64_t, json> judged;
  std::map<std::string, RunData::Usage> usage;
  for (auto& e : reader.events(run_id)) {
    if (e.kind == "judged") {
      json p = parse_or_empty(e.payload_json);
      if (p.contains("usage") && p["usage"].is_object()) {
        auto& u = usage[p.value("agent", "?")];
        const auto& j = p["usage"];
        u.requests += j.value("requests", std::int64_t{0}), u.failures += j.value("failures", std::int64_t{0});
        u.tokens_in += j.value("tokens_in", std::int64_t{0}), u.tokens_out += j.value("tokens_out", std::int64_t{0}), u.cost_usd += j.value("cost_usd", 0.0);
      }
      if (p.contains("candidate") && p["candidate"].is_number_integer()) {
        const auto id = p["candidate"].get<std::int64_t>();  // before the move: the right side of = is evaluated first
        judged[id] = std::move(p);
      }
    } else {
      if (e.kind == "proposal_failed" || e.kind == "proposals_discarded") {
        const json p = parse_or_empty(e.payload_json);
        if (p.contains("usage") && p["usage"].is_object()) {
          auto& u = usage[p.value("agent", "?")];
          const auto& j = p["usage"];
          u.requests += j.value("requests", std::int64_t{0}), u.failures += j.value("failures", std::int64_t{0});
          u.tokens_in += j.value("tokens_in", std::int64_t{0}), u.tokens_out += j.value("tokens_out", std::int64_t{0}), u.cost_usd += j.value("cost_usd", 0.0);
        }
      }
      d.events.push_back(std::move(e));
    }
  }
  for (auto& [agent, u] : usage) d.usage.emplace_back(agent, u);
  std::int64_t number = 0;
  for (const auto& c : candidates) {
    CandidatePoint point;
    point.id = c.id;
    point.number = ++number;
    point.agent = c.proposer;
    point.seconds = seconds_between(d.run.started_at, c.created_at);
    const auto& rows = by_candidate[c.id];
    // One measurement per workload: the first of each (a promotion's second measurement follows it).
    std::vector<const store::VerdictRow*> first;
    std::set<std::string> seen;
    double score_sum = 0;
    int scores = 0;
    for (const auto* v : rows)
      if (seen.insert(v->workload_uuid).second) {
        first.push_back(v);
        if (!v->held_out && v->score) score_sum += *v->score, ++scores;
      }
    point.time_ns = geometric_mean(first);
    point.passed = point.time_ns > 0;
    if (scores > 0 && point.passed) point.score = score_sum / scores;
    if (const auto found = judged.find(c.id); found != judged.end()) {
      const json& p = found->second;
      point.number = p.value("number", point.number);
      point.agent = p.value("agent", point.agent);
      point.strategy = p.value("strategy", "");
      point.decision = p.value("decision", "");
      if (p.contains("measured") && p["measured"].is_object()) {
        point.passed = p["measured"].value("passed", point.passed);
        if (p["measured"].value("time_ns", 0.0) > 0) point.time_ns = p["measured"]["time_ns"].get<double>();
      }
      if (!point.passed) point.time_ns = 0;
      point.incumbent_ns = point.time_ns;
      if (p.contains("measured_again") && p["measured_again"].value("time_ns", 0.0) > 0) point.incumbent_ns = p["measured_again"]["time_ns"].get<double>();
    } else {
      point.decision = d.run.kind == "eval" ? "eval" : (number == 1 ? "first" : "");
      point.incumbent_ns = point.time_ns;
    }
    d.candidates.push_back(std::move(point));
  }
  std::sort(d.candidates.begin(), d.candidates.end(), [](const CandidatePoint& a, const CandidatePoint& b) { return a.number < b.number; });
  d.conclusions = reader.conclusions_of_run(run_id);

  // The best: the summary's, else the last promoted, else a passing start (an evaluation's one candidate).
  const json summary = parse_or_empty(d.run.summary_json);
  std::optional<std::int64_t> best_id;
  const bool summary_names_best = summary.is_object() && summary.value("best_candidate", json()).is_number_integer();
  if (summary_names_best) best_id = summary["best_candidate"].get<std::int64_t>();
  for (const auto& c : d.candidates) {
    if (c.decision == "first" || (d.run.kind == "eval" && !d.start_id)) d.start_id = c.id;
    if (!summary_names_best && c.passed && (c.decision == "first" || c.decision == "promoted" || c.decision == "eval")) best_id = c.id;
  }
  if (best_id) d.best = reader.candidate(*best_id);
  if (d.best && d.best->run_id != run_id) d.best.reset();

  // Per workload: the start and the best side by side, with what the best's verdicts recorded of the roofline.
  std::map<std::string, const store::VerdictRow*> start_rows;
  std::vector<store::VerdictRow> start_verdicts, best_verdicts;
  if (d.start_id) start_verdicts = reader.verdicts_of_candidate(*d.start_id), start_rows = first_of_each(start_verdicts);
  if (d.best) best_verdicts = reader.verdicts_of_candidate(d.best->id);
  const auto& shown = d.best ? best_verdicts : start_verdicts;
  std::set<std::string> seen;
  std::map<std::string, double> compute;
  for (const auto& v : shown) {
    if (!seen.insert(v.workload_uuid).second) continue;
    WorkloadRow w;
    w.uuid = v.workload_uuid;
    w.held_out = v.held_out;
    if (d.best) w.best_ns = v.median_ns, w.best_status = v.status;
    if (const auto s = start_rows.find(v.workload_uuid); s != start_rows.end()) w.start_ns = s->second->median_ns;
    w.baseline_ns = v.baseline_ns, w.sol_ns = v.sol_ns, w.score = v.score;
    const json details = parse_or_empty(v.details_json);
    if (details.contains("roofline") && details["roofline"].is_object()) {
      const auto& r = details["roofline"];
      w.flops = r.value("flops", 0.0), w.bytes = r.value("bytes", 0.0), w.bound = r.value("bound", "");
      const double sol_s = r.value("sol_ns", 0.0) * 1e-9;
      if (sol_s > 0 && w.bound == "memory" && w.bytes > 0) d.memory_roof = std::max(d.memory_roof, w.bytes / sol_s);
      if (sol_s > 0 && w.bound != "memory" && w.flops > 0) compute[w.bound.empty() ? "compute" : w.bound] = std::max(compute[w.bound.empty() ? "compute" : w.bound], w.flops / sol_s);
    }
    d.workloads.push_back(std::move(w));
  }
  for (const auto& [name, rate] : compute) d.compute_roofs.emplace_back(name, rate);
  std::stable_sort(d.workloads.begin(), d.workloads.end(), [](const WorkloadRow& a, const WorkloadRow& b) { return a.held_out < b.held_out; });
  return d;
}

std::string run_report_html(const RunData& d) {
  std::string body = header(d);
  body += "<h2>Progress</h2>" + curves(d);
  body += "<h2>Workloads</h2>" + workload_section(d);
  body += "<h2>Roofline</h2>" + roofline_section(d);
  body += "<h2>Agents</h2>" + agents_section(d);
  body += "<h2>Strategies</h2>" + strategies_section(d);
  body += "<h2>Incumbent lineage</h2>" + lineage_section(d);
  body += "<h2>Plateaus and other events</h2>" + events_section(d);
  body += "<h2>Board conclusions</h2>" + board_section(d);
  body += "<h2>Model tokens and cost</h2>" + usage_section(d);
  body += "<h2>Best kernel</h2>" + source_section(d);
  body += fmt::format("<p class=\"note\">Made by <code>kernelarc report {}</code> from the run store; times are medians of the judge's timed calls.</p>", d.run.id);
  return page(fmt::format("KernelArc run {}: {}", d.run.id, d.task), body);
}

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
  return page(fmt::format("KernelArc runs {} compared: {}", ids, runs.front().task), body);
}

}  // namespace kernelarc::report
