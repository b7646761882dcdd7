#include "judge/judge.h"

#include <fmt/format.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "common/units.h"
#include "judge/build_cache.h"
#include "judge/candidate_workers.h"
#include "judge/compiler_sandbox.h"
#include "judge/device_findings.h"
#include "judge/forbidden_calls.h"
#include "judge/phase_clock.h"
#include "judge/sandbox.h"
#include "judge/worker_session.h"
#include "judge/workload_judgement.h"

namespace kernelarc::judge {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::size_t read_cache_size(const fs::path& file) {
  std::ifstream in(file);
  std::string text;
  if (!(in >> text) || text.empty()) return 0;
  std::size_t value = std::strtoull(text.c_str(), nullptr, 10);
  if (text.back() == 'K') value <<= 10;
  if (text.back() == 'M') value <<= 20;
  return value;
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
    : task_(task), options_(std::move(options)), backend_(backend_for(options_.device)), peaks_(std::move(peaks)), compiler_(options_.compiler) {
  if (options_.seed == 0) options_.seed = fresh_seed();
  if (const auto device = parse_device(options_.device); device && options_.compiler.cuda_architecture.empty())
    options_.compiler.cuda_architecture = backend_.compile_target(device->ordinal);
  if (options_.worker_executable.empty()) options_.worker_executable = current_executable();
  if (options_.flush_bytes == 0) options_.flush_bytes = default_flush_bytes();
  // A quarter of the memory for rounds, an eighth for buffers: a 128 GiB GPU host keeps every round of a family task
  // with 32k-token workloads (about 26 GB), so later candidates skip input generation and the reference.
  const auto memory = static_cast<std::size_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  if (options_.round_cache_bytes == 0) options_.round_cache_bytes = memory / 4;
  round_cache_->set_budget(options_.round_cache_bytes);
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
  second_scratch_ = scratch_ / "second-candidate";
  fs::create_directories(second_scratch_);
}

Judge::~Judge() = default;

void Judge::share_rounds_with(const Judge& other) {
  if (&other.task_ != &task_ || other.options_.seed != options_.seed || other.options_.reference != options_.reference)
    throw std::invalid_argument("judges share rounds only on the same task, with the same seed and reference");
  if (options_.stricter_rounds || options_.unseen_calls > 0 || options_.rounds > other.options_.rounds)
    throw std::invalid_argument("a judge that shares another's rounds makes only its benchmark rounds, no more of them than the other");
  round_cache_ = other.round_cache_;
}

BuildResult Judge::build(const CandidateSource& candidate) const {
  if (candidate.runs_in_oracle()) return oracle_candidate_build();
  return backend_.build(candidate, task_, compiler_, options_.compiler);
}

const std::string& Judge::comparison_cubin_hex() {
  if (comparison_cubin_hex_) return *comparison_cubin_hex_;
  comparison_cubin_hex_.emplace();
  CandidateSource kernel;
  kernel.name = "kernelarc.comparison";
  kernel.source = comparison_kernel_source();
  kernel.form = task::TemplateForm::kernel;
  const BuildResult built = build(kernel);
  if (!built.ok) return *comparison_cubin_hex_;
  const std::string cubin = read_text_file(built.library);
  comparison_cubin_hex_->reserve(cubin.size() * 2);
  for (const unsigned char byte : cubin) comparison_cubin_hex_->append(fmt::format("{:02x}", byte));
  return *comparison_cubin_hex_;
}

// A candidate may read the runtime and its own library, write only in its own folder and its buffers; its device's
// backend adds what the device needs (CPU: no signal handlers, half the memory; GPU: the driver's files).
SandboxPolicy Judge::candidate_policy(const fs::path& library, const fs::path& own_folder, const fs::path& buffers) const {
  SandboxPolicy policy;
  policy.read_only = runtime_paths();
  policy.read_only.push_back(library.string());
  policy.read_write = {own_folder.string(), "/dev/null"};
  policy.write_existing = {buffers.string()};  // its buffers: written by the judge, mapped by the worker, never a stash
  backend_.adjust_candidate_policy(policy);
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
  for (const auto& [name, value] : backend_.candidate_environment(true)) options.environment[name] = value;
  return options;
}

// The native candidate's walls (candidate_policy), with the oracle's script read-only; the oracle adds its interpreter's
// folders (sys.path) read-only itself. Child processes stay killed on the CPU for a Python solution; they are allowed on
// a GPU (Triton's JIT runs ptxas and a C compiler, CuTe DSL and cuTile their own tools) and for a torch extension (ninja,
// g++, nvcc build it), with the system's compiler folders readable: a wall that cannot hold there (sandbox.h).
SandboxPolicy Judge::oracle_candidate_policy(const task::SolutionCandidate& solution, const fs::path& own_folder, const fs::path& buffers) const {
  const auto oracle = find_reference_oracle();
  SandboxPolicy policy = candidate_policy(oracle.script, own_folder, buffers);
  policy.child_processes = backend_.python_solution_children() || solution.kind == task::SolutionKind::torch_extension;
  if (policy.child_processes) {
    // The build tools install signal handlers (ninja's sigaction): a torch extension on the CPU keeps them.
    policy.signal_handlers = true;
    const auto system = compiler_system_paths();
    policy.read_only.insert(policy.read_only.end(), system.begin(), system.end());
    const auto tools = program_folders({"ninja", "c++", "nvcc"});  // torch's extension build runs these by name
    policy.read_only.insert(policy.read_only.end(), tools.begin(), tools.end());
    policy.read_only.insert(policy.read_only.end(), {"/sbin", "/usr/sbin", "/etc/alternatives", "/usr/local/bin", "/usr/local/cuda",
                                                     "/usr/local/cutlass"});
    if (const char* cutlass = std::getenv("CUTLASS_DIR"); cutlass && *cutlass) policy.read_only.emplace_back(cutlass);
  }
  return policy;
}

message::Load Judge::oracle_candidate_load(const task::SolutionCandidate& solution, const fs::path& own_folder) {
  message::Load load;
  load.solution = json{{"folder", (own_folder / "solution").string()},
                       {"kind", solution.kind == task::SolutionKind::python ? "python" : "torch_extension"},
                       {"entry_file", solution.entry_file}, {"entry_function", solution.entry_function},
                       {"destination_passing_style", solution.destination_passing_style}, {"target_hardware", solution.target_hardware},
                       {"cflags", solution.cflags}, {"cuda_cflags", solution.cuda_cflags}, {"ld_flags", solution.ld_flags}};
  return load;
}

// Outside the budget the buffer lives in `uncached`, for this workload of this candidate only.
SharedBuffer& Judge::workload_buffer(const std::string& name, std::size_t bytes, SharedBuffer& uncached) {
  if (const auto found = buffers_.find(name); found != buffers_.end()) {
    if (found->second.size() == bytes) return found->second;
    cached_buffer_bytes_ -= found->second.size();
    buffers_.erase(found);
  }
  // A candidate's buffers sit in its own folder: its sandbox reaches them and not the reference's outputs.
  const fs::path folder = name.ends_with("-second-candidate") ? second_scratch_ : name.ends_with("-candidate") ? candidate_scratch_ : scratch_;
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
  const auto own_key = backend_.own_native_reference();  // the device's own ("cuda"); none on the CPU
  const auto device_reference = native && own_key ? references.find(*own_key) : references.end();
  const auto cpu_reference = native ? references.find("cpu") : references.end();
  if (device_reference != references.end()) {
    if (say) say(fmt::format("building the native {} reference", backend_.display_name()));
    CandidateSource reference;
    reference.name = "reference";
    reference.source = read_text_file(device_reference->second);
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
                                            own_key ? backend_.display_name() + " or CPU" : std::string("CPU"),
                                            options_.reference == "native" ? "" : " and no PyTorch reference");
    reference_build_ = missing;
    return;
  }
  if (!reference_build_->ok) reference_build_->diagnostics = "the native reference does not build:\n" + reference_build_->diagnostics;
}

// A kernel-only candidate has no host code, so one worker judges them all in turn (it scrubs its device memory at each
// load): a new process and CUDA context per candidate cost about half a second. Full sources get a fresh one.
std::optional<std::string> Judge::set_up_workers(const CandidateSource& candidate, const BuildResult& build, const fs::path& prefix,
                                                 CandidateWorkers& workers, bool paired_second) {
  const fs::path& buffers = paired_second ? second_scratch_ : candidate_scratch_;
  if (candidate.form == task::TemplateForm::kernel && paired_second) {  // beside the kept one (a paired measurement)
    workers.own_candidate = std::make_unique<Session>(WorkerOptions{options_.worker_executable, options_.device, prefix.string() + "-candidate.log"},
                                                      WorkerRole::candidate);
    workers.candidate = workers.own_candidate.get();
  } else if (candidate.form == task::TemplateForm::kernel) {  // the CPU's backend refused to build one
    if (!kernel_session_)
      kernel_session_ = std::make_unique<Session>(WorkerOptions{options_.worker_executable, options_.device, (scratch_ / "kernel-worker.log").string()},
                                                  WorkerRole::candidate);
    workers.candidate = kernel_session_.get();
    workers.candidate->ready = false;  // loads this candidate's module on the first call
  } else {
    // A folder of its own, removed once it is judged: nothing it writes there (answers to the judge's inputs, say)
    // reaches a later candidate, and nothing else of the judge's is writable to it.
    workers.own_folder.emplace(prefix.string() + "-own");
    fs::create_directories(*workers.own_folder / "tmp");
    if (candidate.runs_in_oracle()) {
      // The oracle in its candidate role, the solution's sources in its own folder.
      try {
        for (const auto& file : candidate.solution->sources) {
          const fs::path path = *workers.own_folder / "solution" / file.path;
          fs::create_directories(path.parent_path());
          std::ofstream(path, std::ios::binary) << file.content;
        }
      } catch (const std::exception& error) {
        return fmt::format("the solution's sources could not be written: {}", error.what());
      }
      workers.own_candidate =
          std::make_unique<Session>(oracle_candidate_worker(prefix.string() + "-candidate.log", *workers.own_folder), WorkerRole::candidate);
      workers.own_candidate->start_deadline = std::chrono::minutes(2);  // python and torch (and on a GPU the profiler) start first
      workers.own_candidate->load_deadline = std::chrono::minutes(candidate.solution->kind == task::SolutionKind::torch_extension ? 15 : 3);
      if (options_.sandbox)
        workers.own_candidate->sandbox = message::Sandbox{sandbox_policy_json(oracle_candidate_policy(*candidate.solution, *workers.own_folder, buffers)),
                                                          sandbox_library_beside(options_.worker_executable).string()};
    } else {
      WorkerOptions worker_options{options_.worker_executable, options_.device, prefix.string() + "-candidate.log",
                                   {{"TMPDIR", (*workers.own_folder / "tmp").string()}}};
      for (const auto& [name, value] : backend_.candidate_environment(false)) worker_options.environment[name] = value;
      workers.own_candidate = std::make_unique<Session>(std::move(worker_options), WorkerRole::candidate);
      if (options_.sandbox)
        workers.own_candidate->sandbox = message::Sandbox{sandbox_policy_json(candidate_policy(build.library, *workers.own_folder, buffers)), std::nullopt};
    }
    workers.candidate = workers.own_candidate.get();
  }
  // A native reference gets a fresh worker per candidate; the oracle is kept (python and torch take seconds to start).
  if (oracle_) {
    if (!oracle_session_) {
      WorkerOptions oracle_options{oracle_->python, reference_device_, (scratch_ / "oracle.log").string()};
      oracle_options.leading_arguments = {oracle_->script.string()};
      for (const char* name : {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV"})  // where the image's torch may live
        if (const char* value = std::getenv(name)) oracle_options.environment[name] = value;
      oracle_session_ = std::make_unique<Session>(std::move(oracle_options), WorkerRole::reference);
      oracle_session_->start_deadline = std::chrono::minutes(2);
      oracle_session_->on_gpu = false;  // on a GPU too it reads its inputs from the shared file and writes its outputs there
    }
  } else {
    workers.own_reference = std::make_unique<Session>(
        WorkerOptions{options_.worker_executable, reference_device_, prefix.string() + "-reference.log", {{"KERNELARC_WORKER_SPIN_MS", "0"}}},
        WorkerRole::reference);
  }
  workers.reference = oracle_ ? oracle_session_.get() : workers.own_reference.get();
  WorkerSession& candidate_session = *workers.candidate;
  message::Load load;
  if (candidate.form == task::TemplateForm::kernel) {
    load.cubin = build.library.string();
    load.kernel = candidate.launch ? candidate.launch->kernel : "";
  } else if (candidate.runs_in_oracle()) {
    load = oracle_candidate_load(*candidate.solution, *workers.own_folder);
  } else {
    load.library = build.library.string();
  }
  candidate_session.load = std::move(load);
  message::Load reference_load;
  (oracle_ ? reference_load.python : reference_load.library) = reference_build_->library.string();
  workers.reference->load = std::move(reference_load);
  return std::nullopt;
}

std::optional<Failure> Judge::pass_build_gate(const CandidateSource& candidate, BuildResult& built, PhaseClock& phases,
                                              const ProgressCallback& say) const {
  if (auto forbidden = forbidden_call_in_source(candidate.source, task_.definition.forbid)) return Failure{Status::reward_hack, *forbidden};
  if (say) say(fmt::format("building {}", candidate.name));
  {
    const auto building = phases.measure("build");
    built = build(candidate);
  }
  if (!built.ok) return Failure{Status::compile_error, built.diagnostics};
  if (!candidate.runs_in_oracle())
    if (auto forbidden = forbidden_call_in_library(built.library, task_.definition.forbid, backend_.library_lookups_allowed()))
      return Failure{Status::reward_hack, *forbidden};
  return std::nullopt;
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
  const auto fill_all = [&](Status status, const std::string& reason, JudgePhase phase) {
    for (const auto* workload : workloads) {
      WorkloadVerdict row;
      row.uuid = workload->uuid;
      row.held_out = workload->held_out;
      row.status = status;
      row.reason = reason;
      row.failed_at = FailurePlace{phase, workload->uuid, -1, -1};
      verdict.workloads.push_back(std::move(row));
    }
    verdict.judge_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    verdict.phase_seconds = phases.seconds();
    return verdict;
  };
  if (auto failure = pass_build_gate(candidate, verdict.build, phases, say)) return fill_all(failure->status, failure->reason, JudgePhase::build);

  if (!reference_build_) {
    const auto building = phases.measure("build");
    build_reference(say);
  }
  if (!reference_build_->ok) return fill_all(Status::invalid_reference, reference_build_->diagnostics, JudgePhase::reference);

  CandidateWorkers workers;
  if (auto failure = set_up_workers(candidate, verdict.build, scratch_ / fmt::format("e{}", evaluation), workers))
    return fill_all(Status::runtime_error, *failure, JudgePhase::build);
  WorkerSession& candidate_session = *workers.candidate;
  const int restarts_before = candidate_session.worker.restarts();

  const auto workloads_started = std::chrono::steady_clock::now();
  for (const auto* workload : workloads) {
    // Workloads done out of all, and the time left at the pace so far.
    const std::size_t done = verdict.workloads.size();
    const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - workloads_started).count();
    say(fmt::format("workload {}/{} {}{}{}", done + 1, workloads.size(), workload->uuid, workload->held_out ? " (held out)" : "",
                    done == 0 ? "" : fmt::format(" ({} done in {}, about {} left)", done, common::format_duration_s(spent),
                                                 common::format_duration_s(spent / static_cast<double>(done) * static_cast<double>(workloads.size() - done)))));
    WorkloadJudgement judgement(*this, candidate, *workload, workload == workloads.front(), candidate_session, *workers.reference,
                                verdict, phases, say);
    verdict.workloads.push_back(judgement.run());
    if (options_.stop_at_first_failure && verdict.workloads.back().status != Status::passed) break;
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
