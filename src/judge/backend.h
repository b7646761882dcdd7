// What differs from one kind of device to another, behind one interface: how a candidate is built, the walls its
// worker gets, the protocol's defaults, the device's peaks and whether it can be used here, how a worker takes a sample,
// and the device's own findings. The judge, the engine and the CLI ask the backend of their device (backend_for);
// nothing outside a backend's own folder (judge/cpu/, judge/cuda/) knows which devices this build has.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "judge/cpu_compiler.h"
#include "judge/judge_protocol.h"
#include "judge/sandbox.h"
#include "task/roofline.h"
#include "task/task.h"

namespace kernelarc::judge {

struct CandidateSource;  // judge/judge.h
class WorkerChannel;     // judge/worker_channel.h

using ProgressCallback = std::function<void(const std::string& line)>;

// A device as the command line names it: "cpu", or "cuda:N" ("cuda" alone is cuda:0).
struct DeviceName {
  std::string kind;  // "cpu" or "cuda": the backend, a template's device
  int ordinal = 0;
  std::string text() const;  // "cpu", "cuda:0"
};

// Peak rates given on the command line instead of measured (the CPU's; 0: not given).
struct PeakOverrides {
  double bandwidth_gbps = 0;
  double gflops = 0;
};

// `kernelarc calibrate`'s answer: the measurements as JSON, and the same for a person.
struct CalibrationReport {
  nlohmann::json json;
  std::string text;
};

class Backend {
 public:
  virtual ~Backend() = default;

  // --- The device and where it can be used
  virtual std::string kind() const = 0;          // "cpu", "cuda": DeviceName::kind, a template's device
  virtual std::string display_name() const = 0;  // "CPU", "CUDA": in sentences
  virtual std::string name_pattern() const = 0;  // "cpu", "cuda:N": in help texts and errors
  virtual std::string phrase() const = 0;        // "the CPU", "a GPU": "5 timed calls on a GPU"
  // Why its devices cannot be used on this machine (no driver, no GPU); nullopt when they can.
  virtual std::optional<std::string> unavailable_reason() const = 0;
  // The peaks T_sol is computed from (the CPU: measured once and cached, or overridden; a GPU: its datasheet's).
  // Throws std::runtime_error when they cannot be had. `say` hears of a slow measurement before it starts.
  virtual task::DevicePeaks peaks(int ordinal, const CompilerOptions& options, const PeakOverrides& overrides,
                                  const ProgressCallback& say) const = 0;
  // Measures the device's ceilings now and caches them (`kernelarc calibrate`). Throws std::runtime_error.
  virtual CalibrationReport calibrate(int ordinal, const ProgressCallback& say) const = 0;
  // Whether the device has a clock of its own that moves under load (a GPU's SM clock), and its value now, for the
  // machine's conditions around a timing (nullopt where it cannot be read).
  virtual bool reads_clock() const = 0;
  virtual std::optional<unsigned> clock_mhz(int ordinal) const = 0;

  // --- The protocol's defaults
  virtual JudgeProtocol protocol(ProtocolUse use) const = 0;
  // Whether a run's compile pool may build candidates while the judge times one (the device, not the host's cores,
  // is timed); false where the compilers would disturb the timing.
  virtual bool builds_while_timing() const = 0;

  // --- Building
  // Builds a candidate for this device; `host_compiler` is the judge's own (it builds the CPU's candidates and the
  // C++ reference), made with `options`. A candidate the device cannot run is a failed build that says why.
  virtual BuildResult build(const CandidateSource& candidate, const task::Task& task, const CpuCompiler& host_compiler,
                            const CompilerOptions& options) const = 0;
  // What the device's candidates are built for: a GPU's architecture from its compute capability ("sm_90a" on an H100 or
  // H200, "sm_100a" on a B200), its default where the device cannot be asked; empty on the CPU (-march=native).
  virtual std::string compile_target(int ordinal) const = 0;
  // The key of the task's native reference that runs on this device ("cuda"); nullopt: the C++ one, on the CPU.
  virtual std::optional<std::string> own_native_reference() const = 0;
  // Whether a built library may import dlopen and dlsym (the CUDA runtime linked into every GPU candidate needs them).
  virtual bool library_lookups_allowed() const = 0;

  // --- The candidate's worker: its walls, its environment, how it takes a sample
  // The device's changes to a candidate's walls, after the common ones (the runtime, its library, its own folder).
  virtual void adjust_candidate_policy(SandboxPolicy& policy) const = 0;
  // Whether a Python solution may start processes: a GPU's JITs (Triton, CuTe DSL) run tools of their own.
  virtual bool python_solution_children() const = 0;
  // Variables set for a candidate's worker: its own (kernelarc worker), or the oracle in its candidate role.
  virtual std::map<std::string, std::string> candidate_environment(bool in_oracle) const = 0;
  // Whether the worker keeps the tensors in device memory apart from the shared buffer (ranges then move with upload
  // and download, and the timing loop's inputs sit at other addresses on the device).
  virtual bool device_memory() const = 0;
  // `kernelarc worker --device DEVICE`: serves the judge's requests on `channel` until "quit"; the process exit code.
  virtual int serve_worker(WorkerChannel& channel, const DeviceName& device) const = 0;
};

// `device` ("cpu", "cuda", "cuda:N") as a name; nullopt for anything else, even a device this build cannot use.
std::optional<DeviceName> parse_device(const std::string& device);
// Every device name this build knows, for messages: "cpu or cuda:N".
std::string known_device_names();
// The backends this build has, the CPU's first (the CUDA one where the CUDA toolkit was found at build time).
std::vector<const Backend*> available_backends();
// The backend of `device`. Throws std::invalid_argument for a name it does not know ("unknown device \"tpu\"
// (expected cpu or cuda:N)"), std::runtime_error for a device whose backend this build lacks.
const Backend& backend_for(const std::string& device);
// The backend of `device`, or nullptr for a name it does not know or a device whose backend this build lacks.
const Backend* find_backend(const std::string& device);
// Why `device` cannot be used here: not a device name, no backend in this build, or its backend's reason; nullopt: usable.
std::optional<std::string> device_unavailable_reason(const std::string& device);

// The backends themselves. CMakeLists.txt compiles src/judge/cuda/cuda_backend.cpp where the CUDA toolkit is found and
// src/judge/cuda/cuda_backend_absent.cpp (nullptr) where it is not: the link chooses, so no source needs an #ifdef.
const Backend& cpu_backend();
const Backend* cuda_backend();

}  // namespace kernelarc::judge
