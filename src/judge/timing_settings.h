// What the judge's timing of one workload is given: its settings, and the hooks through which it calls the candidate,
// moves its buffers and checks its outputs (the rest of the judge owns the candidate's calls and the reference).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "judge/judge_failure.h"
#include "judge/reference_round.h"
#include "judge/verdict.h"
#include "judge/worker_session.h"

namespace kernelarc::judge {

// The judge's own cache flush before a timed call (it runs in the worker but is no part of the candidate's call) has
// this long at least, whatever the call's timeout: twice a large last-level cache is about 1 GiB (480 MiB of L3 on CI's
// VMs), written into fresh pages the first time, which on two busy cores outlasted a 3 s call timeout and failed an honest
// candidate. Its time is in no sample.
inline constexpr std::chrono::milliseconds kMinimumFlushTimeout{30000};
inline std::chrono::milliseconds flush_timeout(std::chrono::milliseconds call_timeout) {
  return call_timeout > kMinimumFlushTimeout ? call_timeout : kMinimumFlushTimeout;
}

struct TimingSettings {
  int warmup = 0;
  int iterations = 0;
  int rechecks = 0;
  int unseen_calls = 0;
  double roofline_margin = 1.0;
  std::size_t flush_bytes = 0;
  std::chrono::milliseconds call_timeout{0};
  std::uint64_t workload_seed = 0;
  std::string device_name;  // the peaks' device, named in a verdict below the speed of light
};

// What the protocol asks of the rest of the judge, which owns the candidate's calls and the reference.
struct TimingHooks {
  // The judge's own cost per call, taken off every sample (0 on a GPU, whose sample is the device's own time).
  std::function<std::optional<Failure>(double& call_overhead_ns)> call_overhead;
  // The k-th round of inputs for the calls on new inputs, with the reference's outputs: kept across candidates.
  std::function<std::optional<Failure>(int k, std::shared_ptr<const ReferenceRound>& round)> unseen_round;
  // One call of the candidate on a slot, with every way it can fail turned into a verdict.
  std::function<std::optional<Failure>(int slot, double* round_trip_ns, double* in_process_ns, double* event_ns, CallPlan plan)> call;
  // Moves a slot's inputs and/or the output region between the shared buffer and the GPU's copy of it.
  std::function<std::optional<Failure>(message::Direction direction, int slot, bool inputs, bool outputs)> transfer;
  // The output guards, then a slot's inputs against the image written there.
  std::function<std::optional<Failure>(int slot, const std::vector<std::byte>& image)> check_buffers;
  // The outputs against the reference's for the inputs given.
  std::function<std::optional<Failure>(const std::vector<std::vector<std::byte>>& reference)> compare;
  // Where the protocol is now (a round of new inputs, a call of the loop; -1 where none): a failure from here on happened there.
  std::function<void(JudgePhase phase, int round, int call)> entering;
};

}  // namespace kernelarc::judge
