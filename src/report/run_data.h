// What `kernelarc report` shows of one run, read from the store: its judged candidates as the run's journal records them
// (engine::journal::read_entries, each time measured from its verdict rows by engine::measure), the best candidate's
// workloads against T_b and T_sol, the roofline, the board and the models' usage.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "engine/brain.h"
#include "engine/journal.h"
#include "store/run_reader.h"

namespace kernelarc::report {

// A run the store lacks, an evaluation where a run is needed, runs of different tasks in one comparison.
class ReportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One judged candidate as the charts see it.
struct CandidatePoint {
  std::int64_t id = 0;
  std::int64_t number = 0;  // 1 for the start
  std::string agent;
  std::string strategy;
  std::string decision;  // first, promoted, backup, rejected (or "eval")
  bool passed = false;
  double time_ns = 0;         // the visible workloads' geometric mean (the controller's time), 0 for a failure
  double incumbent_ns = 0;    // for first and promoted: the time it was promoted with
  std::optional<double> score;  // mean SOL score of the visible workloads
  double seconds = 0;           // since the run started
};

struct WorkloadRow {
  std::string uuid;
  bool held_out = false;
  std::optional<double> start_ns, best_ns, baseline_ns, sol_ns, score;
  std::string best_status;
  double flops = 0, bytes = 0;  // from the best's recorded roofline; 0: unknown
  std::string bound;            // "memory" or "compute"
};

struct RunData {
  store::RunRecord run;
  std::string task;
  std::vector<CandidatePoint> candidates;
  std::vector<store::ConclusionRecord> conclusions;
  std::vector<engine::journal::Entry> events;  // every journal event but judged (those are in candidates) and screened
  int screened = 0;                             // candidates screened (ranked, not judged): their screened events
  std::optional<store::CandidateRecord> best;  // with its source
  std::optional<std::int64_t> start_id;
  std::vector<WorkloadRow> workloads;
  double memory_roof = 0;                              // bytes/s from the recorded T_sol of memory-bound workloads
  std::vector<std::pair<std::string, double>> compute_roofs;  // FLOP/s from compute-bound ones
  using Usage = engine::ModelUsage;
  std::vector<std::pair<std::string, Usage>> usage;  // by agent
};

// Everything the page needs of one run. Throws ReportError for a run the store lacks or a journal it cannot read.
RunData load_run(const store::RunReader& reader, std::int64_t run_id);

// Seconds between two of the store's UTC timestamps ("2026-12-05T13:51:13.123Z"); 0 when either is malformed.
double seconds_between(const std::string& from, const std::string& to);

}  // namespace kernelarc::report
