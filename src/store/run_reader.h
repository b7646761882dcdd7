// A read-only view of the run store for the report and the live page: opened with SQLITE_OPEN_READONLY (it never
// creates, migrates or writes anything), bulk reads of a whole run in a few queries (a 10,000-candidate run reads in one
// pass), and reads of what was added after a given id for a page that follows a running run.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "store/store.h"

struct sqlite3;

namespace kernelarc::store {

// A candidate without its source (the report needs the source of one candidate only).
struct CandidateRow {
  std::int64_t id = 0;
  std::string name;
  std::string knobs_json = "{}";
  std::optional<std::int64_t> parent_id;
  std::string proposer;
  std::string hypothesis;
  std::string created_at;
};

// A verdict without its samples: the report shows medians, bounds and scores.
struct VerdictRow {
  std::int64_t id = 0;
  std::int64_t candidate_id = 0;
  std::string workload_uuid;
  bool held_out = false;
  std::string status;
  std::string reason;
  std::optional<double> median_ns;
  std::optional<double> sol_ns;
  std::optional<double> baseline_ns;
  std::optional<double> score;
  std::string details_json = "{}";
};

class RunReader {
 public:
  // Throws StoreError naming the path for a missing file, a file that is not a store, or a schema newer than this build.
  static RunReader open(const std::filesystem::path& file);

  RunReader(RunReader&& other) noexcept;
  RunReader& operator=(RunReader&& other) noexcept;
  RunReader(const RunReader&) = delete;
  RunReader& operator=(const RunReader&) = delete;
  ~RunReader();

  std::optional<RunRecord> run(std::int64_t id) const;
  std::vector<RunRecord> runs() const;  // newest first
  std::optional<TaskRecord> task(std::int64_t id) const;
  std::vector<CandidateRow> candidates(std::int64_t run_id) const;  // oldest first
  std::optional<CandidateRecord> candidate(std::int64_t id) const;  // with its source
  // Every verdict of the run, by candidate, oldest first, without details_json (left "{}": a large run's details would
  // weigh hundreds of megabytes).
  std::vector<VerdictRow> verdicts_of_run(std::int64_t run_id) const;
  // One candidate's verdicts with their details, oldest first.
  std::vector<VerdictRow> verdicts_of_candidate(std::int64_t candidate_id) const;
  std::vector<ConclusionRecord> conclusions_of_run(std::int64_t run_id) const;  // oldest first
  // The run's events with an id above `after_id`, oldest first.
  std::vector<EventRecord> events(std::int64_t run_id, std::int64_t after_id = 0) const;
  // How many candidates the run has now (cheap: the live page polls it).
  std::int64_t candidate_count(std::int64_t run_id) const;

 private:
  explicit RunReader(sqlite3* db) noexcept;
  sqlite3* db_ = nullptr;
};

}  // namespace kernelarc::store
