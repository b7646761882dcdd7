// KernelArc's durable run store: runs, candidates, verdicts (with every timing
// sample), conclusions and events in one SQLite file (WAL mode), safe to share
// between several writing processes. One Store object is one connection and is
// meant to be used by one thread at a time.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

struct sqlite3;

namespace kernelarc::store {

// The message names the operation that failed and carries SQLite's message.
class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RunRecord {
  std::int64_t id = 0;
  std::int64_t task_id = 0;
  std::string kind;  // "eval" or "run"
  std::string device;
  std::uint64_t seed = 0;
  std::string config_json = "{}";
  std::string status = "running";
  std::string summary_json = "{}";
  std::string started_at;   // set by the store
  std::string finished_at;  // set by finish_run; empty while running
};

struct TaskRecord {
  std::int64_t id = 0;
  std::string name;
  std::string path;
  std::string definition_hash;
  std::string definition_json;
};

struct CandidateRecord {
  std::int64_t id = 0;
  std::int64_t run_id = 0;
  std::string name;  // self-describing id
  std::string source_hash;
  std::string source;
  std::string knobs_json = "{}";
  std::optional<std::int64_t> parent_id;
  std::string proposer;
  std::string hypothesis;
  std::string build_json = "{}";  // compile flags, cache key, build seconds, resource usage
  std::string created_at;         // set by the store
};

struct VerdictRecord {
  std::int64_t id = 0;
  std::int64_t candidate_id = 0;
  std::string workload_uuid;
  bool held_out = false;
  std::string status;  // PASSED, COMPILE_ERROR, ...
  std::string reason;
  std::optional<double> median_ns;
  std::optional<double> sol_ns;
  std::optional<double> baseline_ns;
  std::optional<double> score;
  std::vector<double> samples_ns;  // in measurement order, bit-exact round trip
  std::string details_json = "{}";
};

struct ConclusionRecord {
  std::int64_t id = 0;
  std::optional<std::int64_t> run_id;
  std::string task;
  std::string workload_class;
  std::string strategy;
  std::string change;
  std::string outcome;
  double effect = 0;
  std::string lesson;
  std::string created_at;  // set by the store
};

struct EventRecord {
  std::int64_t id = 0;
  std::int64_t run_id = 0;
  std::string kind;
  std::string payload_json = "{}";
  std::string created_at;  // set by the store
};

class Store {
 public:
  static constexpr int kSchemaVersion = 1;

  // Creates parent directories and the file if missing, enables WAL, foreign
  // keys and a 10 s busy timeout, then upgrades the schema one migration per
  // transaction. Throws StoreError for a file that is not a SQLite database or
  // whose schema is newer than kSchemaVersion.
  static Store open(const std::filesystem::path& file);
  // As open, for a store that must exist already (a read, a resume): never creates a file or a folder; throws
  // StoreError naming the path when there is none.
  static Store open_existing(const std::filesystem::path& file);
  // A read-only connection (SQLITE_OPEN_READONLY) for `kernelarc report` and `serve`: never creates, migrates or writes
  // anything, and any write through it fails. Throws StoreError naming the path for a missing file, a file that is not
  // a store, or a schema newer than this build.
  static Store open_read_only(const std::filesystem::path& file);

  Store(Store&& other) noexcept;
  Store& operator=(Store&& other) noexcept;
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;
  ~Store();

  // The schema version the file holds (PRAGMA user_version).
  int schema_version() const;

  // Unique by (name, definition_hash); returns the existing id, unchanged, if present.
  std::int64_t upsert_task(const TaskRecord& task);
  // Ignores id, started_at and finished_at; started_at is set to now.
  std::int64_t begin_run(const RunRecord& run);
  // Sets status, summary and finished_at; throws if the run does not exist.
  void finish_run(std::int64_t run_id, std::string_view status, std::string_view summary_json);
  // A stopped run taken up again: status "running", no finished_at; throws if the run does not exist.
  void reopen_run(std::int64_t run_id);
  std::int64_t add_candidate(const CandidateRecord& candidate);
  // Stores the verdict and its samples atomically; samples must be finite.
  std::int64_t add_verdict(const VerdictRecord& verdict);
  std::int64_t add_conclusion(const ConclusionRecord& conclusion);
  std::int64_t add_event(const EventRecord& event);

  std::optional<RunRecord> run(std::int64_t id) const;
  std::vector<RunRecord> runs() const;  // newest first
  std::optional<TaskRecord> task(std::int64_t id) const;
  std::vector<CandidateRecord> candidates(std::int64_t run_id) const;  // oldest first
  std::optional<CandidateRecord> candidate(std::int64_t id) const;
  std::vector<VerdictRecord> verdicts(std::int64_t candidate_id) const;  // oldest first
  std::vector<ConclusionRecord> conclusions(std::string_view task) const;  // newest first
  std::vector<ConclusionRecord> conclusions_of_run(std::int64_t run_id) const;  // oldest first
  // What earlier runs (id below `before_run`) on the same task, or on any task of the same op_type, concluded; oldest
  // first. An empty op_type matches by task only.
  std::vector<ConclusionRecord> conclusions_of_similar_runs(std::string_view task, std::string_view op_type,
                                                            std::int64_t before_run) const;
  // The run's events with an id above `after_id`, oldest first.
  std::vector<EventRecord> events(std::int64_t run_id, std::int64_t after_id = 0) const;

  // Runs body inside BEGIN IMMEDIATE ... COMMIT, or ROLLBACK and rethrow if it
  // throws. Nested calls become savepoints of the enclosing transaction.
  template <class F>
  auto transaction(F&& body) -> decltype(body());

 private:
  friend class RunReader;  // its bulk reads of a whole run share this connection and the row mapping (store_rows.h)
  explicit Store(sqlite3* db) noexcept;
  static Store open_with(const std::filesystem::path& file, bool create);
  // sqlite3_open_v2 with `flags`, then extended result codes and the busy timeout; throws StoreError naming `operation`.
  static Store connect(const std::filesystem::path& file, int flags, std::string_view operation);
  void execute(const char* sql, std::string_view operation) const;
  void migrate(std::string_view operation);
  void begin_transaction();
  void commit_transaction();
  void rollback_transaction() noexcept;

  sqlite3* db_ = nullptr;
  int transaction_depth_ = 0;
};

template <class F>
auto Store::transaction(F&& body) -> decltype(body()) {
  begin_transaction();
  try {
    if constexpr (std::is_void_v<decltype(body())>) {
      body();
      commit_transaction();
    } else {
      decltype(auto) result = body();
      commit_transaction();
      return result;
    }
  } catch (...) {
    rollback_transaction();
    throw;
  }
}

}  // namespace kernelarc::store
