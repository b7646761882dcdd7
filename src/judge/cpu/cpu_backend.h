// The CPU's backend: candidates built with the system C++ compiler, timed with the host's clock around the call, peaks
// measured once and cached (judge/backend.h says what a backend answers).
#pragma once

#include "judge/backend.h"

namespace kernelarc::judge {

class CpuBackend final : public Backend {
 public:
  std::string kind() const override { return "cpu"; }
  std::string display_name() const override { return "CPU"; }
  std::string name_pattern() const override { return "cpu"; }
  std::string phrase() const override { return "the CPU"; }
  std::optional<std::string> unavailable_reason() const override { return std::nullopt; }
  task::DevicePeaks peaks(int ordinal, const CompilerOptions& options, const PeakOverrides& overrides,
                          const ProgressCallback& say) const override;
  CalibrationReport calibrate(int ordinal, const ProgressCallback& say) const override;
  bool reads_clock() const override { return false; }
  std::optional<unsigned> clock_mhz(int) const override { return std::nullopt; }
  JudgeProtocol protocol(ProtocolUse use) const override;
  bool builds_while_timing() const override { return false; }
  BuildResult build(const CandidateSource& candidate, const task::Task& task, const CpuCompiler& host_compiler,
                    const CompilerOptions& options) const override;
  std::string compile_target(int) const override { return ""; }
  std::optional<std::string> own_native_reference() const override { return std::nullopt; }
  bool library_lookups_allowed() const override { return false; }
  void adjust_candidate_policy(SandboxPolicy& policy) const override;
  bool python_solution_children() const override { return false; }
  std::map<std::string, std::string> candidate_environment(bool in_oracle) const override;
  bool device_memory() const override { return false; }
  int serve_worker(WorkerChannel& channel, const DeviceName& device) const override;
};

// Adds the tensor-core math kinds to a CPU's peaks at its fp32 rate (a CPU multiplies bf16 as converted fp32).
void with_cpu_matrix_rates(task::DevicePeaks& peaks);

}  // namespace kernelarc::judge
