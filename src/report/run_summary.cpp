#include "report/run_summary.h"

#include <fmt/format.h>

#include "common/units.h"
#include "report/live_display.h"

namespace kernelarc::report {

using nlohmann::json;

std::string summary_table(const std::string& title, const engine::RunSummary& s) {
  const std::string screened = s.screened > 0 ? fmt::format(" ({} screened)", s.screened) : "";
  std::string out = fmt::format("{}: {} candidates judged{} in {}, {} promotions, {} plateaus; {}\n\n", title, s.judged, screened,
                                format_duration(s.elapsed_s), s.promotions, s.plateaus, s.stop_reason);
  out += fmt::format("  {:<9} {:<12} {:>6} {:>9} {:>8} {:>9} {:>10} {:>9}\n", "agent", "strategy", "judged", "promoted", "backups", "rejected", "best",
                     "candidate");
  for (const auto& a : s.agent_status)
    out += fmt::format("  {:<9} {:<12} {:>6} {:>9} {:>8} {:>9} {:>10} {:>9}\n", a.name, a.strategy, a.judged, a.promoted, a.backups, a.rejected,
                       common::format_time_ns(a.best_ns), a.best_candidate > 0 ? std::to_string(a.best_candidate) : "-");
  if (const auto total = s.usage(); !total.empty()) {
    out += fmt::format("\n  {:<9} {:>8} {:>8} {:>10} {:>10} {:>9} {:>8}\n", "agent", "requests", "failures", "tokens in", "tokens out", "cost ($)",
                       "no-shows");
    for (const auto& a : s.agent_status)
      out += fmt::format("  {:<9} {:>8} {:>8} {:>10} {:>10} {:>9.4f} {:>8}{}\n", a.name, a.usage.requests, a.usage.failures, a.usage.tokens_in,
                         a.usage.tokens_out, a.usage.cost_usd, a.failed_proposals, a.retired ? "  (gave up)" : "");
    out += fmt::format("  {:<9} {:>8} {:>8} {:>10} {:>10} {:>9.4f}\n", "all", total.requests, total.failures, total.tokens_in, total.tokens_out,
                       total.cost_usd);
  }
  out += "\n";
  if (s.best) {
    // The start measured again at the end is the reference: both times then come from the same state of the machine.
    const std::string start_again = s.start_again && s.start_again->passed
                                        ? fmt::format(", {} measured again at the end (the faster is the reference)",
                                                      common::format_time_ns(s.start_again->time_ns))
                                        : "";
    out += fmt::format("  start: candidate {}, {}{}\n", s.start_candidate, common::format_time_ns(s.start.time_ns), start_again);
    if (s.best_candidate == s.start_candidate)
      out += fmt::format("  best:  candidate {}, {}, the start (nothing faster beyond the noise was found)", s.best_candidate,
                         common::format_time_ns(s.best->time_ns));
    else
      out += s.start_vs_best && s.start_vs_best->pairs > 0
                 ? fmt::format("  best:  candidate {}, {}, {} than the start, timed side by side ({})", s.best_candidate,
                               common::format_time_ns(s.best->time_ns), common::speed_ratio(1.0, s.start_vs_best->ratio), s.start_vs_best->reason)
                 : fmt::format("  best:  candidate {}, {}, {} than the start", s.best_candidate, common::format_time_ns(s.best->time_ns),
                               common::speed_ratio(s.start_ns(), s.best->time_ns));
    if (s.best->sol_fraction > 0) out += fmt::format(", {:.1f}% of the roofline", 100 * s.best->sol_fraction);
    if (s.best->sol_score) out += fmt::format(", SOL score {:.3f}", *s.best->sol_score);
    out += fmt::format("\n  best knobs {}\n", json(s.best_knobs).dump());
  } else {
    out += "  no correct candidate\n";
  }
  out += fmt::format("  board: {} entries at the end\n", s.board_size);
  if (s.measurement_warnings > 0)
    out += fmt::format("  warning: {} candidate{} timed while the machine's load or the GPU's clock moved (the log and the store say which)\n",
                       s.measurement_warnings, s.measurement_warnings == 1 ? " was" : "s were");
  if (s.sandbox.is_object()) {
    std::string walls;
    for (const auto& wall : s.sandbox.value("active", json::array())) walls += (walls.empty() ? "" : "; ") + wall.get<std::string>();
    out += fmt::format("  sandbox: {}\n", walls.empty() ? "none raised" : walls);
    for (const auto& missing : s.sandbox.value("unavailable", json::array())) out += fmt::format("  sandbox, not available here: {}\n", missing.get<std::string>());
  }
  return out;
}

json summary_json(const engine::RunSummary& s) {
  json agents = json::array();
  for (const auto& a : s.agent_status)
    agents.push_back({{"name", a.name}, {"strategy", a.strategy}, {"judged", a.judged}, {"promoted", a.promoted}, {"backups", a.backups},
                      {"rejected", a.rejected}, {"screened", a.screened}, {"last", a.last}, {"best_ns", a.best_ns > 0 ? json(a.best_ns) : json()},
                      {"best_candidate", a.best_candidate > 0 ? json(a.best_candidate) : json()},
                      {"failed_proposals", a.failed_proposals}, {"retired", a.retired}, {"usage", engine::usage_json(a.usage)}});
  return {{"run_id", s.run_id},
          {"stop_reason", s.stop_reason},
          {"judged", s.judged},
          {"screened", s.screened},
          {"promotions", s.promotions},
          {"plateaus", s.plateaus},
          {"elapsed_s", s.elapsed_s},
          {"board_size", s.board_size},
          {"measurement_warnings", s.measurement_warnings},
          {"start_ns", s.start.time_ns},
          {"start_again_ns", s.start_again && s.start_again->passed ? json(s.start_again->time_ns) : json()},
          {"start_candidate", s.start_candidate},
          {"best_ns", s.best ? json(s.best->time_ns) : json()},
          {"best_candidate", s.best_candidate > 0 ? json(s.best_candidate) : json()},
          {"speedup", s.speed_up() ? json(*s.speed_up()) : json()},
          {"paired_speedup", engine::paired_speedup_json(s)},
          {"sol_fraction", s.best ? json(s.best->sol_fraction) : json()},
          {"sol_score", s.best && s.best->sol_score ? json(*s.best->sol_score) : json()},
          {"best_knobs", s.best_knobs},
          {"usage", engine::usage_json(s.usage())},
          {"sandbox", s.sandbox},
          {"agents", agents}};
}

}  // namespace kernelarc::report
