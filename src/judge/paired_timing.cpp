// Judge::time_paired: two candidates timed interleaved in one session, each call measured by the timing protocol's own
// pieces (judge/timed_calls.h) on the same inputs, after each candidate is checked through the correctness rounds' path.
#include "judge/paired_timing.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <memory>
#include <random>
#include <stdexcept>
#include <thread>

#include "common/hash.h"
#include "judge/candidate_workers.h"
#include "judge/forbidden_calls.h"
#include "judge/judge.h"
#include "judge/machine_conditions.h"
#include "judge/sample_statistics.h"
#include "judge/timed_calls.h"
#include "judge/workload_judgement.h"

namespace kernelarc::judge {

PairedTiming Judge::time_paired(const CandidateSource& first, const CandidateSource& second, int pairs, const ProgressCallback& progress) {
  if (pairs < 1) throw std::invalid_argument("a paired measurement needs at least one pair");
  const auto started = std::chrono::steady_clock::now();
  const auto say = [&](const std::string& line) {
    if (progress) progress(line);
  };
  PairedTiming result;
  const std::array<const CandidateSource*, 2> candidates{&first, &second};
  const std::array<const char*, 2> sides{"first", "second"};
  // A failure names the candidate; the samples measured before it are dropped (half a measurement decides nothing).
  const auto fail = [&](int side, const std::string& why) {
    result.failure = fmt::format("the {} candidate ({}): {}", sides[static_cast<std::size_t>(side)],
                                 candidates[static_cast<std::size_t>(side)]->name, why);
    result.workloads.clear();
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    say("  " + *result.failure);
    return result;
  };
  const auto failed = [](const Failure& failure, const FailurePlace& place) {
    return fmt::format("{} on workload {} ({}): {}", status_name(failure.status), place.workload_uuid, phase_name(place.phase), failure.reason);
  };

  // Evaluate's own gate (the build is a cache hit after evaluate).
  PhaseClock phases;
  std::array<BuildResult, 2> builds;
  for (int side = 0; side < 2; ++side)
    if (auto failure = pass_build_gate(*candidates[static_cast<std::size_t>(side)], builds[static_cast<std::size_t>(side)], phases, {}))
      return fail(side, fmt::format("{}: {}", status_name(failure->status), failure->reason));
  if (!reference_build_) build_reference(say);
  if (!reference_build_->ok) {
    result.failure = "the task's reference: INVALID_REFERENCE: " + reference_build_->diagnostics;
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return result;
  }

  // Each candidate in its own workers, set up as evaluate sets them up (walls, timeouts); the second kernel-only one gets
  // a worker of its own beside the kept one, which holds the first.
  const int evaluation = ++evaluations_;
  std::array<CandidateWorkers, 2> workers;
  for (int side = 0; side < 2; ++side)
    if (auto failure = set_up_workers(*candidates[static_cast<std::size_t>(side)], builds[static_cast<std::size_t>(side)],
                                      scratch_ / fmt::format("e{}-{}", evaluation, sides[static_cast<std::size_t>(side)]),
                                      workers[static_cast<std::size_t>(side)], side == 1))
      return fail(side, "RUNTIME_ERROR: " + *failure);

  std::vector<const task::Workload*> visible;
  for (const auto& workload : task_.workloads)
    if (!workload.held_out) visible.push_back(&workload);
  std::optional<MachineConditions> conditions_before;
  for (const task::Workload* workload : visible) {
    say(fmt::format("paired timing: workload {}/{} {}", result.workloads.size() + 1, visible.size(), workload->uuid));
    std::array<CandidateVerdict, 2> verdicts;  // what a judgement records besides its failure: not reported here
    std::array<std::unique_ptr<WorkloadJudgement>, 2> judgements;
    for (std::size_t side = 0; side < 2; ++side)
      judgements[side] = std::make_unique<WorkloadJudgement>(*this, *candidates[side], *workload, workload == visible.front(),
                                                             *workers[side].candidate, *workers[side].reference, verdicts[side], phases,
                                                             say, side == 0 ? "candidate" : "second-candidate", true);
    // Checked before it is timed: a wrong answer is never timed.
    for (int side = 0; side < 2; ++side) {
      auto& judgement = *judgements[static_cast<std::size_t>(side)];
      if (auto failure = judgement.check_for_timing()) return fail(side, failed(*failure, judgement.place()));
    }
    if (!conditions_before) conditions_before = read_machine_conditions(options_.device);
    std::array<std::unique_ptr<TimedCalls>, 2> calls;
    for (int side = 0; side < 2; ++side) {
      auto& judgement = *judgements[static_cast<std::size_t>(side)];
      if (auto failure = judgement.start_timed_calls(calls[static_cast<std::size_t>(side)])) return fail(side, failed(*failure, judgement.place()));
    }
    // As the protocol: a few pairs at random and the last have both outputs checked again; every call's outputs are
    // poisoned before it, so a candidate cannot tell which.
    std::mt19937_64 pick(common::mix64(options_.seed ^ common::fnv1a64("paired " + workload->uuid)));
    std::vector<bool> recheck(static_cast<std::size_t>(pairs), false);
    for (int i = 0; i < options_.rechecks; ++i) recheck[pick() % static_cast<std::uint64_t>(pairs)] = true;
    recheck.back() = true;
    PairedWorkload row{workload->uuid, {}, {}};
    // Call i of each candidate gets the same variant in the same slot. Warm-up calls first, then the pairs; the order
    // alternates (pair 0: first then second, pair 1: second then first, ...) so drift favours neither.
    for (int i = 0; i < options_.warmup_calls() + pairs; ++i) {
      const int pair = i - options_.warmup_calls();
      const bool timed = pair >= 0;
      const bool checked = timed && recheck[static_cast<std::size_t>(pair)];
      const bool first_leads = pair % 2 == 0;
      for (int k = 0; k < 2; ++k) {
        const int side = first_leads ? k : 1 - k;
        TimedSample sample;
        auto& judgement = *judgements[static_cast<std::size_t>(side)];
        if (auto failure = calls[static_cast<std::size_t>(side)]->loop_call(i, timed, checked, sample))
          return fail(side, failed(*failure, judgement.place()));
        if (timed) (side == 0 ? row.first_ns : row.second_ns).push_back(sample.ns);
      }
    }
    // A median below the speed of light is impossible: the timing was fooled (the protocol condemns it too).
    const double sol_ns = judgements[0]->roofline().floor_seconds * 1e9;  // T_sol with the outputs the cache holds left out
    for (int side = 0; side < 2; ++side) {
      const double median_ns = percentile(side == 0 ? row.first_ns : row.second_ns, 0.5);
      if (median_ns * options_.roofline_margin < sol_ns)
        return fail(side, fmt::format("REWARD_HACK on workload {} (paired timing): median {:.3f} us is below the speed-of-light time "
                                      "{:.3f} us ({}-bound on {}, the outputs the cache holds left out): impossible, so the timing was fooled",
                                      workload->uuid, median_ns / 1e3, sol_ns / 1e3, judgements[0]->roofline().bound, peaks_.name));
    }
    say(fmt::format("  medians {:.3f} us (first) and {:.3f} us (second) over {} pairs", percentile(row.first_ns, 0.5) / 1e3,
                    percentile(row.second_ns, 0.5) / 1e3, pairs));
    result.workloads.push_back(std::move(row));
  }
  if (conditions_before) {
    result.warnings = conditions_moved(*conditions_before, read_machine_conditions(options_.device), std::thread::hardware_concurrency());
    for (const auto& warning : result.warnings) say("  warning: " + warning);
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

}  // namespace kernelarc::judge
