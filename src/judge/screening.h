// Screening: a light measurement of a candidate, to rank many configurations before any is judged in full. The judge's
// own protocol and sandboxed worker with the backend's screening settings (ProtocolUse::screening): one correctness
// round per workload against the reference, then a few timed calls with the caches flushed (CUPTI on a GPU). A
// candidate wrong on a workload is dropped there: the workloads after it are not measured. Screening ranks; it never
// decides: nothing screened becomes an incumbent or a backup without the full judge.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "judge/judge.h"

namespace kernelarc::judge {

// What became of a screened candidate as a whole.
enum class ScreeningOutcome {
  measured,  // correct on every workload screened, each with a time
  wrong,     // a wrong answer (shape, dtype, numbers) on a workload: dropped there
  failed,    // it did not build, crashed, hung, or broke a rule of the judge: dropped there
};

std::string_view screening_outcome_name(ScreeningOutcome outcome);  // "measured", "wrong", "failed"

struct ScreenedWorkload {
  std::string uuid;
  bool held_out = false;
  std::optional<Status> status;  // none: not screened, the candidate was dropped on an earlier workload
  std::string reason;
  std::optional<TimingStats> timing;  // a passed workload's timed calls
  std::optional<double> sol_ns;       // the workload's speed-of-light time on the device's peaks
};

struct Screening {
  std::string name;  // the candidate's
  std::map<std::string, std::int64_t> knobs;
  ScreeningOutcome outcome = ScreeningOutcome::failed;
  std::vector<ScreenedWorkload> workloads;  // every workload of the screener's task, in its order
  BuildResult build;
  double seconds = 0;  // the whole screening, build included
  std::map<std::string, double> phase_seconds;  // where that time went, as the judge's verdict says (build, inputs, checks, timing, ...)
  // The geometric mean of the workloads' medians (held-out ones left out when `visible_only`); none unless measured.
  std::optional<double> geomean_ns(bool visible_only = false) const;
};

// The judge options of a screening: the backend's screening protocol over `base` (device, reference, seed, ...), timed
// calls set to `iterations` when given, the workloads after a failure left out.
JudgeOptions screening_options(JudgeOptions base, std::optional<int> iterations = std::nullopt);

class Screener {
 public:
  // `options` as screening_options makes them; the task must outlive the screener.
  Screener(const task::Task& task, JudgeOptions options, task::DevicePeaks peaks);
  Screener(task::Task&& task, JudgeOptions options, task::DevicePeaks peaks) = delete;  // a temporary would not outlive it

  Screening screen(const CandidateSource& candidate, const ProgressCallback& progress = {});
  // Builds into the cache ahead of screen (safe from several threads, as Judge::build).
  BuildResult build(const CandidateSource& candidate) const { return judge_.build(candidate); }
  const JudgeOptions& options() const { return judge_.options(); }
  // Reads and keeps its rounds in `judge`'s (Judge::share_rounds_with): a run's screenings make no input or reference again.
  void share_rounds_with(const Judge& judge) { judge_.share_rounds_with(judge); }

 private:
  const task::Task& task_;
  Judge judge_;  // its rounds, reference and workers are kept from one candidate to the next
};

}  // namespace kernelarc::judge
