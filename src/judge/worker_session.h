// One worker process of the judge's, in either role (the candidate's, or the reference's: a native library or the
// oracle), with its library loaded and one shared buffer mapped; set up again after any restart.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "judge/judge_failure.h"
#include "judge/shared_buffer.h"
#include "judge/worker_messages.h"
#include "judge/worker_process.h"

namespace kernelarc::judge {

// What moves with a call on a GPU (none of it on the CPU, where the shared buffer is the candidate's memory), and
// whether it is a call of the timing loop, whose message has the worker poison the outputs on the device.
struct CallPlan {
  bool inputs_in = true, outputs_in = true, everything_out = true;
  bool timed = false;
  // GPU correctness calls: the worker poisons the outputs on the device with this, and the output region (the
  // guards) goes up only when the session's device copy does not have it yet.
  std::optional<std::byte> device_poison;
  bool inputs_out = true;  // with everything_out: the inputs come back too, to be checked unchanged
};

// Whose code the worker runs: a failure of the reference's is the task's (INVALID_REFERENCE), never the candidate's.
enum class WorkerRole { candidate, reference };

struct WorkerSession {
  WorkerRole role = WorkerRole::candidate;
  bool on_gpu = false;                  // the buffer has a device copy: ranges move with upload and download
  WorkerProcess worker;
  std::optional<message::Load> load;    // a shared object, a cubin and its kernel, or the oracle's; none: nothing to load
  std::string timer;                    // how the worker timed its last call ("cupti", "events"; empty on the CPU)
  std::uint64_t mapped_generation = 0;  // which workload's buffer the worker has mapped
  message::Bind bind;
  std::optional<message::Sandbox> sandbox;  // sent before the candidate loads
  nlohmann::json sandbox_report;        // what the worker raised
  int sandboxed_start = -1;             // the worker process (by its start count) that raised it
  bool ready = false;
  bool outputs_placed = false;          // the device copy has the output region (guards) of the mapped workload
  int comparison_start = -1;            // the worker process (by its start count) that loaded the comparison kernel
  // When set, a new process is greeted first with this deadline: the oracle imports torch before it can answer.
  std::chrono::milliseconds start_deadline{0};
  // When set, the deadline of the load request: the oracle's candidate role imports a solution (Triton, say) or builds
  // its C++ sources with nvcc there.
  std::chrono::milliseconds load_deadline{0};

  // on_gpu: where the device's backend keeps the tensors in device memory.
  WorkerSession(WorkerOptions options, WorkerRole role);
  bool runs_reference() const { return role == WorkerRole::reference; }

  // Returns a failure when the library cannot be loaded or the worker cannot be set up.
  std::optional<Failure> prepare(const SharedBuffer& buffer, std::uint64_t generation, const message::Bind& binding,
                                 std::chrono::milliseconds deadline, Status load_failure_status);

  // "; its last output: ..." from the worker's log, or nothing: added to a failure's reason.
  std::string tail() const;
};

}  // namespace kernelarc::judge
