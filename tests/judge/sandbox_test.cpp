// The worker's sandbox, raised in a forked child per check: which calls it allows, which fail, which kill.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/capability.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <functional>
#include <thread>

#include "judge/sandbox.h"

namespace kernelarc::judge {
namespace {

SandboxPolicy cpu_policy() {
  SandboxPolicy policy;
  policy.read_only = runtime_paths();
  policy.read_write = {"/dev/null"};
  policy.signal_handlers = false;
  return policy;
}

// Runs `check` in a child that raised the sandbox; the child's wait status (its exit code is the check's result).
int in_sandbox(const SandboxPolicy& policy, const std::function<int()>& check, bool traced = false) {
  const pid_t pid = fork();
  if (pid == 0) {
    if (traced) setenv("KERNELARC_SANDBOX_TRACE", "1", 1);
    const nlohmann::json report = enter_sandbox(policy);
    _exit(report.at("unavailable").empty() || !policy.system_calls ? check() : 100);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

// The same with KERNELARC_SANDBOX_TRACE=1 in the child.
int in_sandbox_traced(const SandboxPolicy& policy, const std::function<int()>& check) {
  return in_sandbox(policy, [&] { return check(); }, true);
}

void expect_exit(int status, int code) {
  ASSERT_TRUE(WIFEXITED(status)) << "status " << status << (WIFSIGNALED(status) ? " (killed by signal " + std::to_string(WTERMSIG(status)) + ")" : "");
  EXPECT_EQ(WEXITSTATUS(status), code);
}

void expect_killed_by_the_filter(int status) {
  ASSERT_TRUE(WIFSIGNALED(status)) << "status " << status << (WIFEXITED(status) ? " (exit code " + std::to_string(WEXITSTATUS(status)) + ")" : "");
  EXPECT_EQ(WTERMSIG(status), SIGSYS);
}

class SandboxTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const int status = in_sandbox(cpu_policy(), [] { return 0; });
    if (WIFEXITED(status) && WEXITSTATUS(status) == 100) GTEST_SKIP() << "this kernel lacks a wall (Landlock or seccomp)";
  }
};

TEST_F(SandboxTest, HoldsNoCapabilityUnderNoNewPrivsAndAFilter) {
  expect_exit(in_sandbox(cpu_policy(),
                         [] {
                           __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
                           __user_cap_data_struct sets[_LINUX_CAPABILITY_U32S_3] = {};
                           if (syscall(SYS_capget, &header, sets) != 0) return 1;
                           for (const auto& set : sets)
                             if (set.effective || set.permitted || set.inheritable) return 2;
                           if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1) return 3;
                           if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) != 2) return 4;
                           return 0;
                         }),
              0);
}

TEST_F(SandboxTest, ThreadsTimeAndFilesOfItsOwnStillWork) {
  expect_exit(in_sandbox(cpu_policy(),
                         [] {
                           int value = 0;
                           std::thread([&] { value = 7; }).join();
                           timespec now{};
                           if (value != 7 || clock_gettime(CLOCK_MONOTONIC, &now) != 0) return 1;
                           const int fd = open("/dev/null", O_WRONLY);
                           if (fd < 0 || write(fd, "x", 1) != 1) return 2;
                           close(fd);
                           if (kill(getpid(), 0) != 0) return 3;                                     // signals to itself
                           if (syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, nullptr, nullptr) != 0) return 4;  // its own limits
                           struct sigaction current {};
                           if (sigaction(SIGALRM, nullptr, &current) != 0) return 5;  // asking is fine
                           return 0;
                         }),
              0);
}

TEST_F(SandboxTest, TheCpuWorkerInstallsNoSignalHandlerAndArmsNoSignalTimer) {
  expect_exit(in_sandbox(cpu_policy(),
                         [] {
                           struct sigaction action {};
                           action.sa_handler = [](int) {};
                           if (sigaction(SIGALRM, &action, nullptr) == 0 || errno != EPERM) return 1;
                           const itimerval every{{0, 1000}, {0, 1000}};
                           if (setitimer(ITIMER_REAL, &every, nullptr) == 0 || errno != EPERM) return 2;
                           timer_t timer{};
                           if (syscall(SYS_timer_create, CLOCK_MONOTONIC, nullptr, &timer) == 0 || errno != EPERM) return 3;
                           return 0;
                         }),
              0);
  SandboxPolicy gpu = cpu_policy();
  gpu.signal_handlers = true;  // the GPU worker's driver may need them
  expect_exit(in_sandbox(gpu,
                         [] {
                           struct sigaction action {};
                           action.sa_handler = [](int) {};
                           return sigaction(SIGUSR1, &action, nullptr) == 0 ? 0 : 1;
                         }),
              0);
}

TEST_F(SandboxTest, OtherProcessesPrioritiesAndLimitsAreNotItsToChange) {
  expect_exit(in_sandbox(cpu_policy(),
                         [] {
                           const pid_t judge = getppid();
                           const rlimit none{0, 0};
                           if (syscall(SYS_prlimit64, judge, RLIMIT_NOFILE, &none, nullptr) == 0 || errno != EPERM) return 1;
                           if (setpriority(PRIO_PROCESS, static_cast<id_t>(judge), 19) == 0 || errno != EPERM) return 2;
                           if (setpriority(PRIO_USER, 0, 19) == 0 || errno != EPERM) return 3;
                           cpu_set_t one;
                           CPU_ZERO(&one);
                           CPU_SET(0, &one);
                           if (sched_setaffinity(judge, sizeof one, &one) == 0 || errno != EPERM) return 4;
                           if (setpgid(0, 0) == 0 || errno != ENOSYS) return 5;  // a call the filter does not know
                           return 0;
                         }),
              0);
}

TEST_F(SandboxTest, TracingNamesARefusedCallAndStillFailsIt) {
  expect_exit(in_sandbox_traced(cpu_policy(), [] { return setpgid(0, 0) == -1 && errno == ENOSYS ? 0 : 1; }), 0);
}

TEST_F(SandboxTest, HostileCallsKillTheProcess) {
  const std::vector<std::pair<const char*, std::function<int()>>> hostile = {
      {"tkill of the parent", [] { return static_cast<int>(syscall(SYS_tkill, getppid(), 0)); }},
      {"tgkill of the parent", [] { return static_cast<int>(syscall(SYS_tgkill, getppid(), getppid(), 0)); }},
      {"kill of the parent", [] { return kill(getppid(), 0); }},
      {"bpf", [] { return static_cast<int>(syscall(SYS_bpf, 0, nullptr, 0)); }},
      {"perf_event_open", [] { return static_cast<int>(syscall(SYS_perf_event_open, nullptr, getppid(), -1, -1, 0)); }},
      {"io_uring_setup", [] { return static_cast<int>(syscall(SYS_io_uring_setup, 1, nullptr)); }},
      {"name_to_handle_at", [] { return static_cast<int>(syscall(SYS_name_to_handle_at, AT_FDCWD, "/", nullptr, nullptr, 0)); }},
      {"open_by_handle_at", [] { return static_cast<int>(syscall(SYS_open_by_handle_at, -1, nullptr, 0)); }},
      {"a process", [] { return static_cast<int>(syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0)); }},
      {"a thread in a new namespace", [] { return static_cast<int>(syscall(SYS_clone, CLONE_THREAD | CLONE_NEWNET, 0, 0, 0, 0)); }},
      {"setuid", [] { return static_cast<int>(syscall(SYS_setuid, 0)); }},
      {"keyctl", [] { return static_cast<int>(syscall(SYS_keyctl, 0, 0, 0, 0, 0)); }},
      {"userfaultfd", [] { return static_cast<int>(syscall(SYS_userfaultfd, 0)); }},
  };
  for (const auto& [name, call] : hostile) {
    SCOPED_TRACE(name);
    expect_killed_by_the_filter(in_sandbox(cpu_policy(), call));
  }
}

}  // namespace
}  // namespace kernelarc::judge

namespace kernelarc::judge {
namespace {

// The Python candidate's policy on a GPU or for a build (SandboxPolicy::child_processes): a child may be started and
// exec a program the policy reads, inside the same walls; once forbid_child_processes has stacked its filter, a fork
// kills again. The native policy (cpu_policy) kills the fork (HostileCallsKillTheProcess).
TEST_F(SandboxTest, ChildProcessesAreAllowedOnlyWhenThePolicySaysSoAndCanBeForbiddenAgain) {
  SandboxPolicy policy = cpu_policy();
  policy.child_processes = true;
  policy.signal_handlers = true;
  policy.read_only.insert(policy.read_only.end(), {"/usr/bin", "/bin"});
  const auto run_true = [] {
    const pid_t child = fork();
    if (child < 0) return 1;
    if (child == 0) {
      char* const argv[] = {const_cast<char*>("true"), nullptr};
      execv("/bin/true", argv);
      _exit(9);
    }
    int status = 0;
    if (waitpid(child, &status, 0) != child) return 2;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 3;
  };
  expect_exit(in_sandbox(policy, run_true), 0);
  expect_killed_by_the_filter(in_sandbox(policy, [&] {
    if (forbid_child_processes() != 0) return 4;
    return run_true();
  }));
  expect_killed_by_the_filter(in_sandbox(cpu_policy(), run_true));
}

}  // namespace
}  // namespace kernelarc::judge
