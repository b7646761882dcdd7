// One candidate's calls of a timing loop on one workload, each measured the one way the judge measures a timed call:
// its input variant put in a shifted slot, its outputs poisoned, the caches flushed, the sample taken by the protocol's
// clock (the device's time on a GPU; on the CPU the round trip less the judge's own cost per call, plus the CPU time the
// candidate's other threads used since its last reply), its outputs checked again when asked. On the CPU a slot holds
// its call's inputs only from the gap before that call: another thread's work on them is the gap's time or the call's.
// The timing protocol (judge/timing_protocol.h) and the paired measurement (judge/paired_timing.h) both use it.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "judge/buffer_layout.h"
#include "judge/judge_failure.h"
#include "judge/other_threads_clock.h"
#include "judge/phase_clock.h"
#include "judge/reference_round.h"
#include "judge/shared_buffer.h"
#include "judge/timing_settings.h"
#include "judge/worker_session.h"

namespace kernelarc::judge {

// What one timed call measured.
struct TimedSample {
  double ns = 0;             // the sample
  double in_process_ns = 0;  // the worker's clock around the call (on a GPU: the device's time)
  double event_ns = 0;       // GPU: events around the call with the whole device synchronised
};

class TimedCalls {
 public:
  // `call_overhead_ns`: the judge's own cost per call (hooks.call_overhead; 0 on a GPU), taken off every CPU sample.
  // The other threads' clock starts here: make it just before the loop's first call.
  TimedCalls(const TimingSettings& settings, const TimingHooks& hooks, WorkerSession& session, const SharedBuffer& buffer,
             const Layout& layout, const std::vector<std::byte>& guard, const std::vector<std::shared_ptr<const ReferenceRound>>& variants,
             double call_overhead_ns, PhaseClock& phases);

  // The variant the iteration-th call of a loop is given, in slot iteration % slots: each slot meets each variant in turn.
  int variant_for(int iteration) const;

  // The iteration-th call of a loop: its variant put in its slot (unless already there), the outputs poisoned, the caches
  // flushed when it is timed (the flush's round trip kept in flush_ns), the call, then when `checked` its outputs and
  // inputs against the reference's for its variant (wrong there is a REWARD_HACK).
  std::optional<Failure> loop_call(int iteration, bool timed, bool checked, TimedSample& sample);

  // The pieces of a call, for calls outside the loop's rotation (on new inputs).
  std::optional<Failure> flush(double& round_trip_ns);
  // `where` names the call in a failure's reason.
  std::optional<Failure> call(int slot, const std::string& where, TimedSample& sample, CallPlan plan);
  std::optional<Failure> verify(int slot, const ReferenceRound& given, const std::string& where, bool download);
  // Something else was written into the slot: the loop's next call there writes its variant again.
  void forget_slot(int slot) { slot_variant_[static_cast<std::size_t>(slot)] = -1; }

  const std::vector<double>& flush_ns() const { return flush_ns_; }
  // CPU: the other threads' time added to the samples so far; nullopt on a GPU or where their clock cannot be read.
  std::optional<double> between_calls_ns() const { return between_calls_ns_; }

 private:
  const TimingSettings settings_;
  const TimingHooks hooks_;
  WorkerSession& session_;
  const SharedBuffer& buffer_;
  const Layout& layout_;
  const std::vector<std::byte>& guard_;
  const std::vector<std::shared_ptr<const ReferenceRound>>& variants_;
  const double call_overhead_ns_;
  PhaseClock& phases_;
  const bool gpu_;
  const std::string flush_request_;
  // CPU: the slot's inputs overwritten with the poison, so that they are in place only from the gap before their call.
  void spoil_slot(int slot);

  std::vector<int> slot_variant_;  // the variant each slot holds, -1 where none
  std::vector<double> flush_ns_;
  // On the CPU, the CPU time the candidate's other threads used since the last call's reply (the judge wrote the next
  // inputs and flushed the caches meanwhile) is the call's too: work done in that gap is work the call did not show.
  OtherThreadsClock other_threads_;
  std::optional<double> other_threads_at_reply_;
  std::optional<double> between_calls_ns_;
};

}  // namespace kernelarc::judge
