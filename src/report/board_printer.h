// The conclusions board as a reader sees it: the store's conclusions, newest first, as an aligned table for a
// terminal or as JSON for a program.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "store/store.h"

namespace kernelarc::report {

// An unknown run asked for.
class BoardError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct BoardQuery {
  std::optional<std::string> task;       // only this task's conclusions
  std::optional<std::int64_t> run_id;    // only this run's
  std::size_t limit = 0;                 // the newest N; 0: all
};

// Newest first (by id: every conclusion of a run is written in order). Without a task, every task any run of the
// store was on. Throws BoardError for a run the store lacks.
std::vector<store::ConclusionRecord> board_entries(const store::Store& store, const BoardQuery& query);

// One row per conclusion: id, run, task, strategy, change, outcome, effect (percent faster than the incumbent it was
// measured against; "-" where nothing was measured), lesson. Columns are as wide as their longest cell up to a cap;
// with `width` > 0 each row is cut to that many characters.
std::string board_table(const std::vector<store::ConclusionRecord>& entries, std::size_t width = 0);

// An array of objects: id, run, task, workload_class, strategy, change, outcome, effect (a fraction), lesson, created_at.
nlohmann::json board_json(const std::vector<store::ConclusionRecord>& entries);

}  // namespace kernelarc::report
