// The run store's writes: tasks, runs, candidates, verdicts with their samples, conclusions and events.
#include <chrono>
#include <cmath>
#include <ctime>

#include <fmt/core.h>

#include "store/sqlite_statement.h"
#include "store/store.h"

namespace kernelarc::store {
namespace {

std::string utc_now_iso8601() {
  using namespace std::chrono;
  const auto since_epoch = duration_cast<milliseconds>(system_clock::now().time_since_epoch());
  const std::time_t seconds = static_cast<std::time_t>(since_epoch.count() / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", utc.tm_year + 1900,
                     utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                     since_epoch.count() % 1000);
}

void require_finite(std::optional<double> value, std::string_view field, std::string_view operation) {
  if (value.has_value() && !std::isfinite(*value)) {
    throw StoreError(fmt::format("{}: {} is not finite ({})", operation, field, *value));
  }
}

}  // namespace

std::int64_t Store::upsert_task(const TaskRecord& task) {
  return transaction([&] {
    Statement insert(db_,
                     "INSERT INTO tasks (name, path, definition_hash, definition_json) "
                     "VALUES (?, ?, ?, ?) ON CONFLICT (name, definition_hash) DO NOTHING",
                     "upsert_task");
    insert.bind(task.name, task.path, task.definition_hash, task.definition_json).run();

    Statement select(db_, "SELECT id FROM tasks WHERE name = ? AND definition_hash = ?",
                     "upsert_task");
    if (!select.bind(task.name, task.definition_hash).step()) {
      throw StoreError(fmt::format("upsert_task: task '{}' vanished after insert", task.name));
    }
    return select.int64(0);
  });
}

std::int64_t Store::begin_run(const RunRecord& run) {
  Statement insert(db_,
                   "INSERT INTO runs (task_id, kind, device, seed, config_json, status, "
                   "summary_json, started_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                   "begin_run");
  insert
      .bind(run.task_id, run.kind, run.device, static_cast<std::int64_t>(run.seed),
            run.config_json, run.status, run.summary_json, utc_now_iso8601())
      .run();
  return sqlite3_last_insert_rowid(db_);
}

void Store::finish_run(std::int64_t run_id, std::string_view status,
                       std::string_view summary_json) {
  Statement update(db_,
                   "UPDATE runs SET status = ?, summary_json = ?, finished_at = ? WHERE id = ?",
                   "finish_run");
  update.bind(status, summary_json, utc_now_iso8601(), run_id).run();
  if (sqlite3_changes(db_) == 0) {
    throw StoreError(fmt::format("finish_run: no run with id {}", run_id));
  }
}

void Store::reopen_run(std::int64_t run_id) {
  Statement update(db_, "UPDATE runs SET status = 'running', finished_at = NULL WHERE id = ?", "reopen_run");
  update.bind(run_id).run();
  if (sqlite3_changes(db_) == 0) throw StoreError(fmt::format("reopen_run: no run with id {}", run_id));
}

std::int64_t Store::add_candidate(const CandidateRecord& candidate) {
  Statement insert(db_,
                   "INSERT INTO candidates (run_id, name, source_hash, source, knobs_json, "
                   "parent_id, proposer, hypothesis, build_json, created_at) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   "add_candidate");
  insert
      .bind(candidate.run_id, candidate.name, candidate.source_hash, candidate.source,
            candidate.knobs_json, candidate.parent_id, candidate.proposer, candidate.hypothesis,
            candidate.build_json, utc_now_iso8601())
      .run();
  return sqlite3_last_insert_rowid(db_);
}

std::int64_t Store::add_verdict(const VerdictRecord& verdict) {
  // SQLite would silently turn NaN into NULL, so refuse non-finite values up front.
  require_finite(verdict.median_ns, "median_ns", "add_verdict");
  require_finite(verdict.sol_ns, "sol_ns", "add_verdict");
  require_finite(verdict.baseline_ns, "baseline_ns", "add_verdict");
  require_finite(verdict.score, "score", "add_verdict");
  for (std::size_t i = 0; i < verdict.samples_ns.size(); ++i) {
    if (!std::isfinite(verdict.samples_ns[i])) {
      throw StoreError(fmt::format("add_verdict: samples_ns[{}] is not finite ({})", i,
                                   verdict.samples_ns[i]));
    }
  }

  return transaction([&] {
    Statement insert(db_,
                     "INSERT INTO verdicts (candidate_id, workload_uuid, held_out, status, reason, "
                     "median_ns, sol_ns, baseline_ns, score, details_json, created_at) "
                     "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                     "add_verdict");
    insert
        .bind(verdict.candidate_id, verdict.workload_uuid,
              static_cast<std::int64_t>(verdict.held_out), verdict.status, verdict.reason,
              verdict.median_ns, verdict.sol_ns, verdict.baseline_ns, verdict.score,
              verdict.details_json, utc_now_iso8601())
        .run();
    const std::int64_t verdict_id = sqlite3_last_insert_rowid(db_);

    Statement insert_sample(
        db_, "INSERT INTO verdict_samples (verdict_id, sample_index, ns) VALUES (?, ?, ?)",
        "add_verdict: samples");
    for (std::size_t i = 0; i < verdict.samples_ns.size(); ++i) {
      insert_sample.bind(verdict_id, static_cast<std::int64_t>(i), verdict.samples_ns[i]).run();
      insert_sample.reset();
    }
    return verdict_id;
  });
}

std::int64_t Store::add_conclusion(const ConclusionRecord& conclusion) {
  require_finite(conclusion.effect, "effect", "add_conclusion");
  Statement insert(db_,
                   "INSERT INTO conclusions (run_id, task, workload_class, strategy, change, "
                   "outcome, effect, lesson, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   "add_conclusion");
  insert
      .bind(conclusion.run_id, conclusion.task, conclusion.workload_class, conclusion.strategy,
            conclusion.change, conclusion.outcome, conclusion.effect, conclusion.lesson,
            utc_now_iso8601())
      .run();
  return sqlite3_last_insert_rowid(db_);
}

std::int64_t Store::add_event(const EventRecord& event) {
  Statement insert(db_,
                   "INSERT INTO events (run_id, kind, payload_json, created_at) "
                   "VALUES (?, ?, ?, ?)",
                   "add_event");
  insert.bind(event.run_id, event.kind, event.payload_json, utc_now_iso8601()).run();
  return sqlite3_last_insert_rowid(db_);
}

}  // namespace kernelarc::store
