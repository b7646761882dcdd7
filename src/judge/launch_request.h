// The "launch" of a bind request for a kernel-only candidate: its geometry over the workload's axes and the knobs.
#pragma once

#include <nlohmann/json.hpp>

#include "judge/judge.h"
#include "task/task.h"

namespace kernelarc::judge {

// Grid, block, shared bytes (with num_sms, the device's SM count, and the "let" bindings) and the kernel's scalar
// arguments (every var axis, in the definition's order), then the tensor maps to encode; throws with what does not
// evaluate or breaks CUDA's limits.
nlohmann::json launch_request(const task::Task& task, const task::ResolvedWorkload& resolved, const CandidateSource& candidate,
                              int num_sms);

}  // namespace kernelarc::judge
