#include "engine/run_summary.h"

namespace kernelarc::engine {

using nlohmann::json;

ModelUsage RunSummary::usage() const {
  ModelUsage total;
  for (const auto& agent : agent_status) total += agent.usage;
  return total;
}

json paired_speedup_json(const RunSummary& summary) {
  if (!summary.start_vs_best) return json();
  const auto& p = *summary.start_vs_best;
  return {{"ratio", p.ratio}, {"upper_bound", p.upper_bound}, {"pairs", p.pairs}, {"reason", p.reason}};
}

json run_result(const RunSummary& summary, int budget) {
  return {{"stop_reason", summary.stop_reason}, {"judged", summary.judged}, {"screened", summary.screened}, {"budget", budget}, {"promotions", summary.promotions},
          {"plateaus", summary.plateaus}, {"start_ns", summary.start.time_ns},
          {"start_again_ns", summary.start_again && summary.start_again->passed ? json(summary.start_again->time_ns) : json()},
          {"start_candidate", summary.start_candidate},
          {"best_ns", summary.best ? json(summary.best->time_ns) : json()},
          {"best_candidate", summary.best ? json(summary.best_candidate) : json()},
          {"best_knobs", summary.best_knobs},
          {"speedup", summary.speed_up() ? json(*summary.speed_up()) : json()},
          {"paired_speedup", paired_speedup_json(summary)}, {"usage", usage_json(summary.usage())}};
}

}  // namespace kernelarc::engine
