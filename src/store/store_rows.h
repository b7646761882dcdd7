// The run store's rows as records: each table's column list and the one mapping of a selected row to its record, shared
// by Store's reads and RunReader's bulk reads so that a column is read the same way everywhere.
#pragma once

#include <string_view>

#include "store/sqlite_statement.h"
#include "store/store.h"

namespace kernelarc::store::rows {

constexpr std::string_view kRunColumns = "id, task_id, kind, device, seed, config_json, status, summary_json, started_at, finished_at";
constexpr std::string_view kTaskColumns = "id, name, path, definition_hash, definition_json";
constexpr std::string_view kCandidateColumns =
    "id, run_id, name, source_hash, source, knobs_json, parent_id, proposer, hypothesis, build_json, created_at";
// The same columns with the source left empty (a run's sources can weigh many megabytes).
constexpr std::string_view kCandidateColumnsWithoutSource =
    "id, run_id, name, source_hash, '', knobs_json, parent_id, proposer, hypothesis, build_json, created_at";
constexpr std::string_view kVerdictColumns =
    "v.id, v.candidate_id, v.workload_uuid, v.held_out, v.status, v.reason, v.median_ns, v.sol_ns, v.baseline_ns, v.score, v.details_json";
constexpr std::string_view kConclusionColumns =
    "c.id, c.run_id, c.task, c.workload_class, c.strategy, c.change, c.outcome, c.effect, c.lesson, c.created_at";
constexpr std::string_view kEventColumns = "id, run_id, kind, payload_json, created_at";

inline RunRecord run(const Statement& row) {
  return {row.int64(0), row.int64(1), row.text(2), row.text(3), static_cast<std::uint64_t>(row.int64(4)), row.text(5), row.text(6), row.text(7),
          row.text(8), row.text(9)};
}

inline TaskRecord task(const Statement& row) { return {row.int64(0), row.text(1), row.text(2), row.text(3), row.text(4)}; }

inline CandidateRecord candidate(const Statement& row) {
  return {row.int64(0), row.int64(1), row.text(2), row.text(3), row.text(4), row.text(5), row.optional_int64(6), row.text(7), row.text(8),
          row.text(9), row.text(10)};
}

// Without its samples: they are in verdict_samples.
inline VerdictRecord verdict(const Statement& row) {
  VerdictRecord v;
  v.id = row.int64(0), v.candidate_id = row.int64(1), v.workload_uuid = row.text(2), v.held_out = row.int64(3) != 0;
  v.status = row.text(4), v.reason = row.text(5);
  v.median_ns = row.optional_real(6), v.sol_ns = row.optional_real(7), v.baseline_ns = row.optional_real(8), v.score = row.optional_real(9);
  v.details_json = row.text(10);
  return v;
}

inline ConclusionRecord conclusion(const Statement& row) {
  return {row.int64(0), row.optional_int64(1), row.text(2), row.text(3), row.text(4), row.text(5), row.text(6), row.optional_real(7).value_or(0),
          row.text(8), row.text(9)};
}

inline EventRecord event(const Statement& row) { return {row.int64(0), row.int64(1), row.text(2), row.text(3), row.text(4)}; }

}  // namespace kernelarc::store::rows
