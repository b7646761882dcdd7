// The walls around a worker that runs a candidate (untrusted, often model-written code), raised by the worker itself
// once it is set up and before it loads the candidate: resource limits, its own network namespace, no capability and
// no_new_privs, a filesystem allow-list (Landlock) and a system-call allow-list (seccomp). The calls a C++ candidate
// and the CUDA driver plausibly make are allowed; the hostile ones kill the process (sockets, new processes, exec,
// ptrace, bpf, perf_event_open, io_uring, handle-based opens, mounts, namespaces, keys, signals to other processes);
// any other call fails with ENOSYS. Each wall that the kernel does not offer is reported, never silently skipped.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kernelarc::judge {

struct SandboxPolicy {
  std::uint64_t address_space_bytes = 0;   // RLIMIT_AS; 0: none (a GPU driver reserves far more than it uses)
  std::uint64_t file_size_bytes = 1ull << 30;  // RLIMIT_FSIZE: the largest file it may write
  std::uint64_t open_files = 1024;         // RLIMIT_NOFILE
  bool own_network = true;                 // a network namespace with nothing in it
  bool filesystem = true;                  // Landlock: only the paths below
  bool system_calls = true;                // seccomp
  // Signal handlers and timers that deliver signals (rt_sigaction with a handler, setitimer, alarm, timer_create) fail
  // with EPERM when false. The CPU worker sets it: a handler would run the candidate's code on the worker's main
  // thread while the judge flushes the caches before a timed call.
  bool signal_handlers = true;
  // New processes and exec (fork, clone without namespaces, execve, wait4): false for every native candidate, whose
  // filter kills them. Only a Python candidate on a GPU, or one whose C++ sources the oracle builds, sets it: Triton's
  // JIT runs ptxas and a C compiler for its launcher, torch's extension loader runs ninja, g++ and nvcc. The children
  // stay inside every other wall (Landlock, seccomp, the network namespace, no capability), which they inherit; what
  // they do is not seen by the CPU clock of the candidate's threads (docs/canaries/README.md).
  bool child_processes = false;
  std::vector<std::string> read_only;      // files and folders it may read (and map executable)
  std::vector<std::string> read_write;     // files and folders it may read, write, create and remove in
  std::vector<std::string> write_existing; // folders whose existing files it may read and write, but not list, create or remove
};

nlohmann::json sandbox_policy_json(const SandboxPolicy& policy);
SandboxPolicy sandbox_policy_from(const nlohmann::json& j);

// What was raised: {"active": [...], "unavailable": ["landlock: ...", ...]}. Irreversible for the calling process
// (every thread started later inherits it); call it on the worker's only thread.
nlohmann::json enter_sandbox(const SandboxPolicy& policy);

// A second system-call filter over the first (filters stack, the stricter answer wins): new processes, exec and process
// groups are killed again. The oracle's candidate role raises it once a torch extension is built. 0 or an errno.
int forbid_child_processes();

// The system paths a C++ candidate needs to load (the C and C++ runtimes, the dynamic loader's cache, /dev/null).
std::vector<std::string> runtime_paths();

}  // namespace kernelarc::judge
