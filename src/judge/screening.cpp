#include "judge/screening.h"

#include <chrono>
#include <cmath>

namespace kernelarc::judge {

std::string_view screening_outcome_name(ScreeningOutcome outcome) {
  switch (outcome) {
    case ScreeningOutcome::measured: return "measured";
    case ScreeningOutcome::wrong: return "wrong";
    case ScreeningOutcome::failed: return "failed";
  }
  return "failed";
}

std::optional<double> Screening::geomean_ns(bool visible_only) const {
  if (outcome != ScreeningOutcome::measured) return std::nullopt;
  double log_sum = 0;
  int count = 0;
  for (const auto& row : workloads)
    if (row.timing && row.timing->median_ns > 0 && !(visible_only && row.held_out)) log_sum += std::log(row.timing->median_ns), ++count;
  if (count == 0) return std::nullopt;
  return std::exp(log_sum / count);
}

JudgeOptions screening_options(JudgeOptions base, std::optional<int> iterations) {
  base.use_protocol(backend_for(base.device).protocol(ProtocolUse::screening));
  if (iterations) base.iterations = *iterations;
  base.time_candidates = true;
  base.stop_at_first_failure = true;  // a wrong configuration is dropped at once
  base.torch_baseline = false;        // ranks by time alone: no T_b, no SOL score
  return base;
}

Screener::Screener(const task::Task& task, JudgeOptions options, task::DevicePeaks peaks)
    : task_(task), judge_(task, std::move(options), std::move(peaks)) {}

Screening Screener::screen(const CandidateSource& candidate, const ProgressCallback& progress) {
  const auto started = std::chrono::steady_clock::now();
  const CandidateVerdict verdict = judge_.evaluate(candidate, progress);
  Screening screening;
  screening.name = candidate.name;
  screening.knobs = candidate.knobs;
  screening.build = verdict.build;
  screening.phase_seconds = verdict.phase_seconds;
  screening.outcome = ScreeningOutcome::measured;
  for (const auto& workload : task_.workloads) {
    if (workload.held_out && !judge_.options().include_held_out) continue;
    ScreenedWorkload row;
    row.uuid = workload.uuid;
    row.held_out = workload.held_out;
    for (const auto& judged : verdict.workloads) {
      if (judged.uuid != workload.uuid) continue;
      row.status = judged.status;
      row.reason = judged.reason;
      if (judged.status == Status::passed) row.timing = judged.timing;
      if (judged.roofline) row.sol_ns = judged.roofline->seconds * 1e9;
      const bool wrong = judged.status == Status::incorrect_numerical || judged.status == Status::incorrect_shape ||
                         judged.status == Status::incorrect_dtype;
      if (judged.status != Status::passed && screening.outcome == ScreeningOutcome::measured)
        screening.outcome = wrong ? ScreeningOutcome::wrong : ScreeningOutcome::failed;
    }
    if (!row.status) row.reason = "not screened: dropped on an earlier workload";
    screening.workloads.push_back(std::move(row));
  }
  screening.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return screening;
}

}  // namespace kernelarc::judge
