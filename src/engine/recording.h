// A judged candidate written to the store: the candidate row and one verdict row per workload, every timing
// sample included. Used by `kernelarc eval` and by runs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "judge/judge.h"
#include "store/store.h"

namespace kernelarc::engine {

struct CandidateOrigin {
  std::optional<std::int64_t> parent_id;
  std::string proposer;     // "user", "start", "agent-2", ...
  std::string hypothesis;
};

// Writes the candidate and its verdicts (no transaction of its own: the caller groups writes).
std::int64_t record_candidate(store::Store& store, std::int64_t run_id, const judge::CandidateSource& source,
                              const judge::CandidateVerdict& verdict, const CandidateOrigin& origin);

// Writes another measurement of an already recorded candidate (its verdict rows again, marked as such).
void record_measurement(store::Store& store, std::int64_t candidate_id, const judge::CandidateVerdict& verdict, const std::string& note);

// One workload's verdict as JSON: what `kernelarc eval --json` prints and the store keeps as details.
nlohmann::json workload_json(const judge::WorkloadVerdict& row);

}  // namespace kernelarc::engine
