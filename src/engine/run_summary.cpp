#include "engine/run_summary.h"

namespace kernelarc::engine {

using nlohmann::json;

ModelUsage RunSummary::usage() const {
  ModelUsage total;
  for (const auto& agent : agent_status) total += agent.usage;
  return total;
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
          {"paired_speedup", summary.start_vs_best ? json({{"ratio", summary.start_vs_best->ratio}, {"upper_bound", summary.start_vs_best->upper_bound},
                                                            {"pairs", summary.start_vs_best->pairs}, {"reason", summary.start_vs_best->reason}})
                                                   : json()}, {"usage", usage_json(summary.usage())}};
}

}  // namespace kernelarc::engine
