#include "judge/cpu/cpu_backend.h"

#include <fmt/format.h>
#include <unistd.h>

#include "judge/cpu/cpu_worker.h"
#include "judge/cpu_calibration.h"
#include "judge/judge.h"

namespace kernelarc::judge {

namespace fs = std::filesystem;

const Backend& cpu_backend() {
  static const CpuBackend backend;
  return backend;
}

task::DevicePeaks CpuBackend::peaks(int, const CompilerOptions& options, const PeakOverrides& overrides, const ProgressCallback& say) const {
  const CpuCompiler compiler(options);
  const fs::path cache = options.cache_directory.empty() ? default_cache_directory() : options.cache_directory;
  task::DevicePeaks peaks;
  if (overrides.bandwidth_gbps > 0 && overrides.gflops > 0) {
    peaks.name = "CPU " + cpu_model_name();
    peaks.source = "command line";
  } else if (auto cached = load_cpu_calibration(cache)) {
    peaks = *cached;
  } else {
    if (say) say(fmt::format("Calibrating this CPU once (copy bandwidth and fp32 rate; cached in {})...", cache.string()));
    peaks = calibrate_cpu(compiler);
    save_cpu_calibration(cache, peaks);
  }
  if (overrides.bandwidth_gbps > 0) peaks.bytes_per_second = overrides.bandwidth_gbps * 1e9;
  if (overrides.gflops > 0) peaks.flops_per_second["fp32"] = overrides.gflops * 1e9;
  with_cpu_matrix_rates(peaks);
  return peaks;
}

// A CPU has no tensor cores: a bf16, fp16 or fp8 GEMM task (roofline math tensor_core_*) runs there as fp32 FMAs on
// converted values, so the CPU judges it against its fp32 rate, a roofline it can reach, rather than refusing the task.
void with_cpu_matrix_rates(task::DevicePeaks& peaks) {
  const auto fp32 = peaks.flops_per_second.find("fp32");
  if (fp32 == peaks.flops_per_second.end()) return;
  for (const char* kind : {"tensor_core_bf16", "tensor_core_fp16", "tensor_core_fp8"}) peaks.flops_per_second[kind] = fp32->second;
}

CalibrationReport CpuBackend::calibrate(int, const ProgressCallback& say) const {
  const CpuCompiler compiler(CompilerOptions{});
  if (say) say("measuring copy bandwidth and fp32 throughput on all cores...");
  const auto peaks = calibrate_cpu(compiler);
  save_cpu_calibration(default_cache_directory(), peaks);
  CalibrationReport report;
  report.json = {{"name", peaks.name}, {"bytes_per_second", peaks.bytes_per_second}, {"flops_per_second", peaks.flops_per_second},
                 {"source", peaks.source}};
  report.text = fmt::format("{}\n  copy bandwidth  {:.1f} GB/s (read + write)\n  fp32 FMA rate   {:.1f} GFLOP/s\n  {}; cached in {}\n", peaks.name,
                            peaks.bytes_per_second / 1e9, peaks.flops_per_second.at("fp32") / 1e9, peaks.source,
                            default_cache_directory().string());
  return report;
}

// A run's search is lighter on the CPU: one call of a large workload takes milliseconds, and a candidate judged with
// the thorough protocol takes 15 to 30 s on two cores. One call on new inputs (three when measured again). The CPU's
// peaks are measured, not a datasheet's: a little headroom before a time below them is called a hack.
JudgeProtocol CpuBackend::protocol(ProtocolUse use) const {
  JudgeProtocol protocol;
  protocol.roofline_margin = 2.0;
  if (use == ProtocolUse::search) {
    protocol.rounds = 2;
    protocol.warmup = 1;
    protocol.iterations = 5;
    protocol.rechecks = 1;
    protocol.unseen_calls = 1;
  }
  if (use == ProtocolUse::screening) {  // to rank configurations: one round, a few timed calls, none of the hack checks' extra calls
    protocol.rounds = 1;
    protocol.warmup = 1;
    protocol.iterations = 5;
    protocol.rechecks = 0;
    protocol.unseen_calls = 0;
    protocol.stricter_rounds = false;
    protocol.checks_each_call = false;
  }
  return protocol;
}

BuildResult CpuBackend::build(const CandidateSource& candidate, const task::Task& task, const CpuCompiler& host_compiler,
                              const CompilerOptions&) const {
  if (candidate.form == task::TemplateForm::kernel) {
    BuildResult refused;
    refused.diagnostics = "a kernel-only candidate is CUDA device code: judge it with --device cuda:N";
    return refused;
  }
  std::vector<std::string> flags = task.definition.cflags;
  flags.insert(flags.end(), candidate.flags.begin(), candidate.flags.end());
  return host_compiler.build({candidate.source, flags, candidate.knobs});
}

// The CPU worker flushes the caches on its main thread before a timed call: a signal handler would run the candidate's
// code there, unseen by the clock of its other threads. Half the memory at most.
void CpuBackend::adjust_candidate_policy(SandboxPolicy& policy) const {
  policy.signal_handlers = false;
  policy.address_space_bytes = static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE)) / 2;
}

// Its own worker's main thread sleeps between requests instead of spinning, so the kernel has accounted its CPU time
// whenever the judge reads it: what the other threads do between calls is then read exactly. torch's OpenMP threads (in
// the oracle) sleep when idle instead of spinning: spinning after a call is work the judge's background check and the
// CPU clock of the candidate's other threads would count against it.
std::map<std::string, std::string> CpuBackend::candidate_environment(bool in_oracle) const {
  if (in_oracle) return {{"OMP_WAIT_POLICY", "PASSIVE"}};
  return {{"KERNELARC_WORKER_SPIN_MS", "0"}};
}

int CpuBackend::serve_worker(WorkerChannel& channel, const DeviceName&) const { return serve_cpu_worker(channel); }

}  // namespace kernelarc::judge
