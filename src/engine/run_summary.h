// What a run comes to, so far or at its end: the counts, the start and the best, each agent's record; and the result
// the run's row keeps when it finishes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/agents.h"
#include "engine/brain.h"
#include "engine/controller.h"
#include "engine/paired_comparison.h"

namespace kernelarc::engine {

struct RunSummary {
  std::int64_t run_id = 0;
  std::string stop_reason;
  int judged = 0;
  int screened = 0;                  // candidates screened (ranked by a light measurement, not judged), the incumbent's own included
  int promotions = 0;
  int plateaus = 0;
  Measured start;                    // the starting candidate
  std::optional<Measured> start_again;  // the starting candidate judged again at the end (same machine state as the best)
  std::optional<PairedResult> start_vs_best;  // the start (incumbent) and the best (challenger) timed interleaved at the end
  std::optional<Measured> best;      // the incumbent at the end
  std::int64_t start_candidate = 0;  // the store's candidate ids: the numbering the log, the display, runs and export share
  std::int64_t best_candidate = 0;
  Knobs best_knobs;
  std::vector<Agent> agents;
  std::vector<AgentStatus> agent_status;   // by agent, in agent order
  std::size_t board_size = 0;
  int measurement_warnings = 0;            // candidates timed while the machine's load or the GPU's clock moved
  double elapsed_s = 0;                    // this process's share of the run (since execute or resume)
  ModelUsage usage() const;                // every agent's spend together
  // The start's time the speed-up is reported against: the faster of its two measurements when it was judged again at the
  // end (load only ever adds time, so a speed-up is never claimed that one of them does not support), else the first.
  double start_ns() const {
    return start_again && start_again->passed && start_again->time_ns < start.time_ns ? start_again->time_ns : start.time_ns;
  }
 // The best's speed-up over the start: from their paired measurement at the end when there was one, else start_ns()
  // over the best's time; none without a best.
  std::optional<double> speed_up() const {
    if (!best || best->time_ns <= 0) return std::nullopt;
    if (start_vs_best && start_vs_best->pairs > 0 && start_vs_best->ratio > 0) return 1 / start_vs_best->ratio;
    return start_ns() / best->time_ns;
  }
  nlohmann::json sandbox;                  // the walls the candidates ran behind ({"active": [...], "unavailable": [...]}); null: none
};

// The start and the best timed side by side, as the summaries say it (null without it).
nlohmann::json paired_speedup_json(const RunSummary& summary);
// The result a finished run's row keeps (and its run_finished event), out of the final summary.
nlohmann::json run_result(const RunSummary& summary, int budget);

}  // namespace kernelarc::engine
