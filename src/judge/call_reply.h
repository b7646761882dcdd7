// A worker's reply to a "call" request read as the judge reads it: how the call failed (it did not return, crashed,
// was forged, returned non-zero, changed its outputs' metadata), and on a GPU what CUPTI saw of work done outside it.
#pragma once

#include <optional>

#include <nlohmann/json.hpp>

#include "judge/judge_failure.h"
#include "judge/worker_process.h"
#include "judge/worker_session.h"

namespace kernelarc::judge {

// The call's failure, if it failed; a worker that can no longer be trusted marks its session for a restart.
std::optional<Failure> failed_call(WorkerSession& session, const WorkerReply& reply);

// A candidate's call that put its work somewhere else than the call (the host, another stream, after it returned) or
// kept data in L2 through the flush: a REWARD_HACK.
std::optional<Failure> work_outside_the_call(const nlohmann::json& reply_body);

}  // namespace kernelarc::judge
