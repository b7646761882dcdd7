// The run store's schema, built by migrations one version at a time.
#include <array>

#include <fmt/core.h>

#include "store/sqlite_statement.h"
#include "store/store.h"

namespace kernelarc::store {
namespace {

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

}  // namespace

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

}  // namespace kernelarc::store
