// One workload of one candidate, judged as the protocol goes: its buffers and bindings, the correctness rounds (each
// round's reference first, on its own copy of the inputs; one extra round per stricter regime), then the timing
// protocol. A failure carries where it happened (FailurePlace) besides its reason.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "judge/buffer_layout.h"
#include "judge/device_checks.h"
#include "judge/input_generator.h"
#include "judge/judge.h"
#include "judge/judge_failure.h"
#include "judge/phase_clock.h"
#include "judge/reference_round.h"
#include "judge/shared_buffer.h"
#include "judge/timed_calls.h"
#include "judge/timing_settings.h"
#include "judge/verdict.h"
#include "judge/worker_session.h"
#include "task/task.h"

namespace kernelarc::judge {

class WorkloadJudgement {
 public:
  // `judge` keeps what outlives a candidate (rounds, buffers, baselines, the probe worker); `first` is the candidate's
  // first workload, the one whose worker threads are looked at on a GPU. `buffer_side` names the candidate's buffer among
  // the judge's kept ones ("candidate"; "second-candidate" for the second of a paired measurement, in a folder the first
  // cannot reach: Judge::workload_buffer); `paired`: made for a paired measurement (judge/paired_timing.h), so laid out
  // for timing whatever the options say.
  WorkloadJudgement(Judge& judge, const CandidateSource& candidate, const task::Workload& workload, bool first,
                    WorkerSession& candidate_session, WorkerSession& reference_session, CandidateVerdict& verdict, PhaseClock& phases,
                    ProgressCallback say, const std::string& buffer_side = "candidate", bool paired = false);

  // The workload's row of the verdict.
  WorkloadVerdict run();

  // For a paired measurement: the workload set up and the candidate checked, through the correctness rounds' own path,
  // on the rounds whose inputs its timed calls then cycle through (the stricter extra rounds are left to the verdict).
  std::optional<Failure> check_for_timing();
  // Then its timed calls, each measured as the timing protocol measures its own (the judge's own cost per call probed
  // first, the variants uploaded on a GPU). `calls` refers to this judgement: it must not outlive it.
  std::optional<Failure> start_timed_calls(std::unique_ptr<TimedCalls>& calls);
  // Where the last failure happened, and the workload's speed of light.
  const FailurePlace& place() const { return place_; }
  const task::RooflineEstimate& roofline() const { return *row_.roofline; }

 private:
  std::optional<Failure> set_up();
  // The first `rounds` benchmark rounds, then (when `stricter`) one extra round per stricter regime.
  std::optional<Failure> correctness(int rounds, bool stricter);
  std::optional<Failure> correctness_round(int round, InputRegime regime, const ReferenceRound& given);
  std::optional<Failure> timing();
  TimingSettings timing_settings() const;
  TimingHooks timing_hooks();
  std::optional<Failure> call_overhead(double& call_overhead_ns);

  // A round: inputs generated from a seed, then the reference's outputs on its own copy of them.
  std::optional<Failure> make_round(std::uint64_t round_seed, std::shared_ptr<const ReferenceRound>& made,
                                    InputRegime regime = InputRegime::benchmark);
  std::optional<Failure> make_custom_inputs(const std::vector<std::size_t>& which, const nlohmann::json& axes_and_scalars,
                                            std::uint64_t round_seed);
  // The workload's first benchmark round: degenerate answers its tolerance accepts, then T_b once.
  std::optional<Failure> check_tolerance(const ReferenceRound& made);
  void measure_baseline();

  // The session's worker started, its buffer mapped and its candidate (or the reference) loaded and bound.
  std::optional<Failure> prepare(WorkerSession& session);
  // One call through a session, with every way it can fail turned into a verdict (the reference's as the task's, by its role).
  std::optional<Failure> call(WorkerSession& session, int slot, double* round_trip_ns, double* in_process_ns, double* event_ns = nullptr,
                              CallPlan plan = {});
  // Moves a slot's inputs and/or the output region between the shared buffer and the GPU's copy of it.
  std::optional<Failure> transfer(WorkerSession& session, message::Direction direction, const Layout& layout, int slot, bool inputs,
                                  bool outputs);
  std::optional<Failure> check_output_guards(const SharedBuffer& buffer, const Layout& layout);
  std::optional<Failure> check_inputs(const SharedBuffer& buffer, const Layout& layout, int slot, const std::vector<std::byte>& image);
  std::optional<Failure> compare(const std::vector<std::vector<std::byte>>& reference, std::optional<std::byte> poison);
  void at(JudgePhase phase, int round, int call) { place_ = {phase, workload_.uuid, round, call}; }

  Judge& judge_;
  const JudgeOptions& options_;
  const task::Definition& definition_;
  const CandidateSource& candidate_;
  const task::Workload& workload_;
  const bool first_;
  WorkerSession& candidate_session_;
  WorkerSession& reference_session_;
  CandidateVerdict& verdict_;
  PhaseClock& phases_;
  ProgressCallback say_;
  std::string buffer_side_;
  WorkloadVerdict row_;
  task::ResolvedWorkload resolved_;
  std::uint64_t workload_seed_ = 0;
  Layout layout_, reference_layout_;
  std::vector<std::byte> guard_;
  std::uint64_t generation_ = 0;
  std::size_t workload_index_ = 0;
  bool gpu_ = false;
  SharedBuffer uncached_buffer_, uncached_reference_buffer_;  // a buffer outside the cache's budget, for this workload only
  SharedBuffer* buffer_ = nullptr;
  SharedBuffer* reference_buffer_ = nullptr;  // made when a round is not in the cache: the reference runs then only
  message::Bind binding_, candidate_binding_;
  // Serialised once per slot: building JSON inside the timed loop costs tens of microseconds a call.
  std::vector<std::string> candidate_calls_, timed_calls_;
  message::Call reference_call_;
  std::vector<std::shared_ptr<const ReferenceRound>> variants_;  // the rounds whose inputs the timed calls cycle through
  std::optional<DeviceChecks> device_checks_;  // a screening of a kernel-only candidate on a GPU: round 0 kept and compared there
  FailurePlace place_;
};

}  // namespace kernelarc::judge
