// The run store's reads: a run or all of them, a task, a run's candidates and events, verdicts, conclusions.
#include <fmt/core.h>

#include "store/sqlite_statement.h"
#include "store/store.h"

namespace kernelarc::store {
namespace {

RunRecord read_run(const Statement& row) {
  RunRecord run;
  run.id = row.int64(0);
  run.task_id = row.int64(1);
  run.kind = row.text(2);
  run.device = row.text(3);
  run.seed = static_cast<std::uint64_t>(row.int64(4));
  run.config_json = row.text(5);
  run.status = row.text(6);
  run.summary_json = row.text(7);
  run.started_at = row.text(8);
  run.finished_at = row.text(9);
  return run;
}

constexpr std::string_view kRunColumns =
    "id, task_id, kind, device, seed, config_json, status, summary_json, started_at, finished_at";

}  // namespace

std::optional<RunRecord> Store::run(std::int64_t id) const {
  Statement select(db_, fmt::format("SELECT {} FROM runs WHERE id = ?", kRunColumns), "run");
  if (!select.bind(id).step()) return std::nullopt;
  return read_run(select);
}

std::vector<RunRecord> Store::runs() const {
  Statement select(db_, fmt::format("SELECT {} FROM runs ORDER BY id DESC", kRunColumns), "runs");
  std::vector<RunRecord> result;
  while (select.step()) result.push_back(read_run(select));
  return result;
}

std::optional<TaskRecord> Store::task(std::int64_t id) const {
  Statement select(db_,
                   "SELECT id, name, path, definition_hash, definition_json FROM tasks "
                   "WHERE id = ?",
                   "task");
  if (!select.bind(id).step()) return std::nullopt;
  TaskRecord task;
  task.id = select.int64(0);
  task.name = select.text(1);
  task.path = select.text(2);
  task.definition_hash = select.text(3);
  task.definition_json = select.text(4);
  return task;
}

std::vector<CandidateRecord> Store::candidates(std::int64_t run_id) const {
  Statement select(db_,
                   "SELECT id, run_id, name, source_hash, source, knobs_json, parent_id, "
                   "proposer, hypothesis, build_json, created_at FROM candidates "
                   "WHERE run_id = ? ORDER BY id",
                   "candidates");
  select.bind(run_id);
  std::vector<CandidateRecord> result;
  while (select.step()) {
    CandidateRecord candidate;
    candidate.id = select.int64(0);
    candidate.run_id = select.int64(1);
    candidate.name = select.text(2);
    candidate.source_hash = select.text(3);
    candidate.source = select.text(4);
    candidate.knobs_json = select.text(5);
    candidate.parent_id = select.optional_int64(6);
    candidate.proposer = select.text(7);
    candidate.hypothesis = select.text(8);
    candidate.build_json = select.text(9);
    candidate.created_at = select.text(10);
    result.push_back(std::move(candidate));
  }
  return result;
}

std::vector<VerdictRecord> Store::verdicts(std::int64_t candidate_id) const {
  Statement select(db_,
                   "SELECT id, candidate_id, workload_uuid, held_out, status, reason, median_ns, "
                   "sol_ns, baseline_ns, score, details_json FROM verdicts "
                   "WHERE candidate_id = ? ORDER BY id",
                   "verdicts");
  select.bind(candidate_id);
  std::vector<VerdictRecord> result;
  while (select.step()) {
    VerdictRecord verdict;
    verdict.id = select.int64(0);
    verdict.candidate_id = select.int64(1);
    verdict.workload_uuid = select.text(2);
    verdict.held_out = select.int64(3) != 0;
    verdict.status = select.text(4);
    verdict.reason = select.text(5);
    verdict.median_ns = select.optional_real(6);
    verdict.sol_ns = select.optional_real(7);
    verdict.baseline_ns = select.optional_real(8);
    verdict.score = select.optional_real(9);
    verdict.details_json = select.text(10);
    result.push_back(std::move(verdict));
  }

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

constexpr const char* kConclusionColumns =
    "c.id, c.run_id, c.task, c.workload_class, c.strategy, c.change, c.outcome, c.effect, c.lesson, c.created_at";

std::vector<ConclusionRecord> read_conclusions(Statement& select) {
  std::vector<ConclusionRecord> result;
  while (select.step()) {
    ConclusionRecord conclusion;
    conclusion.id = select.int64(0);
    conclusion.run_id = select.optional_int64(1);
    conclusion.task = select.text(2);
    conclusion.workload_class = select.text(3);
    conclusion.strategy = select.text(4);
    conclusion.change = select.text(5);
    conclusion.outcome = select.text(6);
    conclusion.effect = select.real(7);
    conclusion.lesson = select.text(8);
    conclusion.created_at = select.text(9);
    result.push_back(std::move(conclusion));
  }
  return result;
}

}  // namespace

std::vector<ConclusionRecord> Store::conclusions(std::string_view task) const {
  Statement select(db_, fmt::format("SELECT {} FROM conclusions c WHERE c.task = ? ORDER BY c.id DESC", kConclusionColumns),
                   "conclusions");
  select.bind(task);
  return read_conclusions(select);
}

std::vector<ConclusionRecord> Store::conclusions_of_similar_runs(std::string_view task, std::string_view op_type,
                                                                  std::int64_t before_run) const {
  Statement select(db_,
                   fmt::format("SELECT {} FROM conclusions c JOIN runs r ON r.id = c.run_id JOIN tasks t ON t.id = r.task_id "
                               "WHERE c.run_id < ? AND (t.name = ? OR (? <> '' AND json_extract(t.definition_json, '$.op_type') = ?)) "
                               "ORDER BY c.id",
                               kConclusionColumns),
                   "conclusions of similar runs");
  select.bind(before_run, task, op_type, op_type);
  return read_conclusions(select);
}

std::vector<EventRecord> Store::events(std::int64_t run_id) const {
  Statement select(db_,
                   "SELECT id, run_id, kind, payload_json, created_at FROM events "
                   "WHERE run_id = ? ORDER BY id",
                   "events");
  select.bind(run_id);
  std::vector<EventRecord> result;
  while (select.step()) {
    EventRecord event;
    event.id = select.int64(0);
    event.run_id = select.int64(1);
    event.kind = select.text(2);
    event.payload_json = select.text(3);
    event.created_at = select.text(4);
    result.push_back(std::move(event));
  }
  return result;
}

}  // namespace kernelarc::store
