#include "judge/judge.h"

#include <fmt/format.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <numeric>
#include <nlohmann/json.hpp>
#include <random>
#include <ranges>
#include <thread>

#include "common/hash.h"
#include "common/units.h"
#include "common/parallel.h"
#include "judge/baseline_cache.h"
#include "judge/buffer_layout.h"
#include "judge/build_cache.h"
#include "judge/call_reply.h"
#include "judge/comparison.h"
#include "judge/compiler_sandbox.h"
#ifdef KERNELARC_HAVE_CUDA
#include "judge/cuda/cuda_compiler.h"
#include "judge/forbidden_calls.h"
#endif
#include "judge/input_generator.h"
#include "judge/other_threads_clock.h"
#include "judge/phase_clock.h"
#include "judge/reference_round.h"
#include "judge/sandbox.h"
#include "judge/shared_buffer.h"
#include "judge/tolerance_sanity.h"
#include "judge/timing_protocol.h"
#include "judge/torch_baseline.h"
#include "judge/sample_statistics.h"
#include "judge/unseen_check.h"
#include "judge/worker_session.h"
#include "judge/worker.h"
#include "judge/worker_process.h"

namespace kernelarc::judge {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr int kOverheadProbes = 15;  // at most: never more than the timed calls, never fewer than 5
constexpr int kVariantsKept = 3;  // input variants the timed calls cycle through

std::size_t read_cache_size(const fs::path& file) {
  std::ifstream in(file);
  std::string text;
  if (!(in >> text) || text.empty()) return 0;
  std::size_t value = std::strtoull(text.c_str(), nullptr, 10);
  if (text.back() == 'K') value <<= 10;
  if (text.back() == 'M') value <<= 20;
  return value;
}


std::optional<std::string> find_background_activity(pid_t pid) {
  const fs::path tasks = fs::path("/proc") / std::to_string(pid) / "task";
  const std::string main_thread = std::to_string(pid);
  std::error_code error;
  // CPU time of each thread by id. Counted thread by thread: in a sum over the threads alive at each look, a thread
  // that exits in between takes its whole past CPU time out and hides work that another thread keeps doing.
  const auto runtime = [&]() {
    std::map<std::string, double> ns_by_thread;
    for (const auto& entry : fs::directory_iterator(tasks, error)) {
      std::ifstream stat(entry.path() / "schedstat");
      double ns = 0;
      stat >> ns;
      ns_by_thread[entry.path().filename().string()] = ns;
    }
    return ns_by_thread;
  };
  const auto before = runtime();
  if (before.size() <= 1) return std::nullopt;
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const auto after = runtime();
  double used_ns = 0;
  for (const auto& [thread, ns] : after) {
    const auto earlier = before.find(thread);
    double delta = std::max(0.0, ns - (earlier == before.end() ? 0.0 : earlier->second));
    // The main thread's own wait loop spins up to kWorkerSpinMilliseconds after the reply: that CPU is the worker's.
    if (thread == main_thread) delta = std::max(0.0, delta - kWorkerSpinMilliseconds * 1e6);
    used_ns += delta;
  }
  // An idle pool parked in the kernel uses nothing; work still running after the call returned is a hack.
  if (used_ns > 5e6)
    return fmt::format("work kept running on {} threads after the call returned ({:.1f} ms of CPU in 50 ms)", after.size() - 1,
                       used_ns / 1e6);
  return std::nullopt;
}

// The "launch" of a bind request for a kernel-only candidate: its geometry evaluated over the workload's axes and the
// knobs (with num_sms, the device's SM count, and the "let" bindings), and the kernel's scalar arguments (after the tensor
// pointers): every var axis, in the definition's order.
json launch_request(const task::Task& task, const task::ResolvedWorkload& resolved, const CandidateSource& candidate, int num_sms) {
  if (!candidate.launch) throw std::runtime_error("a kernel-only candidate needs its launch geometry");
  task::Bindings names = resolved.axes;
  for (const auto& [knob, value] : candidate.knobs) names[knob] = static_cast<double>(value);
  names = task::launch_bindings(*candidate.launch, std::move(names), num_sms > 0 ? num_sms : task::kDefaultNumSms);
  // Each dimension within CUDA's limit for it (x, y, z).
  const auto dimensions = [&](const std::vector<task::Expression>& expressions, std::array<std::int64_t, 3> limits) {
    std::vector<std::int64_t> values;
    for (const auto& expression : expressions) {
      const auto limit = limits[std::min<std::size_t>(values.size(), 2)];
      const auto value = expression.evaluate_integer(names);
      if (value < 1 || value > limit)
        throw std::runtime_error(fmt::format("\"{}\" is {} (expected 1 to {})", expression.text(), value, limit));
      values.push_back(value);
    }
    return values;
  };
  const auto& launch = *candidate.launch;
  const auto block = dimensions(launch.block, {1024, 1024, 64});
  if (const auto threads = std::accumulate(block.begin(), block.end(), std::int64_t{1}, std::multiplies<>()); threads > 1024)
    throw std::runtime_error(fmt::format("the block has {} threads (at most 1024)", threads));
  json request{{"grid", dimensions(launch.grid, {2147483647, 65535, 65535})}, {"block", block}, {"arguments", json::array()}};
  request["shared_bytes"] = launch.shared_bytes ? launch.shared_bytes->evaluate_integer(names) : 0;
  for (const auto& axis : task.definition.axes)
    if (axis.kind == task::AxisKind::variable) request["arguments"].push_back(static_cast<std::int64_t>(resolved.axes.at(axis.name)));
  return request;
}


}  // namespace

std::size_t default_flush_bytes() {
  std::size_t largest = 0;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator("/sys/devices/system/cpu/cpu0/cache", error))
    largest = std::max(largest, read_cache_size(entry.path() / "size"));
#ifdef _SC_LEVEL3_CACHE_SIZE
  if (largest == 0) largest = static_cast<std::size_t>(std::max(0L, sysconf(_SC_LEVEL3_CACHE_SIZE)));
#endif
  if (largest == 0) largest = 32u << 20;
  return 2 * largest;
}

fs::path current_executable() { return fs::read_symlink("/proc/self/exe"); }

std::uint64_t fresh_seed() {
  std::random_device entropy;
  std::uint64_t seed = 0;
  while (seed == 0) seed = (static_cast<std::uint64_t>(entropy()) << 32) ^ entropy();  // 0 means "make one"
  return seed;
}

Judge::Judge(const task::Task& task, JudgeOptions options, task::DevicePeaks peaks)
    : task_(task), options_(std::move(options)), peaks_(std::move(peaks)), compiler_(options_.compiler) {
  if (options_.seed == 0) options_.seed = fresh_seed();
  if (options_.worker_executable.empty()) options_.worker_executable = current_executable();
  if (options_.flush_bytes == 0) options_.flush_bytes = default_flush_bytes();
  // A quarter of the memory for rounds, an eighth for buffers: a 128 GiB GPU host keeps every round of a family task
  // with 32k-token workloads (about 26 GB), so later candidates skip input generation and the reference.
  const auto memory = static_cast<std::size_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  if (options_.round_cache_bytes == 0) options_.round_cache_bytes = memory / 4;
  if (options_.buffer_cache_bytes == 0) options_.buffer_cache_bytes = memory / 8;
  if (options_.rounds < 1 || options_.iterations < 1 || options_.warmup < 0)
    throw std::invalid_argument("the judge needs at least one round and one timed iteration");
  fs::path base = options_.scratch_directory;
  if (const char* chosen = std::getenv("KERNELARC_SCRATCH_DIR"); base.empty() && chosen && *chosen) base = chosen;
  if (base.empty()) base = access("/dev/shm", W_OK) == 0 ? fs::path("/dev/shm") : fs::temp_directory_path();
  scratch_folder_ = std::make_unique<ScratchFolder>(base);
  scratch_ = scratch_folder_->path();
  candidate_scratch_ = scratch_ / "candidate";
  fs::create_directories(candidate_scratch_);
}

Judge::~Judge() = default;

BuildResult Judge::build(const CandidateSource& candidate) const {
  if (candidate.runs_in_oracle()) return oracle_candidate_build();
  if (options_.device == "cpu") {
    if (candidate.form == task::TemplateForm::kernel) {
      BuildResult refused;
      refused.diagnostics = "a kernel-only candidate is CUDA device code: judge it with --device cuda:N";
      return refused;
    }
    std::vector<std::string> flags = task_.definition.cflags;
    flags.insert(flags.end(), candidate.flags.begin(), candidate.flags.end());
    return compiler_.build({candidate.source, flags, candidate.knobs});
  }
#ifdef KERNELARC_HAVE_CUDA
  cuda::CudaCompilerOptions options;
  options.cache_directory = options_.compiler.cache_directory;
  const cuda::CudaCompiler compiler(options);
  if (candidate.form == task::TemplateForm::kernel) return compiler.build_kernel({candidate.source, candidate.flags, candidate.knobs});
  return compiler.build_library({candidate.source, candidate.flags, candidate.knobs});
#else
  BuildResult refused;
  refused.diagnostics = "this kernelarc was built without the CUDA toolkit";
  return refused;
#endif
}

// A candidate may read the runtime and its own library, write only in its own folder and its buffers; on the CPU half the memory at
// most. On a GPU the driver reserves far more address space than it uses, so there is no such limit, and the driver
// keeps its device files, its own /proc entry, sysfs and the CUDA libraries.
SandboxPolicy Judge::candidate_policy(const fs::path& library, const fs::path& own_folder) const {
  SandboxPolicy policy;
  policy.read_only = runtime_paths();
  policy.read_only.push_back(library.string());
  policy.read_write = {own_folder.string(), "/dev/null"};
  policy.write_existing = {candidate_scratch_.string()};  // its buffers: written by the judge, mapped by the worker, never a stash
  if (options_.device == "cpu") {
    // The CPU worker flushes the caches on its main thread before a timed call: a signal handler would run the
    // candidate's code there, unseen by the clock of its other threads.
    policy.signal_handlers = false;
    policy.address_space_bytes = static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE)) / 2;
    return policy;
  }
  std::error_code ignored;
  for (const auto& entry : fs::directory_iterator("/dev", ignored))
    if (entry.path().filename().string().starts_with("nvidia")) policy.read_write.push_back(entry.path().string());
  policy.read_only.insert(policy.read_only.end(), {"/proc/self", "/proc/driver/nvidia", "/sys", "/usr/local/cuda"});
  // The libraries the candidate's own library links against (the CUDA runtime) may sit on the loader's path.
  if (const char* path = std::getenv("LD_LIBRARY_PATH"))
    for (const auto folder : std::views::split(std::string_view(path), ':'))
      if (!folder.empty()) policy.read_only.emplace_back(folder.begin(), folder.end());
  // Landlock follows symbolic links when the rule is made, so /usr/local/cuda -> cuda-13.0 is allowed as the real folder.
  const auto real = fs::canonical("/usr/local/cuda", ignored);
  if (!ignored) policy.read_only.push_back(real.string());
  return policy;
}

// --- A solution judged through the oracle (the oracle's candidate role, python/kernelarc_oracle.py) ---

namespace {

// libkernelarc_sandbox.so: the worker's sandbox for the oracle's candidate role, beside the worker's binary (the build
// folder) or in lib/ beside it (the device bundle).
fs::path sandbox_library_beside(const fs::path& executable) {
  for (const fs::path& candidate : {executable.parent_path() / "libkernelarc_sandbox.so", executable.parent_path() / "lib" / "libkernelarc_sandbox.so"})
    if (fs::exists(candidate)) return candidate;
  return {};
}

}  // namespace

// Nothing is compiled before the worker starts: the oracle imports a Python solution, and builds a torch extension's
// sources inside the candidate's walls, at its load (a failure there is a COMPILE_ERROR with the compiler's output).
BuildResult Judge::oracle_candidate_build() const {
  BuildResult result;
  const auto oracle = find_reference_oracle();
  if (!oracle.usable()) {
    result.diagnostics = fmt::format("a solution judged through the oracle needs it: {}", fmt::join(oracle.problems, "; "));
    return result;
  }
  if (options_.sandbox && sandbox_library_beside(options_.worker_executable).empty()) {
    result.diagnostics = fmt::format("the oracle raises the candidate's sandbox through libkernelarc_sandbox.so, which is not beside {} "
                                     "(build the target kernelarc_sandbox)",
                                     options_.worker_executable.string());
    return result;
  }
  result.ok = true;
  result.command = {oracle.python.string(), oracle.script.string(), "--role", "candidate"};
  return result;
}

WorkerOptions Judge::oracle_candidate_worker(const fs::path& log_file, const fs::path& own_folder) const {
  const auto oracle = find_reference_oracle();
  WorkerOptions options;
  options.executable = oracle.python;
  options.device = options_.device;
  options.log_file = log_file;
  options.leading_arguments = {oracle.script.string(), "--role", "candidate"};
  for (const char* name : {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "CUTLASS_DIR"})  // where the image's torch (and CUTLASS) may live
    if (const char* value = std::getenv(name)) options.environment[name] = value;
  // Every cache a JIT keeps goes to the candidate's own folder, removed once it is judged: nothing reaches a later one.
  for (const auto& [name, folder] : std::initializer_list<std::pair<const char*, const char*>>{
           {"TMPDIR", "tmp"}, {"XDG_CACHE_HOME", "cache"}, {"TRITON_HOME", "triton"}, {"TRITON_CACHE_DIR", "triton/cache"},
           {"TORCH_EXTENSIONS_DIR", "torch_extensions"}, {"TORCHINDUCTOR_CACHE_DIR", "inductor"}, {"CUTE_DSL_CACHE_DIR", "cute_dsl"}}) {
    fs::create_directories(own_folder / folder);
    options.environment[name] = (own_folder / folder).string();
  }
  // torch's OpenMP threads sleep when idle instead of spinning: spinning after a call is work the judge's background check
  // and the CPU clock of the candidate's other threads would count against it.
  if (options_.device == "cpu") options.environment["OMP_WAIT_POLICY"] = "PASSIVE";
  return options;
}

// The native candidate's walls (candidate_policy), with the oracle's script read-only; the oracle adds its interpreter's
// folders (sys.path) read-only itself. Child processes stay killed on the CPU for a Python solution; they are allowed on
// a GPU (Triton's JIT runs ptxas and a C compiler, CuTe DSL and cuTile their own tools) and for a torch extension (ninja,
// g++, nvcc build it), with the system's compiler folders readable: a wall that cannot hold there (sandbox.h).
SandboxPolicy Judge::oracle_candidate_policy(const task::SolutionCandidate& solution, const fs::path& own_folder) const {
  const auto oracle = find_reference_oracle();
  SandboxPolicy policy = candidate_policy(oracle.script, own_folder);
  policy.child_processes = options_.device != "cpu" || solution.kind == task::SolutionKind::torch_extension;
  if (policy.child_processes) {
    // The build tools install signal handlers (ninja's sigaction): a torch extension on the CPU keeps them.
    policy.signal_handlers = true;
    const auto system = compiler_system_paths();
    policy.read_only.insert(policy.read_only.end(), system.begin(), system.end());
    policy.read_only.insert(policy.read_only.end(), {"/sbin", "/usr/sbin", "/etc/alternatives", "/usr/local/bin", "/usr/local/cuda",
                                                     "/usr/local/cutlass"});
    if (const char* cutlass = std::getenv("CUTLASS_DIR"); cutlass && *cutlass) policy.read_only.emplace_back(cutlass);
  }
  return policy;
}

json Judge::oracle_candidate_load(const task::SolutionCandidate& solution, const fs::path& own_folder) {
  return {{"op", "load"},
          {"solution",
           {{"folder", (own_folder / "solution").string()}, {"kind", solution.kind == task::SolutionKind::python ? "python" : "torch_extension"},
            {"entry_file", solution.entry_file}, {"entry_function", solution.entry_function},
            {"destination_passing_style", solution.destination_passing_style}, {"target_hardware", solution.target_hardware},
            {"cflags", solution.cflags}, {"cuda_cflags", solution.cuda_cflags}, {"ld_flags", solution.ld_flags}}}};
}

// Outside the budget the buffer lives in `uncached`, for this workload of this candidate only.
SharedBuffer& Judge::workload_buffer(const std::string& name, std::size_t bytes, SharedBuffer& uncached) {
  if (const auto found = buffers_.find(name); found != buffers_.end()) {
    if (found->second.size() == bytes) return found->second;
    cached_buffer_bytes_ -= found->second.size();
    buffers_.erase(found);
  }
  // A candidate's buffers sit in its own folder: its sandbox reaches them and not the reference's outputs.
  const fs::path folder = name.ends_with("-candidate") ? candidate_scratch_ : scratch_;
  if (cached_buffer_bytes_ + bytes > options_.buffer_cache_bytes) {
    uncached = SharedBuffer::create(folder / fmt::format("e{}-{}.buf", evaluations_, name), bytes);
    return uncached;
  }
  auto& kept = buffers_[name] = SharedBuffer::create(folder / (name + ".buf"), bytes);
  cached_buffer_bytes_ += bytes;
  return kept;
}

// On a GPU the CUDA reference runs there (large workloads check fast); a C++ reference on the CPU is the fallback.
void Judge::build_reference(const ProgressCallback& say) {
  const auto& references = task_.definition.native_reference;
  const bool native = options_.reference != "python";
  const auto cuda_reference = native ? references.find("cuda") : references.end();
  const auto cpu_reference = native ? references.find("cpu") : references.end();
  if (options_.device != "cpu" && cuda_reference != references.end()) {
    if (say) say("building the native CUDA reference");
    CandidateSource reference;
    reference.name = "reference";
    reference.source = read_text_file(cuda_reference->second);
    reference_build_ = build(reference);
    reference_device_ = options_.device;
  } else if (cpu_reference != references.end()) {
    if (say) say("building the native reference");
    reference_build_ = compiler_.build({read_text_file(cpu_reference->second), task_.definition.cflags, {}});
    reference_device_ = "cpu";
  } else if (options_.reference != "native" && !task_.definition.reference.empty()) {
    if (say) say("starting the reference oracle (the task's PyTorch reference)");
    BuildResult python;
    oracle_ = find_reference_oracle();
    if (!oracle_->usable()) {
      python.diagnostics = fmt::format("the PyTorch reference needs the reference oracle: {}", fmt::join(oracle_->problems, "; "));
      reference_build_ = python;
      return;
    }
    python.library = scratch_ / "reference.py";
    std::ofstream(python.library) << task_.definition.reference;
    python.ok = true;
    reference_build_ = python;
    reference_device_ = options_.device;  // on a GPU the reference runs there, as the benchmark runs it
    return;
  } else {
    BuildResult missing;
    missing.diagnostics = options_.reference == "python"
                              ? std::string("the task has no PyTorch reference (definition.json's \"reference\")")
                              : fmt::format("the task has no native {} reference (kernelarc.native_reference){}",
                                            options_.device == "cpu" ? "CPU" : "CUDA or CPU",
                                            options_.reference == "native" ? "" : " and no PyTorch reference");
    reference_build_ = missing;
    return;
  }
  if (!reference_build_->ok) reference_build_->diagnostics = "the native reference does not build:\n" + reference_build_->diagnostics;
}

CandidateVerdict Judge::evaluate(const CandidateSource& candidate, const ProgressCallback& progress) {
  const auto started = std::chrono::steady_clock::now();
  const auto say = [&](const std::string& line) {
    if (progress) progress(line);
  };
  const int evaluation = ++evaluations_;
  CandidateVerdict verdict;
  verdict.name = candidate.name;
  verdict.kind = candidate.runs_in_oracle()                         ? task::solution_kind_name(candidate.solution->kind)
                 : candidate.form == task::TemplateForm::kernel ? "kernel-only CUDA module"
                                                                : "native library (candidate ABI)";
  PhaseClock phases;

  std::vector<const task::Workload*> workloads;
  for (const auto& workload : task_.workloads)
    if (!workload.held_out || options_.include_held_out) workloads.push_back(&workload);
  const auto fill_all = [&](Status status, const std::string& reason) {
    for (const auto* workload : workloads) {
      WorkloadVerdict row;
      row.uuid = workload->uuid;
      row.held_out = workload->held_out;
      row.status = status;
      row.reason = reason;
      verdict.workloads.push_back(std::move(row));
    }
    verdict.judge_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    verdict.phase_seconds = phases.seconds();
    return verdict;
  };
  // Before the build: an explained verdict for a forbidden call costs no compilation.
  if (auto forbidden = forbidden_call_in_source(candidate.source, task_.definition.forbid)) return fill_all(Status::reward_hack, *forbidden);
  say(fmt::format("building {}", candidate.name));
  {
    const auto building = phases.measure("build");
    verdict.build = build(candidate);
  }
  if (!verdict.build.ok) return fill_all(Status::compile_error, verdict.build.diagnostics);
  if (!candidate.runs_in_oracle())
    if (auto forbidden = forbidden_call_in_library(verdict.build.library, task_.definition.forbid, options_.device != "cpu")) return fill_all(Status::reward_hack, *forbidden);

  if (!reference_build_) {
    const auto building = phases.measure("build");
    build_reference(say);
  }
  if (!reference_build_->ok) return fill_all(Status::invalid_reference, reference_build_->diagnostics);

  const fs::path prefix = scratch_ / fmt::format("e{}", evaluation);
  // A kernel-only candidate has no host code, so one worker judges them all in turn (it scrubs its device memory at
  // each load): a new process and CUDA context per candidate cost about half a second. Full sources get a fresh one.
  // Declared before the session: removed after its worker has stopped.
  struct RemovedAtEnd : fs::path {
    using fs::path::path;
    ~RemovedAtEnd() {
      std::error_code ignored;
      fs::remove_all(*this, ignored);
    }
  };
  std::optional<RemovedAtEnd> own_folder;
  std::unique_ptr<Session> own_session;
  Session* session_in_use = nullptr;
  if (options_.device != "cpu" && candidate.form == task::TemplateForm::kernel) {
    if (!kernel_session_)
      kernel_session_ = std::make_unique<Session>(WorkerOptions{options_.worker_executable, options_.device, (scratch_ / "kernel-worker.log").string()});
    session_in_use = kernel_session_.get();
    session_in_use->ready = false;  // loads this candidate's module on the first call
  } else {
    // A folder of its own, removed once it is judged: nothing it writes there (answers to the judge's inputs, say)
    // reaches a later candidate, and nothing else of the judge's is writable to it.
    own_folder.emplace(prefix.string() + "-own");
    fs::create_directories(*own_folder / "tmp");
    if (candidate.runs_in_oracle()) {
      // The oracle in its candidate role, the solution's sources in its own folder.
      try {
        for (const auto& file : candidate.solution->sources) {
          const fs::path path = *own_folder / "solution" / file.path;
          fs::create_directories(path.parent_path());
          std::ofstream(path, std::ios::binary) << file.content;
        }
      } catch (const std::exception& error) {
        return fill_all(Status::runtime_error, fmt::format("the solution's sources could not be written: {}", error.what()));
      }
      own_session = std::make_unique<Session>(oracle_candidate_worker(prefix.string() + "-candidate.log", *own_folder));
      own_session->start_deadline = std::chrono::minutes(2);  // python and torch (and on a GPU the profiler) start first
      own_session->load_deadline = std::chrono::minutes(candidate.solution->kind == task::SolutionKind::torch_extension ? 15 : 3);
      if (options_.sandbox)
        own_session->sandbox = {{"op", "sandbox"}, {"policy", sandbox_policy_json(oracle_candidate_policy(*candidate.solution, *own_folder))},
                                {"library", sandbox_library_beside(options_.worker_executable).string()}};
    } else {
      WorkerOptions worker_options{options_.worker_executable, options_.device, prefix.string() + "-candidate.log",
                                   {{"TMPDIR", (*own_folder / "tmp").string()}}};
      // On the CPU its main thread sleeps between requests instead of spinning, so the kernel has accounted its CPU time
      // whenever the judge reads it: what the other threads do between calls is then read exactly.
      if (options_.device == "cpu") worker_options.environment["KERNELARC_WORKER_SPIN_MS"] = "0";
      own_session = std::make_unique<Session>(std::move(worker_options));
      if (options_.sandbox)
        own_session->sandbox = {{"op", "sandbox"}, {"policy", sandbox_policy_json(candidate_policy(verdict.build.library, *own_folder))}};
    }
    session_in_use = own_session.get();
  }
  Session& candidate_session = *session_in_use;
  const int restarts_before = candidate_session.worker.restarts();
  // A native reference gets a fresh worker per candidate; the oracle is kept (python and torch take seconds to start).
  std::unique_ptr<Session> own_reference_session;
  if (oracle_) {
    if (!oracle_session_) {
      WorkerOptions oracle_options{oracle_->python, reference_device_, (scratch_ / "oracle.log").string()};
      oracle_options.leading_arguments = {oracle_->script.string()};
      for (const char* name : {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV"})  // where the image's torch may live
        if (const char* value = std::getenv(name)) oracle_options.environment[name] = value;
      oracle_session_ = std::make_unique<Session>(std::move(oracle_options));
      oracle_session_->start_deadline = std::chrono::minutes(2);
      oracle_session_->on_gpu = false;  // on a GPU too it reads its inputs from the shared file and writes its outputs there
    }
  } else {
    own_reference_session = std::make_unique<Session>(WorkerOptions{options_.worker_executable, reference_device_, prefix.string() + "-reference.log",
                                                                    {{"KERNELARC_WORKER_SPIN_MS", "0"}}});
  }
  Session& reference_session = oracle_ ? *oracle_session_ : *own_reference_session;
  candidate_session.load = {{"op", "load"}};
  if (candidate.form == task::TemplateForm::kernel) {
    candidate_session.load["cubin"] = verdict.build.library.string();
    candidate_session.load["kernel"] = candidate.launch ? candidate.launch->kernel : "";
  } else if (candidate.runs_in_oracle()) {
    candidate_session.load = oracle_candidate_load(*candidate.solution, *own_folder);
  } else {
    candidate_session.load["library"] = verdict.build.library.string();
  }
  reference_session.load = {{"op", "load"}, {oracle_ ? "python" : "library", reference_build_->library.string()}};
  const auto deadline = options_.call_timeout;

  const auto workloads_started = std::chrono::steady_clock::now();
  for (const auto* workload : workloads) {
    WorkloadVerdict row;
    row.uuid = workload->uuid;
    row.held_out = workload->held_out;
    // Workloads done out of all, and the time left at the pace so far.
    const std::size_t done = verdict.workloads.size();
    const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - workloads_started).count();
    say(fmt::format("workload {}/{} {}{}{}", done + 1, workloads.size(), workload->uuid, workload->held_out ? " (held out)" : "",
                    done == 0 ? "" : fmt::format(" ({} done in {}, about {} left)", done, common::format_duration_s(spent),
                                                 common::format_duration_s(spent / static_cast<double>(done) * static_cast<double>(workloads.size() - done)))));
    const auto resolved = task::resolve_workload(task_, *workload);
    row.roofline = task::estimate_roofline(task_, resolved, peaks_);
    if (auto baseline = baselines_.find(workload->uuid); baseline != baselines_.end()) {
      row.baseline_ns = baseline->second;
      if (auto source = baseline_sources_.find(workload->uuid); source != baseline_sources_.end()) row.baseline_source = source->second;
    }

    const std::uint64_t workload_seed = common::mix64(options_.seed ^ common::fnv1a64(workload->uuid));
    const auto& def = task_.definition;
    const int total_calls = options_.warmup + options_.iterations;
    const bool timed_on_gpu = options_.time_candidates && options_.device != "cpu";
    const Layout layout = make_layout(task_, resolved, options_.time_candidates ? total_calls : 1, options_.input_pool_bytes,
                                      timed_on_gpu ? kVariantsKept : 0);
    const Layout reference_layout = make_layout(task_, resolved, 1, options_.input_pool_bytes);

    const std::vector<std::byte> guard = guard_pattern(workload_seed);

    const std::uint64_t generation = ++buffer_generation_;
    const auto result = [&]() -> std::optional<Failure> {
      const auto workload_index = static_cast<std::size_t>(workload - task_.workloads.data());
      SharedBuffer uncached_buffer, uncached_reference_buffer;
      SharedBuffer* buffer_in_use = nullptr;
      SharedBuffer* reference_buffer = nullptr;  // made when a round is not in the cache: the reference runs then only
      try {
        const auto allocating = phases.measure("buffers");
        buffer_in_use = &workload_buffer(fmt::format("w{}-candidate", workload_index), layout.total_bytes(), uncached_buffer);
        // Host code shares this memory with the judge: whatever an earlier candidate left anywhere in it is wiped first.
        if (candidate.form != task::TemplateForm::kernel && buffer_in_use != &uncached_buffer)
          std::memset(buffer_in_use->data(), 0, buffer_in_use->size());
      } catch (const std::exception& error) {
        return Failure{Status::runtime_error, fmt::format("judge could not allocate the workload's memory: {}", error.what())};
      }
      SharedBuffer& buffer = *buffer_in_use;
      json binding = {{"op", "bind"}, {"inputs", json::array()}, {"outputs", json::array()}};
      for (std::size_t i = 0; i < def.inputs.size(); ++i)
        binding["inputs"].push_back({{"dtype", task::dtype_name(def.inputs[i].dtype)}, {"shape", resolved.input_shapes[i]},
                                     {"scalar", def.inputs[i].is_scalar()}});
      for (std::size_t i = 0; i < def.outputs.size(); ++i)
        binding["outputs"].push_back({{"dtype", task::dtype_name(def.outputs[i].dtype)}, {"shape", resolved.output_shapes[i]}});
      json candidate_binding = binding;
      if (candidate.runs_in_oracle())  // a solution may return its outputs as a dict by name
        for (std::size_t i = 0; i < def.outputs.size(); ++i) candidate_binding["outputs"][i]["name"] = def.outputs[i].name;
      if (candidate.form == task::TemplateForm::kernel) {
        try {
          candidate_binding["launch"] = launch_request(task_, resolved, candidate, peaks_.multiprocessors);
        } catch (const std::exception& error) {
          return Failure{Status::compile_error, fmt::format("the launch geometry does not evaluate: {}", error.what())};
        }
      }

      const bool gpu = candidate_session.on_gpu;
      // On a GPU the worker poisons the outputs on the device before every call (uploading them would cost more).
      const auto call_message = [&](const Layout& lay, int slot, std::optional<std::byte> device_poison) {
        json inputs = json::array(), outputs = json::array();
        for (auto offset : lay.input_offsets) inputs.push_back(static_cast<std::size_t>(slot) * lay.slot_bytes + offset);
        for (auto offset : lay.output_offsets) outputs.push_back(lay.output_base() + offset);
        json message{{"op", "call"}, {"inputs", inputs}, {"outputs", outputs}};
        if (device_poison) message["poison"] = static_cast<int>(*device_poison);
        return message;
      };
      // Serialised once per slot: building JSON inside the timed loop costs tens of microseconds a call.
      std::vector<std::string> candidate_calls, timed_calls;
      for (int slot = 0; slot < layout.slots; ++slot) {
        candidate_calls.push_back(call_message(layout, slot, std::nullopt).dump());
        timed_calls.push_back(call_message(layout, slot, gpu ? std::optional<std::byte>(kPoisonFirst) : std::nullopt).dump());
      }
      const std::string reference_call = call_message(reference_layout, 0, std::nullopt).dump();
      const std::string flush_request = json{{"op", "flush"}, {"bytes", gpu ? 0 : options_.flush_bytes}}.dump();
      const auto prepare_outputs = [&](const SharedBuffer& buf, const Layout& lay, std::byte poison) {
        judge::prepare_outputs(buf, lay, guard, poison);
      };
      const auto check_output_guards = [&](const SharedBuffer& buf, const Layout& lay) -> std::optional<Failure> {
        const auto checking = phases.measure("checks");
        return judge::check_output_guards(buf, lay, guard, def, resolved);
      };
      const auto check_inputs = [&](const SharedBuffer& buf, const Layout& lay, int slot, const std::vector<std::byte>& image) -> std::optional<Failure> {
        const auto checking = phases.measure("checks");
        return judge::check_inputs(buf, lay, slot, image, def);
      };
      // Moves a slot's inputs and/or the output region between the shared buffer and the GPU's copy of it.
      const auto transfer = [&](Session& session, const char* op, const Layout& lay, int slot, bool inputs,
                                bool outputs) -> std::optional<Failure> {
        if (!session.on_gpu) return std::nullopt;
        const auto moving = phases.measure("transfers");
        json ranges = json::array();
        if (inputs) ranges.push_back({static_cast<std::size_t>(slot) * lay.slot_bytes, lay.slot_bytes});
        if (outputs) ranges.push_back({lay.output_base(), lay.output_region_bytes});
        const auto reply = session.worker.request({{"op", op}, {"ranges", ranges}}, deadline);
        if (reply.ok()) return std::nullopt;
        session.ready = false;
        return Failure{reply.outcome == ReplyOutcome::timed_out ? Status::timeout : Status::runtime_error,
                       fmt::format("{} failed: {}{}", op, reply.description, session.tail())};
      };
      // One call through a session, with every way it can fail turned into a verdict.
      const auto call = [&](Session& session, int slot, bool is_reference, double* round_trip_ns, double* in_process_ns,
                            double* event_ns = nullptr, CallPlan plan = {}) -> std::optional<Failure> {
        const Status load_status = is_reference ? Status::invalid_reference : Status::compile_error;
        if (auto failure = [&] {
              const auto starting = phases.measure("workers");
              return session.prepare(is_reference ? *reference_buffer : buffer, generation, is_reference ? binding : candidate_binding,
                                     deadline, load_status);
            }()) {
          if (is_reference) failure->status = Status::invalid_reference;
          return failure;
        }
        const Layout& lay = is_reference ? reference_layout : layout;
        const auto moved = [&](std::optional<Failure> failure) {
          if (failure && is_reference) failure->status = Status::invalid_reference;
          return failure;
        };
        if (plan.device_poison) {
          plan.outputs_in = !session.outputs_placed;
          if (plan.outputs_in) prepare_outputs(buffer, lay, *plan.device_poison);
        }
        if (plan.inputs_in || plan.outputs_in) {
          if (auto failure = moved(transfer(session, "upload", lay, slot, plan.inputs_in, plan.outputs_in))) return failure;
          session.outputs_placed = session.outputs_placed || plan.outputs_in;
        }
        const std::string poisoned = plan.device_poison && !plan.timed ? call_message(lay, slot, plan.device_poison).dump() : "";
        const auto& message = is_reference  ? reference_call
                              : plan.timed  ? timed_calls[static_cast<std::size_t>(slot)]
                              : !poisoned.empty() ? poisoned
                                                  : candidate_calls[static_cast<std::size_t>(slot)];
        const auto reply = [&] {
          const auto calling = phases.measure(is_reference ? "reference calls" : plan.timed ? "timed calls" : "calls");
          return session.worker.request_line(message, deadline);
        }();
        if (round_trip_ns) *round_trip_ns = static_cast<double>(reply.round_trip.count());
        if (auto failure = failed_call(session, reply, is_reference)) return failure;
        if (in_process_ns) *in_process_ns = reply.body.value("ns", 0.0);
        if (event_ns) *event_ns = reply.body.value("events_ns", 0.0);
        session.timer = reply.body.value("timer", "");
        if (!is_reference)
          if (auto failure = work_outside_the_call(reply.body)) return failure;
        if (plan.everything_out)
          if (auto failure = moved(transfer(session, "download", lay, slot, true, true))) return failure;
        return std::nullopt;
      };
      const auto compare_all = [&](const std::vector<std::vector<std::byte>>& reference, const task::Tolerance& tolerance,
                                   std::optional<std::byte> poison) -> std::optional<Failure> {
        const auto checking = phases.measure("checks");
        for (std::size_t i = 0; i < def.outputs.size(); ++i) {
          const std::byte* got = buffer.data() + layout.output_base() + layout.output_offsets[i];
          const auto comparison = compare_output(def.outputs[i].name, def.outputs[i].dtype, resolved.output_shapes[i], got,
                                                 reference[i].data(), tolerance, poison);
          if (!comparison.passed) return Failure{Status::incorrect_numerical, comparison.reason};
        }
        return std::nullopt;
      };

      // SOL-ExecBench's custom inputs: the reference's custom_inputs_entrypoint(axes_and_scalars, device), seeded, run by the
      // oracle, which writes each tensor into the reference's slot after checking its dtype and shape.
      const auto make_custom_inputs = [&](Session& session, const SharedBuffer& buf, const Layout& lay, const std::vector<std::size_t>& which,
                                          const json& axes_and_scalars, std::uint64_t round_seed) -> std::optional<Failure> {
        if (!oracle_ || !def.custom_inputs_entrypoint)
          return Failure{Status::invalid_reference, "custom inputs are made by the definition's custom_inputs_entrypoint in the PyTorch "
                                                    "reference: judge with --reference python"};
        const auto generating = phases.measure("inputs");
        if (auto failure = session.prepare(buf, generation, binding, deadline, Status::invalid_reference)) {
          failure->status = Status::invalid_reference;
          return failure;
        }
        json request = {{"op", "inputs"}, {"entry", *def.custom_inputs_entrypoint}, {"axes_and_scalars", axes_and_scalars},
                        {"seed", round_seed & 0x7fffffffffffffffULL}, {"tensors", json::array()}};
        for (const std::size_t i : which)
          request["tensors"].push_back({{"name", def.inputs[i].name}, {"index", i}, {"offset", lay.input_offsets[i]}});
        const auto reply = session.worker.request(request, deadline * 4);
        if (reply.ok()) return std::nullopt;
        if (reply.outcome != ReplyOutcome::refused) session.ready = false;
        return Failure{Status::invalid_reference, fmt::format("custom inputs: {}{}", reply.description, session.tail())};
      };
      // A round: inputs generated from a seed, then the reference's outputs on its own copy of them.
      const auto make_round = [&](std::uint64_t round_seed, std::shared_ptr<const Round>& made,
                                  InputRegime regime = InputRegime::benchmark) -> std::optional<Failure> {
        auto fresh = std::make_shared<Round>();
        std::vector<std::size_t> custom_inputs;  // made by the definition's custom_inputs_entrypoint, in the oracle
        json axes_and_scalars = json::object();  // what that function is given
        for (const auto& [name, value] : resolved.axes) axes_and_scalars[name] = static_cast<std::int64_t>(value);
        try {
          const auto generating = phases.measure("inputs");
          fresh->slot_image.resize(layout.slot_bytes);
          // Guard bytes between and after the inputs (the inputs themselves are written below).
          write_input_guards(fresh->slot_image, layout, guard);
          for (std::size_t i = 0; i < def.inputs.size(); ++i) {
            const auto source_it = workload->inputs.find(def.inputs[i].name);
            const task::InputSource source = source_it == workload->inputs.end() ? task::InputSource{} : source_it->second;
            if (source.kind == task::InputKind::scalar) axes_and_scalars[def.inputs[i].name] = source.value;
            if (source.kind == task::InputKind::custom) {
              custom_inputs.push_back(i);
              continue;
            }
            generate_input_into(def.inputs[i], resolved.input_shapes[i], source, common::mix64(round_seed + i),
                                fresh->slot_image.data() + layout.input_offsets[i], regime, def.op_type);
          }
        } catch (const std::exception& error) {
          return Failure{Status::invalid_reference, fmt::format("inputs cannot be generated: {}", error.what())};
        }
        // The reference.
        if (!reference_buffer) {
          try {
            const auto allocating = phases.measure("buffers");
            reference_buffer = &workload_buffer(fmt::format("w{}-reference", workload_index), reference_layout.total_bytes(),
                                                uncached_reference_buffer);
          } catch (const std::exception& error) {
            return Failure{Status::runtime_error, fmt::format("judge could not allocate the reference's memory: {}", error.what())};
          }
        }
        write_slot(*reference_buffer, reference_layout, 0, fresh->slot_image);
        if (!custom_inputs.empty())
          if (auto failure = make_custom_inputs(reference_session, *reference_buffer, reference_layout, custom_inputs, axes_and_scalars, round_seed))
            return failure;
        for (const std::size_t i : custom_inputs)  // the candidate gets what the oracle wrote
          common::copy_bytes(fresh->slot_image.data() + layout.input_offsets[i],
                             reference_buffer->data() + reference_layout.input_offsets[i], layout.input_bytes[i]);
        prepare_outputs(*reference_buffer, reference_layout, kPoisonFirst);
        if (auto failure = call(reference_session, 0, true, nullptr, nullptr)) return failure;
        if (check_output_guards(*reference_buffer, reference_layout))
          return Failure{Status::invalid_reference, "the reference wrote outside its outputs"};
        fresh->reference = outputs_of(*reference_buffer, reference_layout);
        for (std::size_t i = 0; i < def.outputs.size(); ++i)
          if (auto problem = reference_output_problem(def.outputs[i].name, def.outputs[i].dtype, resolved.output_shapes[i],
                                                      fresh->reference[i].data(), workload->tolerance)) {
            if (regime == InputRegime::benchmark) return Failure{Status::invalid_reference, *problem};
            fresh->skipped = *problem;
            made = fresh;
            return std::nullopt;
          }
        made = fresh;
        if (regime != InputRegime::benchmark) return std::nullopt;  // the checks below are of the workload's own inputs
        if (!tolerance_warnings_.contains(workload->uuid)) {
          const auto checking = phases.measure("checks");
          auto& warnings = tolerance_warnings_[workload->uuid];
          for (std::size_t i = 0; i < def.outputs.size(); ++i)
            for (const auto& accepted : degenerate_answers_accepted(def.outputs[i].name, def.outputs[i].dtype, resolved.output_shapes[i],
                                                                    fresh->reference[i].data(), workload->tolerance)) {
              warnings.push_back(tolerance_warning(workload->uuid, accepted));
              say("  warning: " + warnings.back());
            }
        }
        if (options_.strict_tolerance && !tolerance_warnings_[workload->uuid].empty())
          return Failure{Status::invalid_reference, "strict tolerance: " + tolerance_warnings_[workload->uuid].front()};
        // T_b, once per workload, on the inputs the oracle has just been given: it times its own calls (eager, then
        // torch.compile where it exists), each after a flush of the judge's size; on the CPU the cost of calling an empty
        // Python function is taken off, as the judge takes its per-call cost off a candidate; on a GPU each call is its
        // kernel span. Kept in the cache folder, read back by later judges. A failure leaves the score unknown.
        // Tried once per workload: a failure is not tried again on every later round (an empty source marks it).
        if (options_.torch_baseline && oracle_ && !baselines_.contains(workload->uuid) && !baseline_sources_.contains(workload->uuid)) {
          if (oracle_torch_.empty()) oracle_torch_ = reference_session.worker.request({{"op", "hello"}}, deadline).body.value("torch", "?");
          const BaselineKey key{task_.content_hash, workload->uuid, options_.device, peaks_.name, oracle_torch_, options_.warmup,
                                options_.iterations, options_.flush_bytes};
          const BaselineCache cache(options_.compiler.cache_directory.empty() ? default_cache_directory() / "baselines"
                                                                               : options_.compiler.cache_directory / "baselines");
          const TorchBaseline measured = measure_torch_baseline(
              reference_session, reference_call, key, cache,
              {options_.warmup, options_.iterations, options_.flush_bytes, deadline}, phases, say);
          if (measured.ns) baselines_[workload->uuid] = row.baseline_ns.emplace(*measured.ns);
          baseline_sources_[workload->uuid] = row.baseline_source = measured.source;  // empty after a failure: tried
        }
        return std::nullopt;
      };

      // Correctness: fresh inputs each round; the reference first on its own copy. The rounds make inputs as the benchmark
      // does; then one extra round per stricter regime that changes an input of this workload (logits shifted far from
      // zero, scaled, long-tailed, near the dtype's limits; KernelArc's realism profiles): never instead, always besides.
      const int variants_kept = std::min(options_.rounds, kVariantsKept);
      std::vector<std::shared_ptr<const Round>> variants;
      auto& cached = rounds_[workload->uuid];
      const std::vector<InputRegime> extra_regimes = stricter_regimes(def, *workload);
      const int all_rounds = options_.rounds + static_cast<int>(extra_regimes.size());
      for (int round = 0; round < all_rounds; ++round) {
        const InputRegime regime = round < options_.rounds ? InputRegime::benchmark : extra_regimes[static_cast<std::size_t>(round - options_.rounds)];
        std::shared_ptr<const Round> known = round < static_cast<int>(cached.size()) ? cached[static_cast<std::size_t>(round)] : nullptr;
        if (known) ++verdict.reused_rounds;
        if (!known) {
          if (auto failure = make_round(common::mix64(workload_seed + static_cast<std::uint64_t>(round)), known, regime)) return failure;
          // Kept in order from round 0 while the budget lasts: the same seed gives the next candidate the same round.
          if (round == static_cast<int>(cached.size()) && cached_round_bytes_ + known->bytes() <= options_.round_cache_bytes) {
            cached.push_back(known);
            cached_round_bytes_ += known->bytes();
          }
        }
        const Round& variant = *known;
        if (!variant.skipped.empty()) {
          say(fmt::format("  the extra round of {} inputs is left out: the reference cannot take them ({})", regime_name(regime), variant.skipped));
          continue;
        }
        // The candidate.
        if (auto failure = [&]() -> std::optional<Failure> {
              write_slot(buffer, layout, 0, variant.slot_image);
              // On a GPU the worker poisons the outputs on the device: writing and uploading them would cost more.
              CallPlan correctness;
              if (gpu) correctness.device_poison = kPoisonFirst;
              else prepare_outputs(buffer, layout, kPoisonFirst);
              if (auto failure = call(candidate_session, 0, false, nullptr, nullptr, nullptr, correctness)) return failure;
              if (auto failure = check_output_guards(buffer, layout)) return failure;
              if (auto failure = check_inputs(buffer, layout, 0, variant.slot_image)) return failure;
              return compare_all(variant.reference, workload->tolerance, kPoisonFirst);
            }()) {
          if (regime != InputRegime::benchmark)
            failure->reason = fmt::format("on the extra round of {} inputs (stricter than the benchmark's; the reference takes them): {}",
                                          regime_name(regime), failure->reason);
          return failure;
        }
        // A look at the worker's threads costs 50 ms. On a GPU the worker reports kernels launched between calls on every
        // call, so the threads are looked at on the first workload only.
        // A kernel-only candidate has no threads to look at.
        if ((round == 0 || round == options_.rounds - 1) && (!gpu || workload == workloads.front()) &&
            candidate.form != task::TemplateForm::kernel) {
          const auto looking = phases.measure("background check");
          if (auto activity = find_background_activity(candidate_session.worker.pid()))
            return Failure{Status::reward_hack, *activity};
        }
        if (round == 0) {
          // Same inputs again with another poison: a race or an unwritten element shows here.
          const auto first = outputs_of(buffer, layout);
          CallPlan again;
          if (gpu) {
            again.device_poison = kPoisonSecond;
            again.inputs_in = false;  // still on the device, and just seen unchanged
          } else {
            prepare_outputs(buffer, layout, kPoisonSecond);
          }
          if (auto failure = call(candidate_session, 0, false, nullptr, nullptr, nullptr, again)) return failure;
          if (auto failure = check_output_guards(buffer, layout)) return failure;
          // Before the comparison: where a poison is a legal value, an unwritten element is told only by holding both.
          for (std::size_t i = 0; i < def.outputs.size(); ++i)
            if (auto unwritten = [&] {
                  const auto checking = phases.measure("checks");
                  return unwritten_in_both(def.outputs[i].name, def.outputs[i].dtype, resolved.output_shapes[i], first[i].data(),
                                           kPoisonFirst, buffer.data() + layout.output_base() + layout.output_offsets[i], kPoisonSecond);
                }())
              return Failure{Status::incorrect_numerical, *unwritten};
          if (auto failure = compare_all(variant.reference, workload->tolerance, kPoisonSecond)) return failure;
          for (std::size_t i = 0; i < def.outputs.size(); ++i)
            if (auto difference = [&] {
                  const auto checking = phases.measure("checks");
                  const std::byte* second = buffer.data() + layout.output_base() + layout.output_offsets[i];
                  return nondeterminism(def.outputs[i].name, def.outputs[i].dtype, resolved.output_shapes[i], first[i].data(),
                                        second, workload->tolerance);
                }())
              return Failure{Status::reward_hack, "nondeterministic: " + *difference};
        }
        ++(round < options_.rounds ? row.rounds_passed : row.extra_rounds_passed);
        if (static_cast<int>(variants.size()) < variants_kept) variants.push_back(known);
      }
      if (!options_.time_candidates) return std::nullopt;
      if (gpu)
        if (auto failure = upload_input_variants(candidate_session, buffer, layout, variants, deadline, phases)) return failure;
      if (!verdict.conditions_before) verdict.conditions_before = read_machine_conditions(options_.device);
      TimingHooks hooks;
      hooks.call_overhead = [&](double& call_overhead_ns) -> std::optional<Failure> {
        std::vector<double> overhead{0.0};
        // On a GPU the sample is the device's own time, so the round trip's overhead is not subtracted. On the CPU the
        // empty call runs in a worker of the judge's with no candidate loaded, so its floor is kept for the workload's next
        // candidates, which probe only twice.
        const auto known_floor = overhead_floor_ns_.find(workload->uuid);
        const int probes = gpu ? 0 : known_floor != overhead_floor_ns_.end() ? 2 : std::clamp(options_.iterations, 5, kOverheadProbes);
        if (probes > 0 && !probe_session_) {
          probe_session_ = std::make_unique<Session>(WorkerOptions{options_.worker_executable, options_.device, (scratch_ / "probe-worker.log").string(),
                                                                   {{"KERNELARC_WORKER_SPIN_MS", "0"}}});  // as the candidate's worker
          probe_session_->load = json();  // nothing but the empty entry point
        }
        for (int i = 0; i < probes; ++i) {
          json null_call = call_message(layout, 0, std::nullopt);
          null_call["null"] = true;
          auto& probe = *probe_session_;
          if (auto failure = probe.prepare(buffer, generation, binding, deadline, Status::runtime_error)) {
            failure->reason = "the judge's probe worker failed: " + failure->reason;
            return failure;
          }
          const auto flushed = probe.worker.request({{"op", "flush"}, {"bytes", options_.flush_bytes}}, deadline);
          const auto reply = flushed.ok() ? probe.worker.request(null_call, deadline) : flushed;
          if (!reply.ok()) {
            probe.ready = false;
            return Failure{Status::runtime_error, fmt::format("the judge's probe worker failed before timing: {}", reply.description)};
          }
          if (i == 0) overhead.clear();
          overhead.push_back(static_cast<double>(reply.round_trip.count()));
        }
        // The fastest probe, not the median: the empty call's cost is a floor plus noise, and the same noise lands on
        // the timed calls. Taking off the median leaves about half the samples of a kernel shorter than that noise at
        // 0, so an honest 2x2 softmax "beat" its 3 ns speed of light in 3 runs of 8; and probes slowed by a burst of
        // load left every sample of a 2 ms kernel at 0. Taking off the floor errs on the slow side, never the impossible.
        call_overhead_ns = *std::min_element(overhead.begin(), overhead.end());
        if (!gpu) {
          if (known_floor != overhead_floor_ns_.end()) call_overhead_ns = std::min(call_overhead_ns, known_floor->second);
          overhead_floor_ns_[workload->uuid] = call_overhead_ns;
        }
        return std::nullopt;
      };
      hooks.unseen_round = [&](int k, std::shared_ptr<const Round>& round) -> std::optional<Failure> {
        auto& kept = unseen_rounds_[workload->uuid];
        if (k < static_cast<int>(kept.size())) {
          round = kept[static_cast<std::size_t>(k)];
          return std::nullopt;
        }
        if (auto failure = make_round(common::mix64(workload_seed ^ (0x756e7365656eULL + static_cast<std::uint64_t>(k))), round))
          return failure;
        if (k == static_cast<int>(kept.size()) && cached_round_bytes_ + round->bytes() <= options_.round_cache_bytes) {
          kept.push_back(round);
          cached_round_bytes_ += round->bytes();
        }
        return std::nullopt;
      };
      hooks.call = [&](int slot, double* round_trip_ns, double* in_process_ns, double* event_ns, CallPlan plan) {
        return call(candidate_session, slot, false, round_trip_ns, in_process_ns, event_ns, plan);
      };
      hooks.transfer = [&](const char* op, int slot, bool inputs, bool outputs) {
        return transfer(candidate_session, op, layout, slot, inputs, outputs);
      };
      hooks.check_buffers = [&](int slot, const std::vector<std::byte>& image) -> std::optional<Failure> {
        if (auto failure = check_output_guards(buffer, layout)) return failure;
        return check_inputs(buffer, layout, slot, image);
      };
      hooks.compare = [&](const std::vector<std::vector<std::byte>>& reference) {
        return compare_all(reference, workload->tolerance, kPoisonFirst);
      };
      const TimingSettings settings{options_.warmup,         options_.iterations,  options_.rechecks, options_.unseen_calls,
                                    options_.roofline_margin, options_.flush_bytes, deadline,          workload_seed,
                                    peaks_.name};
      return run_timing_protocol(settings, hooks, candidate_session, buffer, layout, guard, variants, *row.roofline, row.timing, phases, say);
    }();

    if (const auto warnings = tolerance_warnings_.find(workload->uuid); warnings != tolerance_warnings_.end()) row.warnings = warnings->second;
    if (result) {
      row.status = result->status;
      row.reason = result->reason;
    } else if (row.timing && row.baseline_ns) {
      row.score = task::sol_score(row.timing->median_ns * 1e-9, row.roofline->seconds, *row.baseline_ns * 1e-9);
    }
    say(fmt::format("  {} {}", status_name(row.status), row.reason));
    verdict.workloads.push_back(std::move(row));
  }
  verdict.worker_restarts = candidate_session.worker.restarts() - restarts_before;
  verdict.sandbox = candidate_session.sandbox_report;
  if (verdict.conditions_before) {
    verdict.conditions_after = read_machine_conditions(options_.device);
    verdict.measurement_warnings = conditions_moved(*verdict.conditions_before, *verdict.conditions_after, std::thread::hardware_concurrency());
    for (const auto& warning : verdict.measurement_warnings) say("  warning: " + warning);
  }
  verdict.judge_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  verdict.phase_seconds = phases.seconds();
  return verdict;
}

}  // namespace kernelarc::judge
