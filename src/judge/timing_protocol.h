// The timing protocol of one workload: the judge's own cost per call taken off, a warmed-up loop of flushed calls over
// the input variants in shifted slots, calls on inputs never given before at random places among them, outputs checked
// again on some of them, and the checks of the measurement itself (below the speed of light, faster on inputs seen
// before), measured again while load leaves them unclear.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "judge/buffer_layout.h"
#include "judge/judge_failure.h"
#include "judge/phase_clock.h"
#include "judge/reference_round.h"
#include "judge/timing_settings.h"
#include "judge/verdict.h"
#include "judge/worker_session.h"
#include "task/roofline.h"

namespace kernelarc::judge {

// On a GPU the variants go to the device once; the timed loop then refills a slot with a device-to-device copy
// (tens of microseconds) instead of a host write and an upload (tens of milliseconds for large inputs).
std::optional<Failure> upload_input_variants(WorkerSession& session, const SharedBuffer& buffer, const Layout& layout,
                                             const std::vector<std::shared_ptr<const ReferenceRound>>& variants,
                                             std::chrono::milliseconds call_timeout, PhaseClock& phases);

// The measurement (or a failure); `timing` holds the last measurement's statistics.
std::optional<Failure> run_timing_protocol(const TimingSettings& settings, const TimingHooks& hooks, WorkerSession& candidate_session,
                                           const SharedBuffer& buffer, const Layout& layout, const std::vector<std::byte>& guard,
                                           const std::vector<std::shared_ptr<const ReferenceRound>>& variants,
                                           const task::RooflineEstimate& roofline, std::optional<TimingStats>& timing_out,
                                           PhaseClock& phases, const std::function<void(const std::string&)>& say);

}  // namespace kernelarc::judge
