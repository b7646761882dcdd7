// The correctness check of a call: its outputs against the reference's, each compared in fp32 within the workload's
// tolerance (NaN, Inf, all zeros and poison left unwritten fail), and after a second call on the same inputs what only
// two calls show: an element neither wrote, a difference beyond rounding (a race).
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "judge/buffer_layout.h"
#include "judge/judge_failure.h"
#include "judge/shared_buffer.h"
#include "task/task.h"

namespace kernelarc::judge {

using OutputBytes = std::vector<std::vector<std::byte>>;  // one copy per output, in the definition's order

// The first output that fails against the reference: INCORRECT_NUMERICAL naming it and the first bad index.
std::optional<Failure> check_outputs(const SharedBuffer& buffer, const Layout& layout, const task::Definition& definition,
                                     const task::ResolvedWorkload& resolved, const OutputBytes& reference,
                                     const task::Tolerance& tolerance, std::optional<std::byte> poison);

// After the second call on the first call's inputs (first poison kPoisonFirst, second kPoisonSecond): an element neither
// call wrote, then the outputs against the reference, then a difference between the two calls (REWARD_HACK).
std::optional<Failure> check_second_call(const OutputBytes& first, const SharedBuffer& buffer, const Layout& layout,
                                         const task::Definition& definition, const task::ResolvedWorkload& resolved,
                                         const OutputBytes& reference, const task::Tolerance& tolerance);

}  // namespace kernelarc::judge
