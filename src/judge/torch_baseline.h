// T_b through the oracle: the PyTorch reference timed by the oracle itself (eager, then torch.compile where it exists),
// or read back from the cache folder where an earlier judge measured it with the same key.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "judge/baseline_cache.h"
#include "judge/phase_clock.h"
#include "judge/worker_session.h"

namespace kernelarc::judge {

struct TorchBaseline {
  std::optional<double> ns;  // none: the oracle could not time the reference (the score stays unknown)
  std::string source;        // "torch eager", "torch.compile"; empty after a failure (tried)
};

struct TorchBaselineProtocol {
  int warmup = 0, iterations = 0;
  std::size_t flush_bytes = 0;
  std::chrono::milliseconds call_timeout{0};
};

// `reference_call` is the reference's call request on the inputs the oracle has just been given; found in `cache` under
// `key`, or measured there and stored. `say` tells what was found or measured.
TorchBaseline measure_torch_baseline(WorkerSession& oracle, const message::Call& reference_call, const BaselineKey& key,
                                     const BaselineCache& cache, const TorchBaselineProtocol& protocol, PhaseClock& phases,
                                     const std::function<void(const std::string&)>& say);

}  // namespace kernelarc::judge
