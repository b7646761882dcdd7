// Running a short-lived command with a deadline, its output captured (compilers, probes).
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kernelarc::common {

struct CommandResult {
  int exit_code = -1;     // valid when neither signalled nor timed out
  int signal = 0;         // the signal that ended it, 0 if none
  bool timed_out = false;
  std::string output;     // stdout and stderr together, at most max_output bytes
  bool ok() const { return !timed_out && signal == 0 && exit_code == 0; }
  std::string describe() const;  // "exit code 1", "killed by SIGSEGV", "timed out"
};

struct CommandOptions {
  std::chrono::milliseconds timeout{60000};
  std::size_t max_output = 1 << 20;
  // The command's whole environment ("NAME=value" each); unset: the caller's. argv[0] is then searched in its PATH.
  std::optional<std::vector<std::string>> environment;
  // Runs in the child between fork and exec, where only system calls are safe (the caller may have other threads):
  // returns null, or what failed (the command then does not run and exits with code 126).
  std::function<const char*()> before_exec;
};

// Runs argv[0] (searched in PATH) in its own process group; the whole group is killed at the deadline.
CommandResult run_command(const std::vector<std::string>& argv, const CommandOptions& options);
CommandResult run_command(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                          std::size_t max_output = 1 << 20);

// "exited with code N" / "killed by signal SIGSEGV (Segmentation fault)" for a waitpid status.
std::string describe_wait_status(int status);

}  // namespace kernelarc::common
