// What the judge says about a candidate: a status per workload with a reason an agent can act on.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "judge/cpu_compiler.h"
#include "judge/machine_conditions.h"
#include "task/roofline.h"

namespace kernelarc::judge {

// The names SOL-ExecBench uses, so results compare.
enum class Status {
  passed,
  compile_error,
  runtime_error,
  timeout,
  incorrect_shape,
  incorrect_dtype,
  incorrect_numerical,
  reward_hack,
  invalid_reference,
};

std::string_view status_name(Status status);  // "PASSED", "COMPILE_ERROR", ...
std::optional<Status> parse_status(std::string_view name);

// Where a workload's checks stopped: the build (forbidden calls, the compiler, the launch geometry), the reference (its
// build, a round's inputs or its outputs), a correctness round, the timed loop, or a call on inputs never given before.
enum class JudgePhase { build, reference, correctness, timing, unseen };

std::string_view phase_name(JudgePhase phase);  // "build", "reference", ...

// A failure's place as data: the phase, the round in it (a correctness round, or the k-th set of new inputs) and the
// candidate's call (the second call of round 0 is 1; in the timed loop the iteration, warm-up included); -1 where none.
struct FailurePlace {
  JudgePhase phase = JudgePhase::build;
  std::string workload_uuid;
  int round = -1;
  int call = -1;
};

struct TimingStats {
  std::vector<double> samples_ns;      // every timed call, in order, judge overhead removed
  std::vector<double> in_process_ns;   // the worker's own measurement of each call (on a GPU: device time)
  std::vector<double> event_ns;        // GPU only: events around each call with the whole device synchronised
  std::string timer;                   // "round trip" (CPU), "cupti" or "events" (GPU)
  double median_ns = 0;
  double min_ns = 0;
  double q1_ns = 0;
  double q3_ns = 0;
  double call_overhead_ns = 0;         // fastest round trip of an empty request, subtracted above
  double wall_per_iteration_ns = 0;    // what one timed iteration cost the judge, flush included
  double flush_ns = 0;                 // median cost of the cache flush before each timed call
  double judge_overhead_ns = 0;        // per timed iteration, beyond the flush and the call itself
  int input_slots = 0;                 // distinct input addresses the timed calls cycled through
  double event_median_ns = 0;          // GPU only: the median of event_ns, to compare with the primary timer
  std::vector<double> unseen_ns;       // calls on inputs the candidate was never given, timed the same way
  // CPU: what the candidate process's other threads ran between the judge's calls (while it flushed the caches, say),
  // added to the sample of the call each gap came before; nullopt where the process's CPU clock could not be read.
  std::optional<double> between_calls_ns;
  double spread() const { return q3_ns - q1_ns; }
};

struct WorkloadVerdict {
  std::string uuid;
  bool held_out = false;
  Status status = Status::passed;
  std::string reason;
  int rounds_passed = 0;        // of the rounds made as the benchmark makes inputs
  int extra_rounds_passed = 0;  // of the extra rounds of stricter inputs
  std::optional<TimingStats> timing;
  std::optional<task::RooflineEstimate> roofline;
  std::optional<double> baseline_ns;
  std::string baseline_source;  // how T_b was had: "torch eager" or "torch.compile" when measured, empty when given
  std::optional<double> score;
  std::vector<std::string> warnings;  // about the task rather than the candidate: a tolerance a degenerate answer passes
  std::optional<FailurePlace> failed_at;  // where the checks stopped, when status is not PASSED
};

struct CandidateVerdict {
  std::string name;
  // How the candidate ran: "native library (candidate ABI)", "kernel-only CUDA module", "python solution through the
  // oracle", "torch extension through the oracle".
  std::string kind;
  BuildResult build;
  std::vector<WorkloadVerdict> workloads;
  int worker_restarts = 0;
  int reused_rounds = 0;       // correctness rounds whose inputs and reference outputs came from the judge's cache
  double judge_seconds = 0;
  std::map<std::string, double> phase_seconds;  // where judge_seconds went: build, workers, inputs, calls, checks, ...
  nlohmann::json sandbox;      // the candidate worker's walls: {"active": [...], "unavailable": [...]}; null when none was raised
  // The machine before the first timed loop and after the last (nullopt when nothing was timed), and what moved between.
  std::optional<MachineConditions> conditions_before, conditions_after;
  std::vector<std::string> measurement_warnings;
  bool passed() const;
  std::optional<double> mean_score() const;  // over workloads with a score; nullopt if none
};

}  // namespace kernelarc::judge
