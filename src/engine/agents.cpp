#include "engine/agents.h"

#include <algorithm>

namespace kernelarc::engine {

void count_judged(std::vector<AgentStatus>& records, const std::string& agent, Decision decision, const std::string& outcome,
                  const Measured& measured, const std::vector<std::int64_t>& store_id_of) {
  for (auto& status : records) {
    if (status.name != agent) continue;
    ++status.judged;
    status.promoted += decision == Decision::promoted;
    status.backups += decision == Decision::backup;
    status.rejected += decision == Decision::rejected;
    status.last = outcome;
    if (measured.passed && (status.best_ns == 0 || measured.time_ns < status.best_ns)) {
      status.best_ns = measured.time_ns;
      status.best_candidate = store_id_of[static_cast<std::size_t>(measured.candidate_id)];
    }
  }
}

void count_no_proposal(AgentStatus& status, int& in_a_row, const ModelUsage& usage) {
  status.usage += usage;
  ++status.failed_proposals;
  status.last = "no proposal";
  status.retired = ++in_a_row >= kFailuresBeforeRetiring;
}

std::vector<std::string> strategies_with_knobs(const task::Template& tmpl) {
  std::vector<std::string> owning;
  for (const auto& name : task::strategy_names())
    if (std::any_of(tmpl.knobs.begin(), tmpl.knobs.end(), [&](const task::Knob& k) { return k.strategy == name; })) owning.push_back(name);
  return owning;
}

std::vector<std::string> other_strategies(const task::Template& tmpl, const std::vector<Agent>& agents, std::size_t index) {
  const auto owning = strategies_with_knobs(tmpl);
  std::vector<std::string> others;
  for (int held = 0; held < 2; ++held)
    for (const auto& name : owning) {
      const bool is_held = std::any_of(agents.begin(), agents.end(), [&](const Agent& a) { return a.strategy == name; });
      if (is_held == (held == 1) && name != agents[index].strategy) others.push_back(name);
    }
  return others;
}

}  // namespace kernelarc::engine
