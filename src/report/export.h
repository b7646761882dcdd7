// Exports of a judged candidate from the store: the kernel as one self-contained source file, or a SOL-ExecBench
// solution.json (docs/SOL_EXECBENCH.md) with a torch binding generated around the candidate ABI. Only a candidate
// that passed every workload it was judged on is exported.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "store/store.h"

namespace kernelarc::report {

// Why nothing can be exported: an unknown run or candidate, a candidate that failed, a CPU candidate asked for as a
// solution.json, a task that cannot be loaded. The message says which and what to do.
class ExportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class ExportFormat {
  source,         // .cpp for a CPU run, .cu for a CUDA run; a kernel-only candidate gets a generated host launcher
  solution_json,  // SOL-ExecBench: kernel.cu, binding.cpp (torch), the ABI and DLPack headers; CUDA runs only
};

struct ExportRequest {
  std::int64_t run_id = 0;
  std::optional<std::int64_t> candidate_id;               // default: the run's best candidate
  ExportFormat format = ExportFormat::source;
  std::vector<std::string> target_hardware = {"LOCAL"};   // solution.json's spec.target_hardware: LOCAL, B200
  std::filesystem::path task_directory;                   // empty: where the store says the run's task was
  std::string exported_at;                                // empty: now, UTC
};

struct ExportedCandidate {
  std::int64_t run_id = 0;
  std::int64_t candidate_id = 0;
  std::string task;
  std::string candidate_name;
  std::string device;             // the run's: "cpu", "cuda:0"
  bool kernel_form = false;       // device code only: the export carries a generated launcher
  double time_ns = 0;             // geometric mean of the visible workloads' median times
  std::string extension;          // ".cpp", ".cu" or ".json"
  std::string text;               // the file
  std::vector<std::string> notes; // for the reader, not the file: the task changed since the run, ...
};

ExportedCandidate export_candidate(const store::Store& store, const ExportRequest& request);

// The candidate a run ended with: an eval's only candidate; a run's best_candidate when it finished, else the last
// one its controller took as the incumbent (a run that was stopped). nullopt when none.
std::optional<std::int64_t> best_candidate_of(const store::Store& store, const store::RunRecord& run);

}  // namespace kernelarc::report
