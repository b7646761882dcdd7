// The CUDA backend: candidates built with NVRTC (kernel-only) or nvcc (full source), a sample taken on the device from
// CUPTI's activity records (events where CUPTI is missing), datasheet peaks, the driver loaded at run time. Compiled
// only where the CUDA toolkit is found (judge/backend.h says what a backend answers).
#pragma once

#include "judge/backend.h"

namespace kernelarc::judge::cuda {

class CudaBackend final : public Backend {
 public:
  std::string kind() const override { return "cuda"; }
  std::string display_name() const override { return "CUDA"; }
  std::string name_pattern() const override { return "cuda:N"; }
  std::string phrase() const override { return "a GPU"; }
  std::optional<std::string> unavailable_reason() const override;
  task::DevicePeaks peaks(int ordinal, const CompilerOptions& options, const PeakOverrides& overrides,
                          const ProgressCallback& say) const override;
  CalibrationReport calibrate(int ordinal, const ProgressCallback& say) const override;
  bool reads_clock() const override { return true; }
  std::optional<unsigned> clock_mhz(int ordinal) const override;
  JudgeProtocol protocol(ProtocolUse use) const override;
  bool builds_while_timing() const override { return true; }
  BuildResult build(const CandidateSource& candidate, const task::Task& task, const CpuCompiler& host_compiler,
                    const CompilerOptions& options) const override;
  std::string compile_target(int ordinal) const override;
  std::optional<std::string> own_native_reference() const override { return "cuda"; }
  bool library_lookups_allowed() const override { return true; }
  void adjust_candidate_policy(SandboxPolicy& policy) const override;
  bool python_solution_children() const override { return true; }
  std::map<std::string, std::string> candidate_environment(bool) const override { return {}; }
  bool device_memory() const override { return true; }
  int serve_worker(WorkerChannel& channel, const DeviceName& device) const override;
};

}  // namespace kernelarc::judge::cuda
