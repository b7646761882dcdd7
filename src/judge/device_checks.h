// A screening's checks on a GPU for a kernel-only candidate (judge/screening.h): the worker keeps the workload's inputs
// and its reference outputs (between the guards) on the device, under a key of the judge's, from one candidate to the
// next; each candidate's call gets them by a copy on the device, and its outputs are compared there by the judge's
// kernel (judge/device_findings.h, judge/cuda/device_comparison.h). What crosses PCIe per call is the guards and a few
// numbers, not the inputs and outputs. The full judge never uses it: it compares on the host with every check of each
// call. A kernel can reach other device memory of its context, the kept bytes included: that can spoil the screenings
// after it, never the full judge's verdict.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "judge/buffer_layout.h"
#include "judge/judge_failure.h"
#include "judge/phase_clock.h"
#include "judge/reference_round.h"
#include "judge/shared_buffer.h"
#include "judge/worker_session.h"
#include "task/task.h"

namespace kernelarc::judge {

// Whether a workload's outputs can be compared on the device (every output's dtype decoded there).
bool device_checks_apply(const task::Definition& definition);

class DeviceChecks {
 public:
  // `key` names the workload's inputs and reference for the worker; `cubin_hex` is the comparison kernel's cubin.
  DeviceChecks(WorkerSession& session, const SharedBuffer& buffer, const Layout& layout, const std::vector<std::byte>& guard,
               const task::Definition& definition, const task::ResolvedWorkload& resolved, const task::Tolerance& tolerance,
               std::string key, const std::string& cubin_hex, std::chrono::milliseconds deadline, PhaseClock& phases);

  // The round's inputs into slot 0 and the output region (guards) into place on the device, kept there first when they
  // are not. `placed` false: the worker has no room to keep them, and the caller goes the host's way.
  std::optional<Failure> place(const ReferenceRound& round, bool& placed);
  // The kept inputs into the GPU's copy of variant slot `variant` (placed false: not kept, upload them instead).
  std::optional<Failure> place_variant(int variant, bool& placed);
  // After a call with outputs poisoned by `poison`: the guards brought back and checked, then the outputs compared with
  // the kept reference on the device.
  std::optional<Failure> check(std::optional<std::byte> poison);
  // The kept bytes dropped from the worker (an earlier kernel may have written over them), the next candidate keeps them
  // again; and nothing here is used after it.
  std::optional<Failure> forget();
  // Whether `reference` is the kept round's.
  bool keeps(const std::vector<std::vector<std::byte>>& reference) const { return kept_ && &kept_->reference == &reference; }

 private:
  std::optional<Failure> request(const nlohmann::json& message, nlohmann::json* body = nullptr);
  std::optional<Failure> restore(const std::vector<BufferCopy>& copies, bool& missing);

  WorkerSession& session_;
  const SharedBuffer& buffer_;
  const Layout& layout_;
  const std::vector<std::byte>& guard_;
  const task::Definition& definition_;
  const task::ResolvedWorkload& resolved_;
  const task::Tolerance& tolerance_;
  const std::string key_;
  const std::string& cubin_hex_;
  const std::chrono::milliseconds deadline_;
  PhaseClock& phases_;
  const ReferenceRound* kept_ = nullptr;  // the round whose inputs and reference the worker keeps
};

}  // namespace kernelarc::judge
