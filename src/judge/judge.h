// The judge: builds a candidate, checks it against the reference on every workload in an isolated
// worker, times it, and returns a verdict. Built as if candidates were written by an adversary
// (docs/GUARD.md).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "judge/backend.h"
#include "judge/cpu_compiler.h"
#include "judge/dispatch_rule.h"
#include "judge/judge_failure.h"
#include "judge/judge_protocol.h"
#include "judge/phase_clock.h"
#include "judge/paired_timing.h"
#include "judge/shared_buffer.h"
#include "judge/sandbox.h"
#include "judge/reference_oracle.h"
#include "judge/round_cache.h"
#include "judge/scratch_folder.h"
#include "judge/verdict.h"
#include "judge/worker_process.h"
#include "task/roofline.h"
#include "task/solution_file.h"
#include "task/task.h"

namespace kernelarc::judge {

struct WorkerSession;   // judge/worker_session.h
namespace message {
struct Load;  // judge/worker_messages.h
}
struct CandidateWorkers;  // judge/candidate_workers.h

struct JudgeOptions {
  std::string device = "cpu";         // "cpu" or "cuda:N"
  // The protocol (judge/judge_protocol.h): the thorough one unless set, as a command sets its device's (use_protocol).
  int rounds = JudgeProtocol{}.rounds;
  int warmup = JudgeProtocol{}.warmup;
  int iterations = JudgeProtocol{}.iterations;
  int rechecks = JudgeProtocol{}.rechecks;
  int unseen_calls = JudgeProtocol{}.unseen_calls;
  bool stricter_rounds = JudgeProtocol{}.stricter_rounds;
  bool checks_each_call = JudgeProtocol{}.checks_each_call;
  // A screening of a kernel-only candidate on a GPU keeps each workload's inputs and reference outputs on the device and
  // compares there (judge/device_checks.h); false: on the host, as the full judge does. Off until a whole screening has
  // been seen to pass on a GPU with it (the comparison kernel has: tests/cuda/device_checks_test.cpp).
  bool screen_on_device = false;
  // Which reference checks the candidates: "auto" (a native one for the device, else the native C++ one, else the
  // PyTorch reference through the oracle), "native" (never the oracle) or "python" (always the PyTorch reference).
  std::string reference = "auto";
  // T_b where none was given: the PyTorch reference timed through the oracle (eager, and torch.compile where that torch
  // has it; the faster), with this protocol's warm-up, iterations and flush, at the workload's first round. Needs the
  // PyTorch reference (reference "python", or "auto" on a task without a native one). Kept in the cache folder's
  // baselines/ per task content, workload, device, torch version and protocol: measured once, then read back.
  bool torch_baseline = false;
  std::chrono::milliseconds call_timeout{10000};
  std::uint64_t seed = 0;             // 0: a fresh secret seed per judge
  // Each workload's tolerance is tried against degenerate answers (zeros, constants, means, the reference shifted by a
  // row) on its first round: one that passes is a warning on the workload's verdict, or, when strict, INVALID_REFERENCE.
  bool strict_tolerance = false;
  bool include_held_out = true;
  bool stop_at_first_failure = false;  // true: the workloads after the first that fails are not judged (no row for them)
  bool time_candidates = true;        // false: correctness only
  bool sandbox = true;                // full-source candidates (CPU and GPU) run behind judge/sandbox.h's walls
  std::filesystem::path worker_executable;   // empty: this executable
  std::filesystem::path scratch_directory;   // empty: $KERNELARC_SCRATCH_DIR, else /dev/shm, else the temp folder
  std::size_t flush_bytes = 0;        // 0: twice the last-level cache (on a GPU the worker flushes at least twice the L2)
  std::size_t input_pool_bytes = 256u << 20;  // how much memory the shifted input slots may use
  double roofline_margin = JudgeProtocol{}.roofline_margin;  // a median below T_sol / roofline_margin is REWARD_HACK
  // Inputs and reference outputs of every round are kept for the next candidate (the same seed gives the same inputs),
  // up to this many bytes: a warm candidate skips input generation and the reference. 0: a quarter of the machine's memory.
  std::size_t round_cache_bytes = 0;
  // Each workload's shared buffers are kept for the next candidate up to this many bytes: making one zero-fills its
  // pages. 0: an eighth of the machine's memory.
  std::size_t buffer_cache_bytes = 0;
  CompilerOptions compiler;

  // The untimed calls the judge makes before timed ones, the candidate's, the baseline's and a paired measurement's
  // alike: one at least, since the first call after the judge's probes meets a cold worker. With no warm-up
  // (`--warmup 0 --iterations 1`) every call on new inputs came first, was slower each time, and an honest copy
  // kernel was condemned under CI's load as keeping answers by content.
  int warmup_calls() const { return std::max(warmup, 1); }

  void use_protocol(const JudgeProtocol& protocol) {
    rounds = protocol.rounds;
    warmup = protocol.warmup;
    iterations = protocol.iterations;
    rechecks = protocol.rechecks;
    unseen_calls = protocol.unseen_calls;
    stricter_rounds = protocol.stricter_rounds;
    checks_each_call = protocol.checks_each_call;
    roofline_margin = protocol.roofline_margin;
  }
};

struct CandidateSource {
  std::string name;                               // self-describing id (task, parent, knobs)
  std::string source;
  std::vector<std::string> flags;
  std::map<std::string, std::int64_t> knobs;
  task::TemplateForm form = task::TemplateForm::full;   // kernel: CUDA device code launched by the judge
  std::optional<task::LaunchGeometry> launch;           // required for the kernel form
  // A composed candidate's configurations (engine/composition.h): a full source dispatches between them itself; for a
  // kernel-only one the judge launches the part judge/dispatch_rule.h picks, with that part's knobs and launch.
  std::vector<DispatchPart> dispatch;
  std::string dispatch_axis;  // the var axis whose value picks the part; empty: the product of the var axes
  // A SOL-ExecBench solution that runs in the oracle process (task::runs_in_oracle: a Python solution or a torch
  // extension): its sources go to the candidate's own folder and the oracle's candidate role loads them there. `source`
  // then holds the solution.json (scanned for forbidden calls, recorded).
  std::shared_ptr<const task::SolutionCandidate> solution;
  bool runs_in_oracle() const { return solution && task::runs_in_oracle(*solution); }
};

class Judge {
 public:
  // The judge keeps a reference to `task`, which must outlive it: a temporary task is refused at compile time (a
  // judge of one read a freed task's reference path, GpuJudgeTest's "cannot read <garbage>").
  Judge(const task::Task& task, JudgeOptions options, task::DevicePeaks peaks);
  Judge(task::Task&& task, JudgeOptions options, task::DevicePeaks peaks) = delete;
  ~Judge();
  Judge(const Judge&) = delete;
  Judge& operator=(const Judge&) = delete;

  CandidateVerdict evaluate(const CandidateSource& candidate, const ProgressCallback& progress = {});
  // Both candidates timed interleaved on the same inputs, `pairs` samples each per visible workload (judge/paired_timing.h).
  // Both have passed evaluate (the caller's duty); each is still checked against the reference before it is timed.
  PairedTiming time_paired(const CandidateSource& first, const CandidateSource& second, int pairs, const ProgressCallback& progress = {});
  // Builds a candidate into the on-disk cache (evaluate's build is then a hit). Safe to call from several threads.
  BuildResult build(const CandidateSource& candidate) const;
  // The comparison kernel of a screening on a GPU (judge/device_checks.h), built once, its cubin as hex; empty when it
  // does not build (the screening then compares on the host).
  const std::string& comparison_cubin_hex();

  // Takes `other`'s rounds (inputs and reference outputs) from now on, so a screening judge beside a run's judge makes no
  // round twice. Both judge the same task with the same seed and reference, and this one's rounds, fewer or as many, are
  // all of the benchmark's regime (no stricter extra rounds, no calls on new inputs): its round k is then `other`'s.
  void share_rounds_with(const Judge& other);
  // Baseline times (ns) per workload uuid, for the SOL score.
  void set_baselines(std::map<std::string, double> baseline_ns) { baselines_ = std::move(baseline_ns); }
  const JudgeOptions& options() const { return options_; }
  const Backend& backend() const { return backend_; }
  std::uint64_t seed() const { return options_.seed; }

 private:
  friend class WorkloadJudgement;  // judge/workload_judgement.h: one workload of a candidate, with what outlives the candidate
  using Session = WorkerSession;
  void build_reference(const ProgressCallback& say);
  // What every candidate meets before it runs, in evaluate and in a paired measurement alike: no forbidden call in its
  // source (checked first: an explained verdict costs no compilation), a build, no forbidden call in what was built.
  std::optional<Failure> pass_build_gate(const CandidateSource& candidate, BuildResult& built, PhaseClock& phases,
                                         const ProgressCallback& say) const;
  // The candidate's worker and the reference's for one evaluation, files under `prefix`; a reason when they cannot be.
  // `paired_second`: the second candidate of a paired measurement, alive beside the first: a kernel-only one gets a worker
  // of its own instead of the kept one (which holds the first), and its buffers are in a folder the first cannot reach.
  std::optional<std::string> set_up_workers(const CandidateSource& candidate, const BuildResult& build, const std::filesystem::path& prefix,
                                            CandidateWorkers& workers, bool paired_second = false);
  // `buffers`: the folder of its buffers, whose files it may write (never create).
  SandboxPolicy candidate_policy(const std::filesystem::path& library, const std::filesystem::path& own_folder,
                                 const std::filesystem::path& buffers) const;
  // A solution judged through the oracle (CandidateSource::solution): what is checked before it starts, its worker (the
  // oracle in its candidate role, caches and temporary files in its own folder), its walls and its load request.
  BuildResult oracle_candidate_build() const;
  WorkerOptions oracle_candidate_worker(const std::filesystem::path& log_file, const std::filesystem::path& own_folder) const;
  SandboxPolicy oracle_candidate_policy(const task::SolutionCandidate& solution, const std::filesystem::path& own_folder,
                                        const std::filesystem::path& buffers) const;
  static message::Load oracle_candidate_load(const task::SolutionCandidate& solution, const std::filesystem::path& own_folder);
  SharedBuffer& workload_buffer(const std::string& name, std::size_t bytes, SharedBuffer& uncached);
  const task::Task& task_;
  JudgeOptions options_;
  const Backend& backend_;  // of options_.device: how it builds, walls and times
  task::DevicePeaks peaks_;
  CpuCompiler compiler_;
  std::unique_ptr<ScratchFolder> scratch_folder_;  // before the sessions: removed after their workers have stopped
  std::filesystem::path scratch_;
  std::filesystem::path candidate_scratch_;  // the candidates' buffers: a sandboxed candidate may write its files, never create one
  std::filesystem::path second_scratch_;     // the buffers of a paired measurement's second candidate: out of the first's reach
  std::optional<BuildResult> reference_build_;
  std::string reference_device_ = "cpu";     // a CUDA reference runs on the GPU, a C++ one on the CPU
  std::optional<OracleCommand> oracle_;       // set when the PyTorch reference checks: reference_build_->library is its source
  std::unique_ptr<Session> oracle_session_;  // one oracle for every candidate: starting python and torch takes seconds
  std::map<std::string, double> baselines_;
  std::map<std::string, std::string> baseline_sources_;  // by workload: "torch eager", "torch.compile", empty when measuring failed
  std::string oracle_torch_;                  // the oracle's torch version: part of a cached T_b's key
  std::shared_ptr<RoundCache> round_cache_ = std::make_shared<RoundCache>();  // the correctness rounds and the calls' on new inputs, by workload
  std::map<std::string, SharedBuffer> buffers_;  // by workload and side ("w3-candidate"), kept across candidates
  std::size_t cached_buffer_bytes_ = 0;
  std::map<std::string, std::vector<std::string>> tolerance_warnings_;  // by workload uuid, once its first round is made
  std::map<std::string, double> overhead_floor_ns_;  // by workload uuid: the fastest empty call seen on the CPU
  int evaluations_ = 0;
  std::uint64_t buffer_generation_ = 0;     // one per workload judged: tells a worker's mapping current or stale
  std::unique_ptr<Session> kernel_session_;  // the GPU worker that judges kernel-only candidates in turn
  std::optional<std::string> comparison_cubin_hex_;  // a screening's comparison kernel (judge/device_checks.h); empty: it did not build
  // CPU: a worker that never loads a candidate, whose empty calls measure the judge's own cost per call: probed in the
  // candidate's process, that cost is the candidate's to inflate, and what is subtracted from its samples with it.
  std::unique_ptr<Session> probe_session_;
};

// Twice the last-level cache of this machine (sysfs, then sysconf, then 64 MiB).
std::size_t default_flush_bytes();

// A secret seed from the system's entropy, never 0: the judge's inputs cannot be known, so answers cannot be baked in.
std::uint64_t fresh_seed();

// /proc/self/exe of the running process.
std::filesystem::path current_executable();

}  // namespace kernelarc::judge
