#include "judge/call_reply.h"

#include <fmt/format.h>

#include <string>

namespace kernelarc::judge {

std::optional<Failure> failed_call(WorkerSession& session, const WorkerReply& reply) {
  const bool is_reference = session.runs_reference();
  const std::string who = is_reference ? "the reference " : "";
  if (reply.outcome == ReplyOutcome::timed_out) {
    session.ready = false;
    return Failure{is_reference ? Status::invalid_reference : Status::timeout,
                   fmt::format("{}call did not return: {}", who, reply.description)};
  }
  if (reply.outcome == ReplyOutcome::forged && !is_reference) {
    session.ready = false;
    return Failure{Status::reward_hack, fmt::format("call: {}", reply.description)};
  }
  if (reply.outcome != ReplyOutcome::ok) {
    session.ready = false;
    return Failure{is_reference ? Status::invalid_reference : Status::runtime_error,
                   fmt::format("{}call failed: {}{}", who, reply.description, session.tail())};
  }
  if (const int rc = reply.body.value("rc", -1); rc != 0)
    return Failure{is_reference ? Status::invalid_reference : Status::runtime_error,
                   fmt::format("{}entry point returned {} (0 means success)", who, rc)};
  if (const std::string change = reply.body.value("metadata", ""); !change.empty())
    return Failure{change.rfind("dtype:", 0) == 0 ? Status::incorrect_dtype : Status::incorrect_shape, change.substr(change.find(':') + 1)};
  return std::nullopt;
}

std::optional<Failure> work_outside_the_call(const nlohmann::json& reply_body) {
  // CUPTI sees every kernel, copy and memset of the process: none at all means the work was not done on the GPU,
  // copies and memsets alone that no kernel of the candidate's ran (the work went to the host).
  if (reply_body.value("records", -1) == 0)
    return Failure{Status::reward_hack, "the call put no work on the GPU (CUPTI recorded no kernel, copy or memset)"};
  if (reply_body.value("kernels", -1) == 0)
    return Failure{Status::reward_hack, fmt::format("no kernel ran on the GPU during the call (CUPTI recorded {} copies or memsets and no "
                                                    "kernel): the work was done somewhere else, the host say",
                                                    reply_body.value("records", 0))};
  if (const auto persisting = reply_body.value("persisting_l2_bytes", std::size_t{0}); persisting > 0)
    return Failure{Status::reward_hack,
                   fmt::format("set aside {} bytes of L2 for persisting accesses (cudaLimitPersistingL2CacheSize): data kept in "
                               "L2 through the judge's flush is not a cold-cache time",
                               persisting)};
  if (const int late = reply_body.value("late_records", 0); late > 0)
    return Failure{Status::reward_hack,
                   fmt::format("{} kernel(s) or copies kept running on another stream after the given stream was done: "
                               "join side streams to the stream argument (an event and cudaStreamWaitEvent) before returning",
                               late)};
  if (const int stray = reply_body.value("stray_kernels", 0); stray > 0)
    return Failure{Status::reward_hack,
                   fmt::format("{} kernel(s) started between calls, after an earlier call had returned: work left to a thread or "
                               "a callback escapes the timing; finish every launch before the entry point returns",
                               stray)};
  return std::nullopt;
}

}  // namespace kernelarc::judge
