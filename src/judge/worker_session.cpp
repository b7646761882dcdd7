#include "judge/worker_session.h"

#include <fmt/format.h>

#include "judge/backend.h"

namespace kernelarc::judge {

using nlohmann::json;

namespace {

// A device this build cannot use has no backend to ask: its worker refuses the device when it starts.
bool keeps_device_memory(const std::string& device) {
  const Backend* backend = find_backend(device);
  return backend && backend->device_memory();
}

}  // namespace

WorkerSession::WorkerSession(WorkerOptions options, WorkerRole role)
    : role(role), on_gpu(keeps_device_memory(options.device)), worker(std::move(options)) {}

std::optional<Failure> WorkerSession::prepare(const SharedBuffer& buffer, std::uint64_t generation, const message::Bind& binding,
                                                      std::chrono::milliseconds deadline, Status load_failure_status) {
  // The binding only changes with the workload, so the generation alone says whether it is current.
  if (ready && worker.running() && mapped_generation == generation) return std::nullopt;
  const bool restart = !worker.running() || !ready;
  const auto step = [&](const json& message, std::chrono::milliseconds step_deadline) -> std::optional<Failure> {
    const auto reply = worker.request(message, step_deadline);
    if (reply.ok()) return std::nullopt;
    if (reply.outcome == ReplyOutcome::refused)
      return Failure{load_failure_status, reply.description};
    return Failure{reply.outcome == ReplyOutcome::timed_out ? Status::timeout : Status::runtime_error,
                   fmt::format("while loading: {}{}", reply.description, tail())};
  };
  if (restart) {
    ready = false;
    if (start_deadline.count() > 0 && !worker.running()) {
      const auto reply = worker.request(message::Hello{}, start_deadline);
      if (!reply.ok())
        return Failure{reply.outcome == ReplyOutcome::refused ? load_failure_status : Status::runtime_error,
                       fmt::format("the worker did not start: {}{}", reply.description, tail())};
    }
    // Once per worker process: a sandbox cannot be raised twice (the filter forbids what raising it takes).
    if (sandbox && !(worker.running() && worker.starts() == sandboxed_start)) {
      const auto reply = worker.request(*sandbox, deadline);
      if (!reply.ok()) return Failure{Status::runtime_error, fmt::format("the worker could not raise its sandbox: {}{}", reply.description, tail())};
      sandbox_report = reply.body.value("sandbox", json());
      sandboxed_start = worker.starts();
    }
    if (load)
      if (auto failure = step(*load, load_deadline.count() > 0 ? load_deadline : deadline)) return failure;
  }
  if (restart || mapped_generation != generation) {
    outputs_placed = false;
    if (auto failure = step(message::Map{buffer.file().string(), buffer.size()}, deadline)) return failure;
  }
  if (auto failure = step(binding, deadline)) return failure;
  mapped_generation = generation;
  bind = binding;
  ready = true;
  return std::nullopt;
}

std::string WorkerSession::tail() const {
  const std::string text = worker.log_tail();
  return text.empty() ? "" : fmt::format("; its last output: \"{}\"", text);
}

}  // namespace kernelarc::judge
