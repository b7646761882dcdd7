// A read-only view of the run store for the report and the live page: a Store opened with Store::open_read_only (it
// never creates, migrates or writes anything) plus bulk reads of a whole run in a few queries (a 10,000-candidate run
// reads in one pass), and reads of what was added after a given id for a page that follows a running run. Rows are
// mapped to records by the same code as Store's reads (store_rows.h).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "store/store.h"

namespace kernelarc::store {

class RunReader {
 public:
  // Throws StoreError naming the path for a missing file, a file that is not a store, or a schema newer than this build.
  static RunReader open(const std::filesystem::path& file);

  // The read-only connection, for what reads through a Store (engine::journal::read).
  const Store& store() const { return store_; }

  std::optional<RunRecord> run(std::int64_t id) const { return store_.run(id); }
  std::vector<RunRecord> runs() const { return store_.runs(); }  // newest first
  std::optional<TaskRecord> task(std::int64_t id) const { return store_.task(id); }
  std::optional<CandidateRecord> candidate(std::int64_t id) const { return store_.candidate(id); }  // with its source
  // The run's candidates, oldest first, without their sources (left empty: the report needs one candidate's source).
  std::vector<CandidateRecord> candidates(std::int64_t run_id) const;
  // One candidate's verdicts with their details, without samples, oldest first.
  std::vector<VerdictRecord> verdicts_of_candidate(std::int64_t candidate_id) const;
  std::vector<ConclusionRecord> conclusions_of_run(std::int64_t run_id) const { return store_.conclusions_of_run(run_id); }  // oldest first
  // The run's events with an id above `after_id`, oldest first.
  std::vector<EventRecord> events(std::int64_t run_id, std::int64_t after_id = 0) const { return store_.events(run_id, after_id); }
  // How many candidates the run has now (cheap: the live page polls it).
  std::int64_t candidate_count(std::int64_t run_id) const;

 private:
  explicit RunReader(Store store) noexcept : store_(std::move(store)) {}
  Store store_;
};

}  // namespace kernelarc::store
