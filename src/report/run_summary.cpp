#include "report/run_summary.h"

#include <fmt/format.h>

#include "report/live_display.h"

namespace kernelarc::report {

using nlohmann::json;

std::string summary_table(const std::string& title, const engine::RunSummary& s) {
  std::string out = fmt::format("{}: {} candidates judged in {}, {} promotions, {} plateaus; {}\n\n", title, s.judged, format_duration(s.elapsed_s),
                                s.promotions, s.plateaus, s.stop_reason);
  out += fmt::format("  {:<9} {:<12} {:>6} {:>9} {:>8} {:>9} {:>14}\n", "agent", "strategy", "judged", "promoted", "backups", "rejected", "best (us)");
  for (const auto& a : s.agent_status)
    out += fmt::format("  {:<9} {:<12} {:>6} {:>9} {:>8} {:>9} {:>14}\n", a.name, a.strategy, a.judged, a.promoted, a.backups, a.rejected,
                       a.best_ns > 0 ? fmt::format("{:.2f}", a.best_ns / 1e3) : "-");
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
    out += fmt::format("  start {:.2f} us -> best {:.2f} us ({:.2f}x)", s.start.time_ns / 1e3, s.best->time_ns / 1e3,
                       s.best->time_ns > 0 ? s.start.time_ns / s.best->time_ns : 0.0);
    if (s.best->sol_fraction > 0) out += fmt::format(", {:.1f}% of the roofline", 100 * s.best->sol_fraction);
    if (s.best->sol_score) out += fmt::format(", SOL score {:.3f}", *s.best->sol_score);
    out += fmt::format("\n  best knobs {}\n", json(s.best_knobs).dump());
  } else {
    out += "  no correct candidate\n";
  }
  out += fmt::format("  board: {} entries at the end\n", s.board_size);
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
                      {"rejected", a.rejected}, {"last", a.last}, {"best_ns", a.best_ns > 0 ? json(a.best_ns) : json()},
                      {"failed_proposals", a.failed_proposals}, {"retired", a.retired}, {"usage", engine::usage_json(a.usage)}});
  return {{"run_id", s.run_id},
          {"stop_reason", s.stop_reason},
          {"judged", s.judged},
          {"promotions", s.promotions},
          {"plateaus", s.plateaus},
          {"elapsed_s", s.elapsed_s},
          {"board_size", s.board_size},
          {"start_ns", s.start.time_ns},
          {"best_ns", s.best ? json(s.best->time_ns) : json()},
          {"speedup", s.best && s.best->time_ns > 0 ? json(s.start.time_ns / s.best->time_ns) : json()},
          {"sol_fraction", s.best ? json(s.best->sol_fraction) : json()},
          {"sol_score", s.best && s.best->sol_score ? json(*s.best->sol_score) : json()},
          {"best_knobs", s.best_knobs},
          {"usage", engine::usage_json(s.usage())},
          {"sandbox", s.sandbox},
          {"agents", agents}};
}

}  // namespace kernelarc::report
