#include "judge/sandbox.h"

#include <fmt/format.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "judge/sandbox_walls.h"

namespace kernelarc::judge {

using nlohmann::json;

namespace {

std::string errno_text(int error) { return std::strerror(error); }

void limit(int resource, std::uint64_t value, const char* name, json& report) {
  const rlimit limit{value, value};
  if (setrlimit(resource, &limit) == 0) report["active"].push_back(fmt::format("{} {}", name, value));
  else report["unavailable"].push_back(fmt::format("{}: {}", name, errno_text(errno)));
}

void drop_privileges(json& report) {
  if (const int error = set_no_new_privileges()) report["unavailable"].push_back(fmt::format("no_new_privs: {}", errno_text(error)));
  else report["active"].push_back("no_new_privs: no exec can give privileges back");
  const CapabilityDrop drop = drop_capabilities();
  if (drop.sets || drop.ambient) {
    report["unavailable"].push_back(fmt::format("capabilities: {}", errno_text(drop.sets ? drop.sets : drop.ambient)));
    return;
  }
  report["active"].push_back(
      drop.bounding == 0
          ? fmt::format("capabilities: none (effective, permitted, inheritable and ambient sets empty, bounding set emptied of 0..{})", drop.highest)
          : fmt::format("capabilities: none (effective, permitted, inheritable and ambient sets empty; the bounding set stays, {}, out of reach "
                        "under no_new_privs)",
                        errno_text(drop.bounding)));
}

void restrict_filesystem(const SandboxPolicy& policy, json& report) {
  LandlockRuleset ruleset;
  if (!ruleset.available()) {
    report["unavailable"].push_back(fmt::format("landlock (the filesystem allow-list): {}", ruleset.problem()));
    return;
  }
  for (const auto& path : policy.read_only) ruleset.allow_read(path);
  for (const auto& path : policy.read_write) ruleset.allow_read_write(path);
  for (const auto& path : policy.write_existing) ruleset.allow_write_existing(path);
  for (const auto& problem : ruleset.rule_problems()) report["unavailable"].push_back(problem);
  if (const int error = ruleset.restrict_self())
    report["unavailable"].push_back(fmt::format("landlock restrict: {}", errno_text(error)));
  else
    report["active"].push_back(fmt::format("landlock v{}: {} read-only, {} read-write and {} existing-files-only paths{}", ruleset.abi(),
                                           policy.read_only.size(), policy.read_write.size(), policy.write_existing.size(),
                                           ruleset.abi() >= 6 ? ", no signal or abstract socket outside" : ""));
}

// The calls a candidate, its C and C++ runtimes and the CUDA driver plausibly make, the hot ones first (the filter is
// read top to bottom on every call: the worker's timed round trip reads, writes and polls).
std::vector<long> hot_calls() {
  std::vector<long> calls = {SYS_read, SYS_write, SYS_ppoll, SYS_futex, SYS_ioctl, SYS_mmap, SYS_munmap, SYS_mprotect, SYS_madvise,
                             SYS_sched_yield, SYS_clock_nanosleep, SYS_nanosleep, SYS_clock_gettime, SYS_getpid, SYS_gettid,
                             SYS_rt_sigprocmask, SYS_epoll_pwait, SYS_close};
#if defined(__x86_64__)
  calls.insert(calls.begin() + 2, SYS_poll);
#endif
  return calls;
}

std::vector<long> harmless_calls() {
  std::vector<long> calls = {
      // files: Landlock decides which paths
      SYS_openat, SYS_openat2, SYS_close_range, SYS_fstat, SYS_newfstatat, SYS_statx, SYS_lseek, SYS_getdents64, SYS_readlinkat,
      SYS_faccessat, SYS_faccessat2, SYS_fcntl, SYS_dup, SYS_dup3, SYS_pipe2, SYS_pselect6, SYS_epoll_create1, SYS_epoll_ctl,
      SYS_epoll_pwait2, SYS_eventfd2, SYS_readv, SYS_writev, SYS_pread64, SYS_pwrite64, SYS_preadv, SYS_pwritev, SYS_preadv2,
      SYS_pwritev2, SYS_fsync, SYS_fdatasync, SYS_sync_file_range, SYS_ftruncate, SYS_truncate, SYS_fallocate, SYS_fadvise64, SYS_flock,
      SYS_unlinkat, SYS_mkdirat, SYS_renameat, SYS_renameat2, SYS_linkat, SYS_symlinkat, SYS_getcwd, SYS_chdir, SYS_fchdir, SYS_umask,
      SYS_statfs, SYS_fstatfs, SYS_sendfile, SYS_splice, SYS_tee, SYS_copy_file_range, SYS_memfd_create, SYS_timerfd_create,
      SYS_timerfd_settime, SYS_timerfd_gettime, SYS_signalfd4,
      // memory
      SYS_brk, SYS_mremap, SYS_msync, SYS_mincore, SYS_mlock, SYS_munlock, SYS_mlock2, SYS_mlockall, SYS_munlockall, SYS_membarrier,
      SYS_get_mempolicy, SYS_set_mempolicy, SYS_mbind, SYS_pkey_alloc, SYS_pkey_free, SYS_pkey_mprotect,
      // threads, time, identity, limits of its own
      SYS_set_robust_list, SYS_rseq, SYS_set_tid_address, SYS_exit, SYS_exit_group, SYS_futex_waitv, SYS_getrandom, SYS_uname,
      SYS_sysinfo, SYS_getrusage, SYS_times, SYS_getcpu, SYS_getuid, SYS_geteuid, SYS_getgid, SYS_getegid, SYS_getgroups, SYS_getresuid,
      SYS_getresgid, SYS_getppid, SYS_getpgid, SYS_getsid, SYS_capget, SYS_sched_getaffinity, SYS_sched_getparam, SYS_sched_getscheduler,
      SYS_sched_get_priority_max, SYS_sched_get_priority_min, SYS_sched_rr_get_interval, SYS_sched_getattr, SYS_getpriority,
      SYS_ioprio_get, SYS_getitimer, SYS_clock_getres, SYS_gettimeofday, SYS_timer_settime, SYS_timer_gettime, SYS_timer_getoverrun,
      SYS_timer_delete, SYS_setrlimit, SYS_restart_syscall,
      // signals to itself and their handling (rt_sigaction and the signal timers have rules of their own)
      SYS_rt_sigreturn, SYS_rt_sigpending, SYS_rt_sigtimedwait, SYS_rt_sigsuspend, SYS_sigaltstack,
  };
#if defined(__x86_64__)
  calls.insert(calls.end(), {SYS_open, SYS_creat, SYS_stat, SYS_lstat, SYS_getdents, SYS_readlink, SYS_access, SYS_dup2, SYS_pipe, SYS_select,
                             SYS_epoll_create, SYS_epoll_wait, SYS_eventfd, SYS_signalfd, SYS_unlink, SYS_mkdir, SYS_rmdir, SYS_rename, SYS_link,
                             SYS_symlink, SYS_getpgrp, SYS_time, SYS_getrlimit, SYS_pause, SYS_arch_prctl});
#endif
  return calls;
}

// The calls that only attack: the whole process is killed, as the canaries expect.
std::vector<long> hostile_calls() {
  std::vector<long> calls = {
      SYS_socket, SYS_socketpair, SYS_execve, SYS_execveat, SYS_ptrace, SYS_process_vm_readv, SYS_process_vm_writev, SYS_process_madvise,
      SYS_kcmp, SYS_pidfd_open, SYS_pidfd_send_signal, SYS_pidfd_getfd, SYS_tkill, SYS_unshare, SYS_setns, SYS_mount, SYS_umount2,
      SYS_move_mount, SYS_open_tree, SYS_fsopen, SYS_fsconfig, SYS_fsmount, SYS_fspick, SYS_mount_setattr, SYS_pivot_root, SYS_chroot,
      SYS_init_module, SYS_finit_module, SYS_delete_module, SYS_kexec_load, SYS_kexec_file_load, SYS_bpf, SYS_perf_event_open,
      SYS_io_uring_setup, SYS_io_uring_enter, SYS_io_uring_register, SYS_open_by_handle_at, SYS_name_to_handle_at, SYS_userfaultfd,
      SYS_keyctl, SYS_add_key, SYS_request_key, SYS_setuid, SYS_setgid, SYS_setreuid, SYS_setregid, SYS_setresuid, SYS_setresgid,
      SYS_setfsuid, SYS_setfsgid, SYS_setgroups, SYS_capset, SYS_personality, SYS_swapon, SYS_swapoff, SYS_reboot, SYS_fanotify_init,
      SYS_quotactl, SYS_acct, SYS_settimeofday, SYS_clock_settime, SYS_clock_adjtime, SYS_adjtimex, SYS_sethostname, SYS_setdomainname,
      SYS_syslog, SYS_vhangup, SYS_lookup_dcookie,
  };
#if defined(__x86_64__)
  calls.insert(calls.end(), {SYS_fork, SYS_vfork, SYS_iopl, SYS_ioperm, SYS_uselib});
#endif
  return calls;
}

// prctl options that change only the caller and need no privilege.
std::vector<std::uint32_t> harmless_prctl_options() {
  return {PR_SET_NAME, PR_GET_NAME, PR_GET_DUMPABLE, PR_SET_PDEATHSIG, PR_GET_PDEATHSIG, PR_GET_NO_NEW_PRIVS, PR_SET_NO_NEW_PRIVS,
          PR_GET_SECCOMP, PR_CAPBSET_READ, PR_GET_KEEPCAPS, PR_GET_TIMERSLACK, PR_SET_TIMERSLACK, PR_GET_THP_DISABLE, PR_SET_THP_DISABLE,
          PR_GET_SPECULATION_CTRL, PR_MCE_KILL_GET, PR_GET_TID_ADDRESS, PR_SET_VMA, PR_GET_CHILD_SUBREAPER, PR_CAP_AMBIENT};
}

// KERNELARC_SANDBOX_TRACE=1: a call the filter does not know still fails with ENOSYS, and the worker's log names it
// (to find what a driver needs on a machine where it runs, the GPU hosts).
void name_the_refused_call(int, siginfo_t* info, void* context) {
  char digits[12];
  char* first = digits + sizeof digits;
  unsigned number = static_cast<unsigned>(info->si_syscall);
  do *--first = static_cast<char>('0' + number % 10);
  while ((number /= 10) > 0 && first > digits);
  constexpr std::string_view kBefore = "kernelarc sandbox: system call ", kAfter = " refused (ENOSYS)\n";
  (void)!write(STDERR_FILENO, kBefore.data(), kBefore.size());
  (void)!write(STDERR_FILENO, first, static_cast<std::size_t>(digits + sizeof digits - first));
  (void)!write(STDERR_FILENO, kAfter.data(), kAfter.size());
  auto* registers = &static_cast<ucontext_t*>(context)->uc_mcontext;
#if defined(__x86_64__)
  registers->gregs[REG_RAX] = -ENOSYS;
#elif defined(__aarch64__)
  registers->regs[0] = static_cast<unsigned long long>(-ENOSYS);
#endif
}

bool trace_refused_calls() {
  const char* trace = std::getenv("KERNELARC_SANDBOX_TRACE");
  if (!trace || !*trace || std::string_view(trace) == "0") return false;
  struct sigaction action {};
  action.sa_sigaction = name_the_refused_call;
  action.sa_flags = SA_SIGINFO;
  return sigaction(SIGSYS, &action, nullptr) == 0;
}

void filter_system_calls(const SandboxPolicy& policy, json& report) {
  const auto self = static_cast<std::uint32_t>(getpid());
  const std::uint32_t refused = SystemCallFilter::failed(EPERM);
  SystemCallFilter filter;
  filter.allow(hot_calls());
  if (policy.child_processes) filter.allow_without_namespaces(SYS_clone, SystemCallFilter::killed());
  else filter.allow_threads_only(SYS_clone, SystemCallFilter::killed());
  filter.act_on({SYS_clone3}, SystemCallFilter::failed(ENOSYS));  // its flags sit behind a pointer: glibc falls back to clone
  // Signals to itself only: its pid, or 0 for its own process group (itself alone); tkill names any thread on the
  // system and is killed with the hostile calls (glibc signals threads with tgkill).
  filter.allow_if(SYS_kill, {{0, {self, 0}}}, SystemCallFilter::killed());
  filter.allow_if(SYS_tgkill, {{0, {self}}}, SystemCallFilter::killed());
  filter.allow_if(SYS_rt_sigqueueinfo, {{0, {self}}}, SystemCallFilter::killed());
  filter.allow_if(SYS_rt_tgsigqueueinfo, {{0, {self}}}, SystemCallFilter::killed());
  // Scheduling and limits of itself only: the judge runs as the same user, and its priority, CPUs or limits are not
  // the candidate's to change.
  for (const long nr : {long{SYS_prlimit64}, long{SYS_sched_setaffinity}, long{SYS_sched_setscheduler}, long{SYS_sched_setparam},
                        long{SYS_sched_setattr}, long{SYS_migrate_pages}, long{SYS_move_pages}})
    filter.allow_if(nr, {{0, {0, self}}}, refused);
  filter.allow_if(SYS_setpriority, {{0, {PRIO_PROCESS}}, {1, {0, self}}}, refused);
  auto prctl_options = harmless_prctl_options();
  // A policy with child processes may stack a stricter filter on itself (forbid_child_processes, once a build is done):
  // a filter only ever takes calls away.
  if (policy.child_processes) prctl_options.push_back(PR_SET_SECCOMP);
  filter.allow_if(SYS_prctl, {{0, prctl_options}}, refused);
  if (policy.signal_handlers) {
    filter.allow({SYS_rt_sigaction, SYS_setitimer, SYS_timer_create});
#if defined(__x86_64__)
    filter.allow({SYS_alarm});
#endif
  } else {
    filter.allow_if_null(SYS_rt_sigaction, 1, refused);  // asking for the current handler is fine
    filter.act_on({SYS_setitimer, SYS_timer_create}, refused);
#if defined(__x86_64__)
    filter.act_on({SYS_alarm}, refused);
#endif
  }
  filter.allow(harmless_calls());
  if (policy.child_processes) {  // before the hostile calls, which list them: the first rule that names a call decides
    // setpgid: ninja's posix_spawn makes each child a group leader. A child can so leave the worker's process group,
    // which the judge kills as a whole: a gap of this policy (docs/canaries/README.md), closed after a build by
    // forbid_child_processes.
    filter.allow({SYS_execve, SYS_wait4, SYS_waitid, SYS_setpgid});
#if defined(__x86_64__)
    filter.allow({SYS_fork, SYS_vfork});
#endif
  }
  filter.act_on(hostile_calls(), SystemCallFilter::killed());
  const bool traced = trace_refused_calls();
  filter.finish(traced ? SystemCallFilter::trapped() : SystemCallFilter::failed(ENOSYS));  // as if the kernel lacked it: libraries fall back
  if (const int error = filter.install()) {
    report["unavailable"].push_back(fmt::format("seccomp (the system-call filter): {}", errno_text(error)));
    return;
  }
  report["active"].push_back(fmt::format("seccomp: an allow-list ({} instructions); sockets, new processes, exec, ptrace, bpf, perf_event_open, "
                                         "io_uring, handle-based opens, mounts, namespaces, keys, set*id and signals to other processes kill "
                                         "the worker; any other call fails with ENOSYS{}",
                                         filter.instructions(), traced ? " and is named in the worker's log" : ""));
  if (policy.child_processes)
    report["active"].push_back("child processes: fork and exec allowed (a JIT's compilers), inside the same walls; no namespace");
  if (!policy.signal_handlers)
    report["active"].push_back("signals: installing a handler and arming a signal timer (setitimer, alarm, timer_create) fail with EPERM");
}

}  // namespace

int forbid_child_processes() {
  SystemCallFilter filter;
  filter.allow_threads_only(SYS_clone, SystemCallFilter::killed());
  filter.act_on({SYS_clone3}, SystemCallFilter::failed(ENOSYS));
  filter.act_on({SYS_execve, SYS_execveat, SYS_setpgid, SYS_setsid}, SystemCallFilter::killed());
#if defined(__x86_64__)
  filter.act_on({SYS_fork, SYS_vfork}, SystemCallFilter::killed());
#endif
  filter.finish(SystemCallFilter::allowed());  // everything else as the first filter says
  return filter.install();
}

json sandbox_policy_json(const SandboxPolicy& p) {
  return {{"address_space_bytes", p.address_space_bytes}, {"file_size_bytes", p.file_size_bytes}, {"open_files", p.open_files},
          {"own_network", p.own_network}, {"filesystem", p.filesystem}, {"system_calls", p.system_calls}, {"signal_handlers", p.signal_handlers},
          {"child_processes", p.child_processes}, {"read_only", p.read_only}, {"read_write", p.read_write}, {"write_existing", p.write_existing}};
}

SandboxPolicy sandbox_policy_from(const json& j) {
  SandboxPolicy p;
  p.address_space_bytes = j.value("address_space_bytes", p.address_space_bytes);
  p.file_size_bytes = j.value("file_size_bytes", p.file_size_bytes);
  p.open_files = j.value("open_files", p.open_files);
  p.own_network = j.value("own_network", p.own_network);
  p.filesystem = j.value("filesystem", p.filesystem);
  p.system_calls = j.value("system_calls", p.system_calls);
  p.signal_handlers = j.value("signal_handlers", p.signal_handlers);
  p.child_processes = j.value("child_processes", p.child_processes);
  p.read_only = j.value("read_only", p.read_only);
  p.read_write = j.value("read_write", p.read_write);
  p.write_existing = j.value("write_existing", p.write_existing);
  return p;
}

json enter_sandbox(const SandboxPolicy& policy) {
  json report = {{"active", json::array()}, {"unavailable", json::array()}};
  limit(RLIMIT_CORE, 0, "core files", report);
  limit(RLIMIT_FSIZE, policy.file_size_bytes, "file size", report);
  limit(RLIMIT_NOFILE, policy.open_files, "open files", report);
  if (policy.address_space_bytes > 0) limit(RLIMIT_AS, policy.address_space_bytes, "address space", report);
  if (policy.own_network) {  // before the capabilities go: it takes CAP_SYS_ADMIN
    if (unshare(CLONE_NEWNET) == 0) report["active"].push_back("network: its own namespace, with no interface up");
    else
      report["unavailable"].push_back(
          fmt::format("network namespace: {} (sockets are still refused by the system-call filter)", errno_text(errno)));
  }
  drop_privileges(report);  // before Landlock and seccomp, which then need no privilege (and forbid capset)
  if (policy.filesystem) restrict_filesystem(policy, report);
  if (policy.system_calls) filter_system_calls(policy, report);
  return report;
}

std::vector<std::string> runtime_paths() {
  return {"/usr/lib", "/usr/lib64", "/usr/local/lib", "/lib", "/lib64", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
          "/etc/localtime", "/dev/null", "/dev/zero", "/dev/urandom", "/sys/devices/system/cpu"};
}

}  // namespace kernelarc::judge
