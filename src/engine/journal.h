// A run's journal: what happened in it, in order, as typed events. The run is its one writer (journal::write) and
// everything that reads a run's history reads it back with journal::read (resume, export, report). A measurement is
// stored once, in the candidate's verdict rows: a `judged` event names the candidate and read() measures it from them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/brain.h"
#include "engine/controller.h"
#include "engine/paired_comparison.h"
#include "store/store.h"

namespace kernelarc::engine::journal {

struct Seat {
  std::string agent;
  std::string strategy;
};

struct RunStarted {
  nlohmann::json config;  // the run's options as recorded in its row (run_options_from_store reads them)
  std::vector<Seat> agents;
  std::vector<std::string> strategies() const;
};
struct RunResumed {
  int judged = 0, promotions = 0;
};
struct BudgetExtended {
  int from = 0, to = 0;
};
// A paired confirmation (engine/paired_comparison.h): the incumbent and a challenger timed interleaved.
struct PairedRecord {
  PairedOutcome outcome = PairedOutcome::lost;
  PairedResult result;
  std::optional<std::string> failure;  // why it could not be measured (outcome failed)
  double seconds = 0;
  std::vector<std::string> warnings;
};

struct Judged {
  std::int64_t number = 0;     // the run's own numbering: 1 is the starting candidate
  std::int64_t candidate = 0;  // the store's id
  std::string agent, strategy;
  Knobs knobs;
  Decision decision = Decision::rejected;  // the final one (after a second measurement when there was one)
  std::optional<std::string> source;       // a proposal's own source: resume needs it
  std::optional<ModelUsage> usage;
  double judge_seconds = 0;                // both measurements
  nlohmann::json phase_seconds;            // of the first measurement
  nlohmann::json conditions;               // the machine before and after; null when they were not read
  std::vector<std::string> measurement_warnings;
  std::optional<PairedRecord> paired;      // the paired confirmation that decided it, when there was one
  // Read back from the candidate's verdict rows, not from the event.
  Measured measured;
  std::optional<Measured> measured_again;
};
struct Promoted {
  std::int64_t candidate = 0;
  std::string agent;
  double from_ns = 0, to_ns = 0;
};
struct Sandbox {
  nlohmann::json walls;  // {"active": [...], "unavailable": [...]}
};
struct StartMeasuredAgain {  // the starting candidate judged again beside the best at the end (its only record)
  std::int64_t candidate = 0;
  Measured measured;
  double first_ns = 0, judge_seconds = 0;
  std::vector<std::string> measurement_warnings;
};
// A candidate screened (judge/screening.h): ranked, never decided. Its record is this event alone.
struct Screened {
  std::string agent, strategy, hypothesis;  // agent "incumbent": the incumbent screened as the reference of a round
  Knobs knobs;
  int fidelity = 0;                    // 0: a proposal's screening; 1: a survivor's longer one
  std::string outcome;                 // "measured", "wrong" or "failed"
  std::string reason;
  std::optional<double> time_ns;       // the geometric mean of the visible workloads' medians; none unless measured
  std::map<std::string, double> workload_ns;  // each screened workload's median, by uuid
  std::optional<double> incumbent_ns;  // the incumbent's screened time at the same fidelity it was compared with
  double seconds = 0;
  std::optional<std::string> source;   // a proposal's own source: resume needs it
  std::optional<ModelUsage> usage;
  std::map<std::string, double> phase_seconds;  // where the screening's time went (build, inputs, checks, timing, ...)
};
// A screening round closed: its fastest go on to a longer screening and the full judge. A round without one after it was
// cut short by a kill, and a resumed run takes it up again.
struct RoundClosed {
  int screened = 0;                    // the proposals screened in the round
  std::optional<double> incumbent_ns;  // the incumbent's screening they were ranked against
};
// The start and the best timed interleaved at the end: the final speed-up's reference.
struct StartPaired {
  std::int64_t start = 0, best = 0;  // the store's ids
  PairedRecord paired;
};
struct RunFinished {
  nlohmann::json result;  // as the run's row keeps it
};
struct ProposalFailed {
  std::string agent, strategy, why;
  int in_a_row = 0;
  bool retired = false;
  std::optional<ModelUsage> usage;
};
struct ProposalsDiscarded {
  std::map<std::string, ModelUsage> usage;  // by agent
};
struct AgentReassigned {
  std::string agent, from, to;
  int judged = 0;
  std::string reason;
};
struct Plateau {
  int judged = 0;
  std::size_t window = 0;
  double min_gain = 0;
  std::size_t history_size = 0;  // the controller's history when it was forced
  std::vector<std::string> strategies;  // as dealt again
  std::optional<std::int64_t> restart_from;  // the store's id of the backup the next proposal starts from
};

using Event = std::variant<RunStarted, RunResumed, BudgetExtended, Judged, Promoted, Sandbox, StartMeasuredAgain, RunFinished,
                           ProposalFailed, ProposalsDiscarded, AgentReassigned, Plateau, Screened, RoundClosed, StartPaired>;

// The event's kind as the store names it ("judged", "plateau", ...).
const char* kind_of(const Event& event);
// Appends the event to run `run_id`'s journal (no transaction of its own: the caller groups writes).
void write(store::Store& store, std::int64_t run_id, const Event& event);
// Run `run_id`'s journal, oldest first; throws std::runtime_error naming the event it cannot read.
std::vector<Event> read(const store::Store& store, std::int64_t run_id);

// An event read back with the store's id and time for it (what a report shows beside it).
struct Entry {
  std::int64_t id = 0;
  std::string created_at;
  Event event;
};
// As read, with each event's id and time.
std::vector<Entry> read_entries(const store::Store& store, std::int64_t run_id);
// One event read as read_entries reads it, for a reader that follows a run while it grows; throws as read does.
Entry read_entry(const store::Store& store, const store::EventRecord& record);

}  // namespace kernelarc::engine::journal
