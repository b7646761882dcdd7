#include "report/run_tables.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "common/units.h"
#include "report/html_page.h"
#include "report/parse_or_empty.h"
#include "report/progress_charts.h"

namespace kernelarc::report {

using nlohmann::json;
using svg::escape;
using html::color, html::table, html::time_text, html::time_axis;
using html::kTableRows;

namespace {

// The best against the start: timed side by side at the end when the run did, else the two times the run recorded.
std::string speed_up_text(const json& summary, double start_ns, double best_ns) {
  if (summary.is_object() && summary.value("paired_speedup", json()).is_object()) {
    const auto& paired = summary["paired_speedup"];
    const double ratio = paired.value("ratio", 0.0);
    if (ratio > 0) return fmt::format("{} than the start, timed side by side: {}", common::speed_ratio(1.0, ratio), paired.value("reason", std::string()));
  }
  return common::speed_ratio(start_ns, best_ns) + " than the start";
}

}  // namespace

std::string summary_section(const RunData& d) {
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
      {"candidates judged", fmt::format("{}{}{}", d.candidates.size(), config.contains("budget") ? " of a budget of " + config["budget"].dump() : "",
                                        d.screened > 0 ? fmt::format(", {} screened", d.screened) : "")},
      {"start", time_text(start)},
      {"best", best > 0 ? fmt::format("{} ({}){}", common::format_time_ns(best), speed_up_text(summary, start, best),
                                      d.best ? fmt::format(", candidate {}", d.best->id) : "")
                        : "-"},
      {"promotions", std::to_string(std::count_if(d.candidates.begin(), d.candidates.end(), [](const CandidatePoint& c) { return c.decision == "promoted"; }))},
      {"template, brain", fmt::format("{}, {}", config.value("template", "-"), config.value("brain", "-"))},
      {"stopped because", summary.is_object() ? summary.value("stop_reason", "-") : "-"},
      {"wall time", common::format_duration_s(wall_extent(d))}};
  return out + table({"", ""}, rows, "summary");
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

namespace {

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};

// What the events table says of a journal event; empty for the kinds it does not show (candidates, promotions, the
// sandbox, proposals: the other sections show them).
std::string event_text(const engine::journal::Event& event) {
  namespace journal = engine::journal;
  return std::visit(
      Overloaded{
          [](const journal::Plateau& e) {
            std::string text = fmt::format("after {} candidates (window {}, gain below {}): strategies rotated", e.judged, e.window, e.min_gain);
            if (e.restart_from) text += fmt::format(", restart from candidate {}", *e.restart_from);
            return text;
          },
          [](const journal::AgentReassigned& e) { return fmt::format("{}: {} -> {} ({})", e.agent, e.from, e.to, e.reason); },
          [](const journal::RunFinished& e) { return e.result.is_object() ? e.result.value("stop_reason", std::string("-")) : std::string("-"); },
          [](const journal::RunStarted& e) {
            std::string agents;
            for (const auto& seat : e.agents) agents += (agents.empty() ? "" : ", ") + seat.agent + " (" + seat.strategy + ")";
            return "agents " + (agents.empty() ? std::string("-") : agents);
          },
          [](const journal::BudgetExtended& e) { return fmt::format("budget {} -> {} candidates", e.from, e.to); },
          [](const journal::RunResumed& e) { return fmt::format("after {} candidates judged and {} promotions", e.judged, e.promotions); },
          [](const journal::StartMeasuredAgain& e) {
            return fmt::format("candidate {} measured again beside the best: {} (first {})", e.candidate, time_text(e.measured.time_ns),
                               time_text(e.first_ns));
          },
          [](const journal::StartPaired& e) {
            return fmt::format("candidates {} (the start) and {} (the best) timed interleaved: {}", e.start, e.best,
                               e.paired.failure ? *e.paired.failure : e.paired.result.reason);
          },
          [](const auto&) { return std::string(); }},
      event);
}

}  // namespace

std::string events_section(const RunData& d) {
  std::vector<std::pair<const engine::journal::Entry*, std::string>> shown;
  for (const auto& e : d.events)
    if (auto text = event_text(e.event); !text.empty()) shown.emplace_back(&e, std::move(text));
  const std::size_t total = shown.size(), from = total > kTableRows ? total - kTableRows : 0;
  std::vector<std::vector<std::string>> rows;
  for (std::size_t i = from; i < total; ++i)
    rows.push_back({common::format_duration_s(seconds_between(d.run.started_at, shown[i].first->created_at)), engine::journal::kind_of(shown[i].first->event),
                    shown[i].second});
  if (rows.empty()) return "<p class=\"note\">No plateau or other event.</p>";
  return table({"at", "event", "what"}, rows, "events") + (total > kTableRows ? fmt::format("<p class=\"note\">The last {} of {} events are shown.</p>", kTableRows, total) : "");
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
         html::more_rows_note(d.conclusions.size(), fmt::format("kernelarc board --run {}", d.run.id));
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

}  // namespace kernelarc::report
