#include "store/run_reader.h"

#include <sqlite3.h>

#include <fmt/core.h>

#include <system_error>
#include <utility>

namespace kernelarc::store {
namespace {

constexpr int kBusyTimeoutMs = 10'000;

// One prepared read; columns read by index, parameters bound as int64 or text.
class Query {
 public:
  Query(sqlite3* db, const char* sql, std::string_view operation) : db_(db), operation_(operation) {
    if (sqlite3_prepare_v2(db_, sql, -1, &statement_, nullptr) != SQLITE_OK) fail();
  }
  Query(const Query&) = delete;
  Query& operator=(const Query&) = delete;
  ~Query() { sqlite3_finalize(statement_); }

  Query& bind(int index, std::int64_t value) {
    if (sqlite3_bind_int64(statement_, index, value) != SQLITE_OK) fail();
    return *this;
  }
  bool step() {
    const int rc = sqlite3_step(statement_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    fail();
  }
  std::int64_t int64(int column) const { return sqlite3_column_int64(statement_, column); }
  bool is_null(int column) const { return sqlite3_column_type(statement_, column) == SQLITE_NULL; }
  std::optional<double> optional_real(int column) const {
    if (is_null(column)) return std::nullopt;
    return sqlite3_column_double(statement_, column);
  }
  std::optional<std::int64_t> optional_int64(int column) const {
    if (is_null(column)) return std::nullopt;
    return int64(column);
  }
  std::string text(int column) const {
    const auto* data = reinterpret_cast<const char*>(sqlite3_column_text(statement_, column));
    return data ? std::string(data, static_cast<std::size_t>(sqlite3_column_bytes(statement_, column))) : std::string();
  }

 private:
  [[noreturn]] void fail() const { throw StoreError(fmt::format("{}: {}", operation_, sqlite3_errmsg(db_))); }
  sqlite3* db_;
  sqlite3_stmt* statement_ = nullptr;
  std::string operation_;
};

constexpr const char* kRunColumns = "SELECT id, task_id, kind, device, seed, config_json, status, summary_json, started_at, finished_at FROM runs";

RunRecord run_from(const Query& q) {
  return {q.int64(0), q.int64(1), q.text(2), q.text(3), static_cast<std::uint64_t>(q.int64(4)), q.text(5), q.text(6), q.text(7), q.text(8),
          q.text(9)};
}

}  // namespace

RunReader::RunReader(sqlite3* db) noexcept : db_(db) {}
RunReader::RunReader(RunReader&& other) noexcept : db_(std::exchange(other.db_, nullptr)) {}
RunReader& RunReader::operator=(RunReader&& other) noexcept {
  if (this != &other) {
    sqlite3_close_v2(db_);
    db_ = std::exchange(other.db_, nullptr);
  }
  return *this;
}
RunReader::~RunReader() { sqlite3_close_v2(db_); }

RunReader RunReader::open(const std::filesystem::path& file) {
  const std::string operation = fmt::format("open {} to read", file.string());
  std::error_code error;
  if (!std::filesystem::is_regular_file(file, error)) throw StoreError(fmt::format("{}: there is no run store there", operation));
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  RunReader reader(db);  // owns the handle even when opening failed
  if (rc != SQLITE_OK) throw StoreError(fmt::format("{}: {}", operation, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc)));
  sqlite3_busy_timeout(db, kBusyTimeoutMs);
  Query version(db, "PRAGMA user_version", operation);
  const std::int64_t schema = version.step() ? version.int64(0) : 0;
  if (schema == 0) throw StoreError(fmt::format("{}: not a KernelArc run store (no schema)", operation));
  if (schema > Store::kSchemaVersion)
    throw StoreError(fmt::format("{}: its schema is version {}, newer than this build's {}", operation, schema, Store::kSchemaVersion));
  return reader;
}

std::optional<RunRecord> RunReader::run(std::int64_t id) const {
  Query q(db_, (std::string(kRunColumns) + " WHERE id = ?").c_str(), "read run");
  q.bind(1, id);
  if (!q.step()) return std::nullopt;
  return run_from(q);
}

std::vector<RunRecord> RunReader::runs() const {
  Query q(db_, (std::string(kRunColumns) + " ORDER BY id DESC").c_str(), "read runs");
  std::vector<RunRecord> out;
  while (q.step()) out.push_back(run_from(q));
  return out;
}

std::optional<TaskRecord> RunReader::task(std::int64_t id) const {
  Query q(db_, "SELECT id, name, path, definition_hash, definition_json FROM tasks WHERE id = ?", "read task");
  q.bind(1, id);
  if (!q.step()) return std::nullopt;
  return TaskRecord{q.int64(0), q.text(1), q.text(2), q.text(3), q.text(4)};
}

std::vector<CandidateRow> RunReader::candidates(std::int64_t run_id) const {
  Query q(db_, "SELECT id, name, knobs_json, parent_id, proposer, hypothesis, created_at FROM candidates WHERE run_id = ? ORDER BY id",
          "read candidates");
  q.bind(1, run_id);
  std::vector<CandidateRow> out;
  while (q.step()) out.push_back({q.int64(0), q.text(1), q.text(2), q.optional_int64(3), q.text(4), q.text(5), q.text(6)});
  return out;
}

std::optional<CandidateRecord> RunReader::candidate(std::int64_t id) const {
  Query q(db_,
          "SELECT id, run_id, name, source_hash, source, knobs_json, parent_id, proposer, hypothesis, build_json, created_at FROM candidates "
          "WHERE id = ?",
          "read candidate");
  q.bind(1, id);
  if (!q.step()) return std::nullopt;
  return CandidateRecord{q.int64(0), q.int64(1), q.text(2), q.text(3), q.text(4), q.text(5), q.optional_int64(6), q.text(7), q.text(8),
                         q.text(9), q.text(10)};
}

std::vector<VerdictRow> RunReader::verdicts_of_run(std::int64_t run_id) const {
  Query q(db_,
          "SELECT v.id, v.candidate_id, v.workload_uuid, v.held_out, v.status, v.reason, v.median_ns, v.sol_ns, v.baseline_ns, v.score, "
          "'{}' FROM verdicts v JOIN candidates c ON c.id = v.candidate_id WHERE c.run_id = ? ORDER BY v.candidate_id, v.id",
          "read verdicts");
  q.bind(1, run_id);
  std::vector<VerdictRow> out;
  while (q.step())
    out.push_back({q.int64(0), q.int64(1), q.text(2), q.int64(3) != 0, q.text(4), q.text(5), q.optional_real(6), q.optional_real(7),
                   q.optional_real(8), q.optional_real(9), q.text(10)});
  return out;
}

std::vector<VerdictRow> RunReader::verdicts_of_candidate(std::int64_t candidate_id) const {
  Query q(db_,
          "SELECT id, candidate_id, workload_uuid, held_out, status, reason, median_ns, sol_ns, baseline_ns, score, details_json FROM verdicts "
          "WHERE candidate_id = ? ORDER BY id",
          "read verdicts");
  q.bind(1, candidate_id);
  std::vector<VerdictRow> out;
  while (q.step())
    out.push_back({q.int64(0), q.int64(1), q.text(2), q.int64(3) != 0, q.text(4), q.text(5), q.optional_real(6), q.optional_real(7),
                   q.optional_real(8), q.optional_real(9), q.text(10)});
  return out;
}

std::vector<ConclusionRecord> RunReader::conclusions_of_run(std::int64_t run_id) const {
  Query q(db_,
          "SELECT id, run_id, task, workload_class, strategy, change, outcome, effect, lesson, created_at FROM conclusions WHERE run_id = ? "
          "ORDER BY id",
          "read conclusions");
  q.bind(1, run_id);
  std::vector<ConclusionRecord> out;
  while (q.step())
    out.push_back({q.int64(0), q.optional_int64(1), q.text(2), q.text(3), q.text(4), q.text(5), q.text(6), q.optional_real(7).value_or(0),
                   q.text(8), q.text(9)});
  return out;
}

std::vector<EventRecord> RunReader::events(std::int64_t run_id, std::int64_t after_id) const {
  Query q(db_, "SELECT id, run_id, kind, payload_json, created_at FROM events WHERE run_id = ? AND id > ? ORDER BY id", "read events");
  q.bind(1, run_id).bind(2, after_id);
  std::vector<EventRecord> out;
  while (q.step()) out.push_back({q.int64(0), q.int64(1), q.text(2), q.text(3), q.text(4)});
  return out;
}

std::int64_t RunReader::candidate_count(std::int64_t run_id) const {
  Query q(db_, "SELECT count(*) FROM candidates WHERE run_id = ?", "count candidates");
  q.bind(1, run_id);
  return q.step() ? q.int64(0) : 0;
}

}  // namespace kernelarc::store
