// The run store's reads: a run or all of them, a task, a run's candidates and events, verdicts, conclusions.
#include <fmt/core.h>

#include "store/sqlite_statement.h"
#include "store/store.h"
#include "store/store_rows.h"

namespace kernelarc::store {

std::optional<RunRecord> Store::run(std::int64_t id) const {
  Statement select(db_, fmt::format("SELECT {} FROM runs WHERE id = ?", rows::kRunColumns), "run");
  if (!select.bind(id).step()) return std::nullopt;
  return rows::run(select);
}

std::vector<RunRecord> Store::runs() const {
  Statement select(db_, fmt::format("SELECT {} FROM runs ORDER BY id DESC", rows::kRunColumns), "runs");
  std::vector<RunRecord> result;
  while (select.step()) result.push_back(rows::run(select));
  return result;
}

std::optional<TaskRecord> Store::task(std::int64_t id) const {
  Statement select(db_, fmt::format("SELECT {} FROM tasks WHERE id = ?", rows::kTaskColumns), "task");
  if (!select.bind(id).step()) return std::nullopt;
  return rows::task(select);
}

std::vector<CandidateRecord> Store::candidates(std::int64_t run_id) const {
  Statement select(db_, fmt::format("SELECT {} FROM candidates WHERE run_id = ? ORDER BY id", rows::kCandidateColumns), "candidates");
  select.bind(run_id);
  std::vector<CandidateRecord> result;
  while (select.step()) result.push_back(rows::candidate(select));
  return result;
}

std::optional<CandidateRecord> Store::candidate(std::int64_t id) const {
  Statement select(db_, fmt::format("SELECT {} FROM candidates WHERE id = ?", rows::kCandidateColumns), "candidate");
  if (!select.bind(id).step()) return std::nullopt;
  return rows::candidate(select);
}

std::vector<VerdictRecord> Store::verdicts(std::int64_t candidate_id) const {
  Statement select(db_, fmt::format("SELECT {} FROM verdicts v WHERE v.candidate_id = ? ORDER BY v.id", rows::kVerdictColumns), "verdicts");
  select.bind(candidate_id);
  std::vector<VerdictRecord> result;
  while (select.step()) result.push_back(rows::verdict(select));

  Statement select_samples(db_,
                           "SELECT ns FROM verdict_samples WHERE verdict_id = ? "
                           "ORDER BY sample_index",
                           "verdicts: samples");
  for (VerdictRecord& verdict : result) {
    select_samples.bind(verdict.id);
    while (select_samples.step()) verdict.samples_ns.push_back(select_samples.real(0));
    select_samples.reset();
  }
  return result;
}

namespace {

std::vector<ConclusionRecord> read_conclusions(Statement& select) {
  std::vector<ConclusionRecord> result;
  while (select.step()) result.push_back(rows::conclusion(select));
  return result;
}

}  // namespace

std::vector<ConclusionRecord> Store::conclusions(std::string_view task) const {
  Statement select(db_, fmt::format("SELECT {} FROM conclusions c WHERE c.task = ? ORDER BY c.id DESC", rows::kConclusionColumns),
                   "conclusions");
  select.bind(task);
  return read_conclusions(select);
}

std::vector<ConclusionRecord> Store::conclusions_of_run(std::int64_t run_id) const {
  Statement select(db_, fmt::format("SELECT {} FROM conclusions c WHERE c.run_id = ? ORDER BY c.id", rows::kConclusionColumns),
                   "conclusions of run");
  select.bind(run_id);
  return read_conclusions(select);
}

std::vector<ConclusionRecord> Store::conclusions_of_similar_runs(std::string_view task, std::string_view op_type,
                                                                  std::int64_t before_run) const {
  Statement select(db_,
                   fmt::format("SELECT {} FROM conclusions c JOIN runs r ON r.id = c.run_id JOIN tasks t ON t.id = r.task_id "
                               "WHERE c.run_id < ? AND (t.name = ? OR (? <> '' AND json_extract(t.definition_json, '$.op_type') = ?)) "
                               "ORDER BY c.id",
                               rows::kConclusionColumns),
                   "conclusions of similar runs");
  select.bind(before_run, task, op_type, op_type);
  return read_conclusions(select);
}

std::vector<EventRecord> Store::events(std::int64_t run_id, std::int64_t after_id) const {
  Statement select(db_, fmt::format("SELECT {} FROM events WHERE run_id = ? AND id > ? ORDER BY id", rows::kEventColumns), "events");
  select.bind(run_id, after_id);
  std::vector<EventRecord> result;
  while (select.step()) result.push_back(rows::event(select));
  return result;
}

}  // namespace kernelarc::store
