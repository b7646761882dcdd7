#include "judge/timing_protocol.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <random>

#include "common/hash.h"
#include "common/parallel.h"
#include "judge/sample_statistics.h"
#include "judge/timed_calls.h"
#include "judge/unseen_check.h"

namespace kernelarc::judge {

using nlohmann::json;

namespace {

constexpr int kTimingAttempts = 4;  // at most: measured again while load leaves the content check unclear or thin
constexpr double kUnseenFalseAlarm = 1e-3;  // answers kept by content condemn when load alone would explain them less often

}  // namespace

std::optional<Failure> upload_input_variants(WorkerSession& session, const SharedBuffer& buffer, const Layout& layout,
                                             const std::vector<std::shared_ptr<const ReferenceRound>>& variants,
                                             std::chrono::milliseconds call_timeout, PhaseClock& phases) {
  const auto moving = phases.measure("transfers");
  message::Transfer upload{message::Direction::upload, {}};
  for (std::size_t v = 0; v < variants.size(); ++v) {
    const std::size_t at = layout.variant_base(static_cast<int>(v));
    common::copy_bytes(buffer.data() + at, variants[v]->slot_image.data(), variants[v]->slot_image.size());
    upload.ranges.push_back({at, layout.slot_bytes});
  }
  const auto reply = session.worker.request(upload, call_timeout);
  if (!reply.ok()) {
    session.ready = false;
    return Failure{Status::runtime_error, fmt::format("upload of the input variants failed: {}{}", reply.description, session.tail())};
  }
  return std::nullopt;
}

std::optional<Failure> run_timing_protocol(const TimingSettings& settings, const TimingHooks& hooks, WorkerSession& candidate_session,
                                           const SharedBuffer& buffer, const Layout& layout, const std::vector<std::byte>& guard,
                                           const std::vector<std::shared_ptr<const ReferenceRound>>& variants,
                                           const task::RooflineEstimate& roofline, std::optional<TimingStats>& timing_out,
                                           PhaseClock& phases, const std::function<void(const std::string&)>& say) {
  const bool gpu = candidate_session.on_gpu;
  const int warmup = settings.warmup;  // one at least (JudgeOptions::warmup_calls)
  const int total_calls = warmup + settings.iterations;
  // Timing. The judge's own cost per call (request, cold caches after the flush, reply) is measured
  // first with an empty entry point on the same path, and taken off every sample. A measurement below the
  // speed of light is taken again once before it condemns: load from other processes in the probes' window
  // and not the timed calls' can put one measurement there, a fooled timer puts every one there.
  double first_median_ns = 0, first_unseen_fastest_ns = 0;
  std::optional<double> below_light_median_ns;  // the first measurement below the speed of light, if one was
  int unseen_compared = 0;  // calls on new inputs compared so far, over every measurement (each one slower, or it passed)
  double unseen_by_load = 1;  // the chance that load alone made every one of them slower
  const auto timing_loop = phases.measure("timing");
  for (int attempt = 1;; ++attempt) {
    hooks.entering(JudgePhase::timing, -1, -1);
    double call_overhead_ns = 0;
    if (auto failure = hooks.call_overhead(call_overhead_ns)) return failure;
    TimingStats timing;
    timing.call_overhead_ns = call_overhead_ns;
    timing.input_slots = layout.slots;
    timing.timer = gpu ? "" : "round trip";
    std::mt19937_64 pick(common::mix64(settings.workload_seed + 99));
    std::vector<int> recheck;
    for (int i = 0; i < settings.rechecks; ++i)
      recheck.push_back(warmup + static_cast<int>(pick() % static_cast<std::uint64_t>(settings.iterations)));
    recheck.push_back(total_calls - 1);  // the last call is always checked
    // Inputs it was never given: the loop reuses the correctness rounds' inputs, so a candidate that keeps its answers
    // keyed on the content would replay them there. A few more calls get new inputs, at random places among the timed
    // calls (so both meet the same load), timed and checked the same way; the fastest of them must not take more than
    // twice the loop's median. Their reference runs first, before any timed call.
    std::vector<std::shared_ptr<const ReferenceRound>> unseen;
    std::vector<int> unseen_before;  // the timed iteration each call on new inputs comes before, in order
    // Kept for the next candidates like the rounds: each runs in a new process with an emptied TMPDIR, so none has seen
    // them. Three times as many when measuring again: a false alarm then needs every one of them slowed by load. New
    // ones each time: a cache has kept the answers of the last measurement's.
    const int first_unseen = attempt == 1 ? 0 : settings.unseen_calls * (1 + 3 * (attempt - 2));
    {
      const int calls = settings.unseen_calls * (attempt == 1 ? 1 : 3);
      for (int k = first_unseen; k < first_unseen + calls; ++k) {
        hooks.entering(JudgePhase::unseen, k, -1);
        if (auto failure = hooks.unseen_round(k, unseen.emplace_back())) return failure;
        unseen_before.push_back(warmup + static_cast<int>(pick() % static_cast<std::uint64_t>(settings.iterations)));
      }
      std::sort(unseen_before.begin(), unseen_before.end());
    }
    std::size_t unseen_done = 0;
    std::vector<std::size_t> unseen_next_sample;  // for each call on new inputs, the index of the loop's sample after it
    TimedCalls calls(settings, hooks, candidate_session, buffer, layout, guard, variants, timing.call_overhead_ns, phases);
    auto timing_started = std::chrono::steady_clock::now();
    for (int iteration = 0; iteration < total_calls; ++iteration) {
      if (iteration == warmup) timing_started = std::chrono::steady_clock::now();
      const int slot = iteration % layout.slots;
      for (; unseen_done < unseen_before.size() && unseen_before[unseen_done] == iteration; ++unseen_done) {
        const ReferenceRound& fresh = *unseen[unseen_done];
        write_slot(buffer, layout, slot, fresh.slot_image);
        calls.forget_slot(slot);  // to be written again for the loop's own call
        // On a GPU the new inputs go up before the flush, and the worker poisons the outputs before its clock starts.
        CallPlan plan{false, false, true, !gpu, std::nullopt};
        if (gpu) plan.device_poison = kPoisonFirst;
        else prepare_outputs(buffer, layout, guard, kPoisonFirst);
        if (auto failure = hooks.transfer(message::Direction::upload, slot, true, false)) return failure;
        double flushed = 0;  // not a call of the loop: its flush is not the loop's
        if (auto failure = calls.flush(flushed)) return failure;
        hooks.entering(JudgePhase::unseen, first_unseen + static_cast<int>(unseen_done), iteration);
        TimedSample sample;
        if (auto failure = calls.call(slot, "a call on new inputs", sample, plan)) return failure;
        timing.unseen_ns.push_back(sample.ns);
        unseen_next_sample.push_back(timing.samples_ns.size());
        if (auto failure = calls.verify(slot, fresh, "a call on new inputs", false)) return failure;
      }
      const bool timed = iteration >= warmup;
      const bool checked = std::find(recheck.begin(), recheck.end(), iteration) != recheck.end();
      TimedSample sample;
      if (auto failure = calls.loop_call(iteration, timed, checked, sample)) return failure;
      if (timed) {
        timing.samples_ns.push_back(sample.ns);
        timing.in_process_ns.push_back(sample.in_process_ns);
        if (gpu) timing.event_ns.push_back(sample.event_ns);
      }
    }
    timing.between_calls_ns = calls.between_calls_ns();
    const std::vector<double>& flush_ns = calls.flush_ns();
    hooks.entering(JudgePhase::timing, -1, -1);
    timing.wall_per_iteration_ns =
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - timing_started).count() / settings.iterations;
    timing.flush_ns = percentile(flush_ns, 0.5);
    const auto mean = [](const std::vector<double>& values) {
      double total = 0;
      for (double value : values) total += value;
      return total / static_cast<double>(values.size());
    };
    timing.judge_overhead_ns = timing.wall_per_iteration_ns - mean(flush_ns) - mean(timing.samples_ns);
    timing.median_ns = percentile(timing.samples_ns, 0.5);
    if (gpu) {
      timing.event_median_ns = percentile(timing.event_ns, 0.5);
      timing.timer = candidate_session.timer;
    }
    timing.q1_ns = percentile(timing.samples_ns, 0.25);
    timing.q3_ns = percentile(timing.samples_ns, 0.75);
    timing.min_ns = *std::min_element(timing.samples_ns.begin(), timing.samples_ns.end());
    const double sol_ns = roofline.seconds * 1e9, floor_ns = roofline.floor_seconds * 1e9;
    const bool below_light = timing.median_ns * settings.roofline_margin < floor_ns;
    // The fastest call on new inputs: a cache misses on every one of them, while load slows only some.
    const double unseen_fastest_ns = timing.unseen_ns.empty() ? 0 : *std::min_element(timing.unseen_ns.begin(), timing.unseen_ns.end());
    // Each call on new inputs against the median and the loop's calls just before and after it: load that lasts a while
    // slows those neighbours too (an honest 2 us softmax was condemned under CI's load when only the median was the
    // bar), while a cache's neighbours are its hits. A neighbour slowed by load leaves its pair out (it hid a cache).
    const UnseenCheck unseen_check = check_unseen_calls(timing.samples_ns, timing.median_ns, timing.unseen_ns, unseen_next_sample);
    unseen_compared += unseen_check.compared;
    unseen_by_load *= std::pow(unseen_check.load_rate, unseen_check.compared);
    timing_out = timing;
    if (attempt == 1) first_median_ns = timing.median_ns, first_unseen_fastest_ns = unseen_fastest_ns;
    // Taken again once before it condemns: load in one window can put one measurement there.
    if (below_light && !below_light_median_ns) {
      below_light_median_ns = timing.median_ns;
      continue;
    }
    if (below_light)
      return Failure{Status::reward_hack,
                     fmt::format("median {:.3f} us (then {:.3f} us measured again) is below the speed-of-light time {:.3f} us "
                                 "({}-bound on {}{}): impossible, so the timing was fooled",
                                 *below_light_median_ns / 1e3, timing.median_ns / 1e3, floor_ns / 1e3, roofline.bound, settings.device_name,
                                 floor_ns < sol_ns ? fmt::format(", the outputs the cache holds left out of T_sol {:.3f} us", sol_ns / 1e3) : "")};
    if (unseen_check.finding == UnseenFinding::not_slower || timing.unseen_ns.empty()) return std::nullopt;
    if (unseen_check.finding == UnseenFinding::slower && attempt > 1 && unseen_by_load < kUnseenFalseAlarm)
      return Failure{Status::reward_hack,
                     fmt::format("faster on inputs it has been given before: each of {} calls on new inputs (over {} measurements, "
                                 "those whose neighbours load left alone; load alone would do that {:.0e} of the time) took more "
                                 "than twice as long as the loop's calls beside them; the fastest took {:.3f} us (first {:.3f} us) "
                                 "against a median of {:.3f} us (first {:.3f} us) on inputs the correctness rounds had shown it: "
                                 "answers kept from earlier calls are not work done",
                                 unseen_compared, attempt, unseen_by_load, unseen_fastest_ns / 1e3, first_unseen_fastest_ns / 1e3,
                                 timing.median_ns / 1e3, first_median_ns / 1e3)};
    if (attempt < kTimingAttempts) continue;
    // Out of measurements with too little to compare: no verdict of caching without the evidence.
    say(fmt::format("  content check inconclusive after {} measurements: load slowed the loop or the neighbours of the calls on "
                    "new inputs ({} compared, all slower; load alone would do that {:.0e} of the time)",
                    attempt, unseen_compared, unseen_by_load));
    return std::nullopt;
  }
}

}  // namespace kernelarc::judge
