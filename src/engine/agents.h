// The agents' bookkeeping: who they are, the strategy each holds, and each one's record in the run (what it had
// judged, its best, its failed proposals, its spend), kept for the live display, the summary and resume.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/brain.h"
#include "engine/controller.h"
#include "task/task.h"

namespace kernelarc::engine {

// Proposals in a row that came to nothing before an agent retires.
inline constexpr int kFailuresBeforeRetiring = 3;

struct Agent {
  std::string name;       // "agent-1"
  std::string strategy;
};

// One agent's record in this run, for the live display and the summary.
struct AgentStatus {
  std::string name;
  std::string strategy;      // its strategy now (a plateau deals them again)
  int judged = 0, promoted = 0, backups = 0, rejected = 0;
  std::string last;          // its last verdict: "promoted", "backup", "rejected: INCORRECT_NUMERICAL", ...
  double best_ns = 0;        // its fastest correct candidate; 0: none yet
  std::int64_t best_candidate = 0;  // that candidate's id in the store
  int failed_proposals = 0;  // proposals that came to nothing (a model that gave no usable answer, a duplicate)
  bool retired = false;      // too many in a row: it proposes no more
  ModelUsage usage;          // its language model's spend
  int screened = 0;          // its proposals screened (ranked by a light measurement; the fastest are judged, and counted above)
};

// Counts a judged candidate in the record of agent `agent` (no record has the name "start"); `store_id_of` maps the
// run's candidate numbers to the store's ids.
void count_judged(std::vector<AgentStatus>& records, const std::string& agent, Decision decision, const std::string& outcome,
                  const Measured& measured, const std::vector<std::int64_t>& store_id_of);

// Counts a proposal that came to nothing; `in_a_row` counts those since the agent's last usable one, and enough of them
// retire it.
void count_no_proposal(AgentStatus& status, int& in_a_row, const ModelUsage& usage);

// The template's strategies that own knobs, in task::strategy_names() order.
std::vector<std::string> strategies_with_knobs(const task::Template& tmpl);

// The strategies agent `index` may take instead of its own when it has nothing left to try: those that own knobs, the
// ones no agent holds first.
std::vector<std::string> other_strategies(const task::Template& tmpl, const std::vector<Agent>& agents, std::size_t index);

}  // namespace kernelarc::engine
