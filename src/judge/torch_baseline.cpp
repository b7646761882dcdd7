#include "judge/torch_baseline.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "judge/sample_statistics.h"

namespace kernelarc::judge {

using nlohmann::json;

TorchBaseline measure_torch_baseline(WorkerSession& oracle, const message::Call& reference_call, const BaselineKey& key,
                                     const BaselineCache& cache, const TorchBaselineProtocol& protocol, PhaseClock& phases,
                                     const std::function<void(const std::string&)>& say) {
  if (const auto cached = cache.find(key)) {
    say(fmt::format("  T_b {:.3f} us ({}, measured earlier with torch {}: {})", cached->ns / 1e3, cached->source, key.torch_version,
                    (cache.directory() / (key.hash() + ".json")).string()));
    return {cached->ns, cached->source};
  }
  const auto timing_baseline = phases.measure("baseline");
  const message::TimeBaseline request{reference_call, protocol.warmup, protocol.iterations, protocol.flush_bytes};
  const auto reply = oracle.worker.request(request, protocol.call_timeout * (protocol.warmup + protocol.iterations) * 2 + std::chrono::minutes(5));
  const auto median_of = [&](const char* name) -> std::optional<double> {
    const auto found = reply.body.find(name);
    if (found == reply.body.end() || !found->is_array() || found->empty()) return std::nullopt;
    return std::max(percentile(found->get<std::vector<double>>(), 0.5) - reply.body.value("call_overhead_ns", 0.0), 0.0);
  };
  const auto eager = median_of("eager_ns"), compiled = median_of("compile_ns");
  TorchBaseline measured;
  if (reply.ok() && eager) {
    const bool compile_wins = compiled && *compiled < *eager;
    measured = {compile_wins ? *compiled : *eager, compile_wins ? "torch.compile" : "torch eager"};
    cache.store(key, {*measured.ns, measured.source});
    say(fmt::format("  T_b {:.3f} us ({}, {}; eager {:.3f} us, torch.compile {})", *measured.ns / 1e3, measured.source,
                    reply.body.value("timer", std::string("?")), *eager / 1e3,
                    compiled ? fmt::format("{:.3f} us", *compiled / 1e3) : reply.body.value("compile_why", std::string("-"))));
  } else {
    say(fmt::format("  no T_b: the oracle could not time the reference: {}", reply.ok() ? "no samples" : reply.description));
  }
  return measured;
}

}  // namespace kernelarc::judge
