#include "store/store.h"

#include <sqlite3.h>

#include <array>
#include <chrono>
#include <cmath>
#include <ctime>
#include <system_error>
#include <thread>
#include <utility>

#include <fmt/core.h>

namespace kernelarc::store {
namespace {

namespace fs = std::filesystem;

struct Migration {
  int version;
  const char* sql;
};

// Append-only: never edit a released step, add a new one and bump kSchemaVersion.
constexpr std::array kMigrations{
    Migration{1, R"sql(
CREATE TABLE tasks (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  path TEXT NOT NULL,
  definition_hash TEXT NOT NULL,
  definition_json TEXT NOT NULL,
  UNIQUE (name, definition_hash)
) STRICT;

CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  task_id INTEGER NOT NULL REFERENCES tasks(id),
  kind TEXT NOT NULL CHECK (kind IN ('eval', 'run')),
  device TEXT NOT NULL,
  seed INTEGER NOT NULL,  -- the uint64 seed's bit pattern as int64
  config_json TEXT NOT NULL CHECK (json_valid(config_json)),
  status TEXT NOT NULL,
  summary_json TEXT NOT NULL CHECK (json_valid(summary_json)),
  started_at TEXT NOT NULL,
  finished_at TEXT
) STRICT;
CREATE INDEX runs_task_id ON runs(task_id);

CREATE TABLE candidates (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  name TEXT NOT NULL,
  source_hash TEXT NOT NULL,
  source TEXT NOT NULL,
  knobs_json TEXT NOT NULL CHECK (json_valid(knobs_json)),
  parent_id INTEGER REFERENCES candidates(id),
  proposer TEXT NOT NULL,
  hypothesis TEXT NOT NULL,
  build_json TEXT NOT NULL CHECK (json_valid(build_json)),
  created_at TEXT NOT NULL
) STRICT;
CREATE INDEX candidates_run_id ON candidates(run_id);
CREATE INDEX candidates_parent_id ON candidates(parent_id);

CREATE TABLE verdicts (
  id INTEGER PRIMARY KEY,
  candidate_id INTEGER NOT NULL REFERENCES candidates(id),
  workload_uuid TEXT NOT NULL,
  held_out INTEGER NOT NULL CHECK (held_out IN (0, 1)),
  status TEXT NOT NULL,
  reason TEXT NOT NULL,
  median_ns REAL,
  sol_ns REAL,
  baseline_ns REAL,
  score REAL,
  details_json TEXT NOT NULL CHECK (json_valid(details_json)),
  created_at TEXT NOT NULL
) STRICT;
CREATE INDEX verdicts_candidate_id ON verdicts(candidate_id);

CREATE TABLE verdict_samples (
  verdict_id INTEGER NOT NULL REFERENCES verdicts(id),
  sample_index INTEGER NOT NULL,
  ns REAL NOT NULL,
  PRIMARY KEY (verdict_id, sample_index)
) STRICT, WITHOUT ROWID;

CREATE TABLE conclusions (
  id INTEGER PRIMARY KEY,
  run_id INTEGER REFERENCES runs(id),
  task TEXT NOT NULL,
  workload_class TEXT NOT NULL,
  strategy TEXT NOT NULL,
  change TEXT NOT NULL,
  outcome TEXT NOT NULL,
  effect REAL NOT NULL,
  lesson TEXT NOT NULL,
  created_at TEXT NOT NULL
) STRICT;
CREATE INDEX conclusions_run_id ON conclusions(run_id);
CREATE INDEX conclusions_task ON conclusions(task);

CREATE TABLE events (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  kind TEXT NOT NULL,
  payload_json TEXT NOT NULL CHECK (json_valid(payload_json)),
  created_at TEXT NOT NULL
) STRICT;
CREATE INDEX events_run_id ON events(run_id);
)sql"},
};
static_assert(kMigrations.back().version == Store::kSchemaVersion,
              "the last migration must produce kSchemaVersion");

constexpr int kBusyTimeoutMs = 10'000;

[[noreturn]] void throw_sqlite_error(sqlite3* db, std::string_view operation) {
  throw StoreError(fmt::format("{}: {}", operation, sqlite3_errmsg(db)));
}

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

// One prepared statement; every value goes in through a bound parameter.
class Statement {
 public:
  Statement(sqlite3* db, std::string_view sql, std::string_view operation)
      : db_(db), operation_(operation) {
    if (sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &statement_,
                           nullptr) != SQLITE_OK) {
      throw_sqlite_error(db_, operation_);
    }
  }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement() { sqlite3_finalize(statement_); }

  template <class... Values>
  Statement& bind(const Values&... values) {
    int index = 0;
    (bind_one(++index, values), ...);
    return *this;
  }

  // True while a row is available.
  bool step() {
    const int rc = sqlite3_step(statement_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    throw_sqlite_error(db_, operation_);
  }

  void run() {
    if (step()) throw StoreError(fmt::format("{}: statement unexpectedly returned rows", operation_));
  }

  void reset() {
    sqlite3_reset(statement_);
    sqlite3_clear_bindings(statement_);
  }

  std::int64_t int64(int column) const { return sqlite3_column_int64(statement_, column); }
  double real(int column) const { return sqlite3_column_double(statement_, column); }
  bool is_null(int column) const { return sqlite3_column_type(statement_, column) == SQLITE_NULL; }

  std::string text(int column) const {
    const auto* data = reinterpret_cast<const char*>(sqlite3_column_text(statement_, column));
    if (data == nullptr) return {};
    return std::string(data, static_cast<std::size_t>(sqlite3_column_bytes(statement_, column)));
  }

  std::optional<std::int64_t> optional_int64(int column) const {
    if (is_null(column)) return std::nullopt;
    return int64(column);
  }

  std::optional<double> optional_real(int column) const {
    if (is_null(column)) return std::nullopt;
    return real(column);
  }

 private:
  template <class T>
  void bind_one(int index, const T& value) {
    int rc = SQLITE_OK;
    if constexpr (std::is_same_v<T, std::int64_t>) {
      rc = sqlite3_bind_int64(statement_, index, value);
    } else if constexpr (std::is_same_v<T, double>) {
      rc = sqlite3_bind_double(statement_, index, value);
    } else if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, std::string_view>) {
      // An empty string_view may have a null data(), which SQLite would store as NULL.
      const char* data = value.empty() ? "" : value.data();
      rc = sqlite3_bind_text64(statement_, index, data, value.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
    } else if constexpr (std::is_same_v<T, std::optional<std::int64_t>> ||
                         std::is_same_v<T, std::optional<double>>) {
      if (value.has_value()) {
        bind_one(index, *value);
        return;
      }
      rc = sqlite3_bind_null(statement_, index);
    } else {
      static_assert(!sizeof(T), "unsupported parameter type: convert it explicitly");
    }
    if (rc != SQLITE_OK) throw_sqlite_error(db_, operation_);
  }

  sqlite3* db_;
  sqlite3_stmt* statement_ = nullptr;
  std::string operation_;
};

// Returns the journal mode now in effect. This is the first statement that reads
// the file, so a non-database fails here.
std::string enable_wal(sqlite3* db, std::string_view operation) {
  // Switching a brand-new file to WAL takes an exclusive lock without consulting
  // the busy handler, so processes creating the file together must retry.
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
  const auto remember_mode = [](void* mode, int, char** values, char**) {
    *static_cast<std::string*>(mode) = values[0] != nullptr ? values[0] : "";
    return 0;
  };
  while (true) {
    std::string mode;
    const int rc = sqlite3_exec(db, "PRAGMA journal_mode = WAL", remember_mode, &mode, nullptr);
    if (rc == SQLITE_OK) return mode;
    if ((rc & 0xff) != SQLITE_BUSY || std::chrono::steady_clock::now() > deadline) {
      throw_sqlite_error(db, fmt::format("{}: enable WAL", operation));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

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

void require_finite(std::optional<double> value, std::string_view field, std::string_view operation) {
  if (value.has_value() && !std::isfinite(*value)) {
    throw StoreError(fmt::format("{}: {} is not finite ({})", operation, field, *value));
  }
}

}  // namespace

Store::Store(sqlite3* db) noexcept : db_(db) {}

Store::Store(Store&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)),
      transaction_depth_(std::exchange(other.transaction_depth_, 0)) {}

Store& Store::operator=(Store&& other) noexcept {
  if (this != &other) {
    sqlite3_close_v2(db_);
    db_ = std::exchange(other.db_, nullptr);
    transaction_depth_ = std::exchange(other.transaction_depth_, 0);
  }
  return *this;
}

Store::~Store() { sqlite3_close_v2(db_); }

Store Store::open(const fs::path& file) { return open_with(file, true); }

Store Store::open_existing(const fs::path& file) {
  std::error_code error;
  if (!fs::is_regular_file(file, error)) throw StoreError(fmt::format("open {}: there is no run store there", file.string()));
  return open_with(file, false);
}

Store Store::open_with(const fs::path& file, bool create) {
  const std::string operation = fmt::format("open {}", file.string());
  if (create && file.has_parent_path()) {
    std::error_code error;
    fs::create_directories(file.parent_path(), error);
    if (error) {
      throw StoreError(fmt::format("{}: cannot create directory {}: {}", operation,
                                   file.parent_path().string(), error.message()));
    }
  }

  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0), nullptr);
  Store store(db);  // owns the handle even when opening failed
  if (rc != SQLITE_OK) {
    if (db == nullptr) throw StoreError(fmt::format("{}: {}", operation, sqlite3_errstr(rc)));
    throw_sqlite_error(db, operation);
  }
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_timeout(db, kBusyTimeoutMs);
  store.execute("PRAGMA foreign_keys = ON", operation);

  const std::string mode = enable_wal(db, operation);
  if (mode != "wal") {
    throw StoreError(fmt::format("{}: cannot enable WAL, journal mode is '{}'", operation, mode));
  }

  store.migrate(operation);
  return store;
}

void Store::execute(const char* sql, std::string_view operation) const {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &message) != SQLITE_OK) {
    const std::string text = message != nullptr ? message : sqlite3_errmsg(db_);
    sqlite3_free(message);
    throw StoreError(fmt::format("{}: {}", operation, text));
  }
}

void Store::migrate(std::string_view operation) {
  const auto refuse_if_newer = [&](int found) {
    if (found > kSchemaVersion) {
      throw StoreError(fmt::format(
          "{}: schema version {} is newer than this build supports ({}); upgrade KernelArc",
          operation, found, kSchemaVersion));
    }
  };
  const int found = schema_version();
  refuse_if_newer(found);

  for (const Migration& migration : kMigrations) {
    if (migration.version <= found) continue;
    transaction([&] {
      // Another process may have migrated while we waited for the write lock.
      const int current = schema_version();
      refuse_if_newer(current);
      if (current >= migration.version) return;
      const std::string step = fmt::format("{}: migrate to schema version {}", operation,
                                           migration.version);
      execute(migration.sql, step);
      // PRAGMA takes no bound parameters; the value is a compile-time constant.
      execute(fmt::format("PRAGMA user_version = {}", migration.version).c_str(), step);
    });
  }
}

int Store::schema_version() const {
  Statement statement(db_, "PRAGMA user_version", "read schema version");
  if (!statement.step()) throw StoreError("read schema version: PRAGMA user_version returned no row");
  return static_cast<int>(statement.int64(0));
}

void Store::begin_transaction() {
  execute(transaction_depth_ == 0 ? "BEGIN IMMEDIATE" : "SAVEPOINT nested", "begin transaction");
  ++transaction_depth_;
}

void Store::commit_transaction() {
  execute(transaction_depth_ == 1 ? "COMMIT" : "RELEASE nested", "commit transaction");
  --transaction_depth_;
}

void Store::rollback_transaction() noexcept {
  const bool outermost = transaction_depth_ == 1;
  --transaction_depth_;
  // SQLite may already have rolled back on its own (e.g. after a failed COMMIT).
  if (sqlite3_get_autocommit(db_) != 0) return;
  const char* sql = outermost ? "ROLLBACK" : "ROLLBACK TO nested; RELEASE nested";
  sqlite3_exec(db_, sql, nullptr, nullptr, nullptr);
}

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
