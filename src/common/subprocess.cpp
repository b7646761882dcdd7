#include "common/subprocess.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace kernelarc::common {

namespace {

std::string signal_name(int signal) {
  const char* abbreviation = sigabbrev_np(signal);
  const char* description = strsignal(signal);
  return fmt::format("SIG{} ({})", abbreviation ? abbreviation : std::to_string(signal).c_str(),
                     description ? description : "unknown");
}

// argv[0] as execvp would find it in this PATH (it is itself when it names a folder).
std::string find_program(const std::string& name, const std::string& search_path) {
  if (name.find('/') != std::string::npos) return name;
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = search_path.find(':', start);
    const std::string folder = search_path.substr(start, end == std::string::npos ? std::string::npos : end - start);
    const std::string candidate = (folder.empty() ? std::string(".") : folder) + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    if (end == std::string::npos) return name;
    start = end + 1;
  }
}

}  // namespace

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) return fmt::format("exited with code {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return fmt::format("killed by signal {}", signal_name(WTERMSIG(status)));
  return fmt::format("ended with wait status {}", status);
}

std::string CommandResult::describe() const {
  if (timed_out) return "timed out";
  if (signal != 0) return fmt::format("killed by signal {}", signal_name(signal));
  return fmt::format("exit code {}", exit_code);
}

CommandResult run_command(const std::vector<std::string>& argv, std::chrono::milliseconds timeout, std::size_t max_output) {
  CommandOptions options;
  options.timeout = timeout;
  options.max_output = max_output;
  return run_command(argv, options);
}

CommandResult run_command(const std::vector<std::string>& argv, const CommandOptions& options) {
  if (argv.empty()) throw std::invalid_argument("run_command: empty command");
  const auto timeout = options.timeout;
  const auto max_output = options.max_output;
  std::vector<char*> args;
  for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  // With an environment of its own, everything the child needs is made here: after fork it only makes system calls.
  std::string program = argv[0];
  std::vector<char*> envp;
  if (options.environment) {
    std::string search_path = "/usr/bin:/bin";
    for (const auto& variable : *options.environment) {
      envp.push_back(const_cast<char*>(variable.c_str()));
      if (variable.starts_with("PATH=")) search_path = variable.substr(5);
    }
    envp.push_back(nullptr);
    program = find_program(argv[0], search_path);
  }
  const std::string start_failure = fmt::format("cannot run {}: ", argv[0]);
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(fmt::format("fork: {}", std::strerror(errno)));
  if (pid == 0) {
    setpgid(0, 0);
    dup2(pipe_fds[1], STDOUT_FILENO);
    dup2(pipe_fds[1], STDERR_FILENO);
    const int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd >= 0) dup2(null_fd, STDIN_FILENO);
    const char* failure = options.before_exec ? options.before_exec() : nullptr;
    if (failure) {
      const int error = errno;
      for (const char* part : {start_failure.c_str(), failure, ": ", strerrordesc_np(error), "\n"})
        if (part) (void)!write(STDERR_FILENO, part, std::strlen(part));
      _exit(126);
    }
    if (options.environment) execve(program.c_str(), args.data(), envp.data());
    else execvp(args[0], args.data());
    const char* reason = strerrordesc_np(errno);
    for (const char* part : {start_failure.c_str(), reason ? reason : "unknown error", "\n"}) (void)!write(STDERR_FILENO, part, std::strlen(part));
    _exit(127);
  }
  setpgid(pid, pid);
  close(pipe_fds[1]);
  CommandResult result;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  char buffer[65536];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      break;
    }
    pollfd fd{pipe_fds[0], POLLIN, 0};
    const int ready = poll(&fd, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) continue;
    const ssize_t count = read(pipe_fds[0], buffer, sizeof buffer);
    if (count < 0 && errno == EINTR) continue;
    if (count <= 0) break;
    if (result.output.size() < max_output)
      result.output.append(buffer, std::min<std::size_t>(static_cast<std::size_t>(count), max_output - result.output.size()));
  }
  close(pipe_fds[0]);
  if (result.timed_out) kill(-pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!result.timed_out) {
    if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  }
  return result;
}

}  // namespace kernelarc::common
