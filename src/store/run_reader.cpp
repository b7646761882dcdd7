#include "store/run_reader.h"

#include <fmt/core.h>

#include "store/sqlite_statement.h"
#include "store/store_rows.h"

namespace kernelarc::store {

RunReader RunReader::open(const std::filesystem::path& file) { return RunReader(Store::open_read_only(file)); }

std::vector<CandidateRecord> RunReader::candidates(std::int64_t run_id) const {
  Statement select(store_.db_, fmt::format("SELECT {} FROM candidates WHERE run_id = ? ORDER BY id", rows::kCandidateColumnsWithoutSource),
                   "read candidates");
  select.bind(run_id);
  std::vector<CandidateRecord> out;
  while (select.step()) out.push_back(rows::candidate(select));
  return out;
}

std::vector<VerdictRecord> RunReader::verdicts_of_candidate(std::int64_t candidate_id) const {
  Statement select(store_.db_, fmt::format("SELECT {} FROM verdicts v WHERE v.candidate_id = ? ORDER BY v.id", rows::kVerdictColumns),
                   "read verdicts");
  select.bind(candidate_id);
  std::vector<VerdictRecord> out;
  while (select.step()) out.push_back(rows::verdict(select));
  return out;
}

std::int64_t RunReader::candidate_count(std::int64_t run_id) const {
  Statement count(store_.db_, "SELECT count(*) FROM candidates WHERE run_id = ?", "count candidates");
  count.bind(run_id);
  return count.step() ? count.int64(0) : 0;
}

}  // namespace kernelarc::store
