#include "judge/worker_process.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <random>
#include <fstream>
#include <iterator>
#include <map>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "common/subprocess.h"

namespace kernelarc::judge {

using nlohmann::json;

namespace {

// The worker runs untrusted code: it gets only the variables it needs, never the user's secrets (API keys and the like).
std::vector<std::string> worker_environment(const std::map<std::string, std::string>& extra) {
  static const char* const kNames[] = {"PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "TZ", "LD_LIBRARY_PATH", "XDG_CACHE_HOME",
                                       "KERNELARC_CACHE_DIR", "KERNELARC_GPU_TIMER", "KERNELARC_SANDBOX_TRACE"};
  static const char* const kPrefixes[] = {"CUDA_", "NVIDIA_", "LC_"};
  std::vector<std::string> kept;
  for (char** entry = environ; *entry; ++entry) {
    const std::string_view variable(*entry);
    const std::string_view name = variable.substr(0, variable.find('='));
    const bool named = std::any_of(std::begin(kNames), std::end(kNames), [&](const char* n) { return name == n; });
    const bool prefixed = std::any_of(std::begin(kPrefixes), std::end(kPrefixes), [&](const char* p) { return name.starts_with(p); });
    if ((named || prefixed) && !extra.count(std::string(name))) kept.emplace_back(variable);
  }
  for (const auto& [name, value] : extra) kept.push_back(name + "=" + value);
  return kept;
}

}  // namespace

WorkerProcess::WorkerProcess(WorkerOptions options) : options_(std::move(options)) {
  // A worker that dies mid-write must not kill the judge.
  signal(SIGPIPE, SIG_IGN);
}

WorkerProcess::~WorkerProcess() { stop(); }

void WorkerProcess::start() {
  int to_child[2], from_child[2];
  if (pipe2(to_child, O_CLOEXEC) != 0 || pipe2(from_child, O_CLOEXEC) != 0)
    throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
  const int log_fd = ::open(options_.log_file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (log_fd < 0) throw std::runtime_error(fmt::format("cannot open worker log {}: {}", options_.log_file.string(), std::strerror(errno)));
  const std::string executable = options_.executable.string();
  const std::vector<std::string> environment = worker_environment(options_.environment);  // built before fork: the child only execs
  std::vector<char*> envp;
  for (const auto& variable : environment) envp.push_back(const_cast<char*>(variable.c_str()));
  envp.push_back(nullptr);
  std::vector<std::string> arguments{executable};
  arguments.insert(arguments.end(), options_.leading_arguments.begin(), options_.leading_arguments.end());
  arguments.insert(arguments.end(), {"worker", "--device", options_.device});
  std::vector<char*> argv;
  for (auto& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(fmt::format("fork: {}", std::strerror(errno)));
  if (pid == 0) {
    setpgid(0, 0);
    dup2(to_child[0], STDIN_FILENO);
    dup2(from_child[1], STDOUT_FILENO);
    dup2(log_fd, STDERR_FILENO);
    execve(executable.c_str(), argv.data(), envp.data());
    const std::string message = fmt::format("cannot start worker {}: {}\n", executable, std::strerror(errno));
    (void)!write(STDERR_FILENO, message.data(), message.size());
    _exit(127);
  }
  setpgid(pid, pid);
  ::close(to_child[0]);
  ::close(from_child[1]);
  ::close(log_fd);
  pid_ = pid;
  to_worker_ = to_child[1];
  from_worker_ = from_child[0];
  pending_.clear();
  sequence_ = (static_cast<std::uint64_t>(std::random_device{}()) << 20) ^ std::random_device{}();
  ++starts_;
}

std::string WorkerProcess::reap(bool kill_first) {
  if (pid_ <= 0) return "not running";
  if (kill_first) kill(-pid_, SIGKILL);  // the whole group: threads and any child it forked
  ::close(to_worker_);
  ::close(from_worker_);
  int status = 0;
  pid_t done = 0;
  if (!kill_first) {
    // It closed its pipe: give it two seconds to finish dying so its real cause of death is seen.
    for (int i = 0; i < 200 && (done = waitpid(pid_, &status, WNOHANG)) == 0; ++i) usleep(10000);
    kill(-pid_, SIGKILL);
  }
  while (done == 0 || (done < 0 && errno == EINTR)) done = waitpid(pid_, &status, 0);
  pid_ = -1;
  to_worker_ = from_worker_ = -1;
  if (done > 0 && WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS)
    return common::describe_wait_status(status) + ": the sandbox refused a system call (a socket, a new process, an exec, a ptrace, bpf, "
                                                  "perf_event_open, io_uring, a handle-based open, a mount, a namespace, a key, a set*id or "
                                                  "a signal to another process)";
  return done > 0 ? common::describe_wait_status(status) : "lost";
}

void WorkerProcess::stop() {
  if (pid_ > 0) reap(true);
}

std::string WorkerProcess::log_tail(std::size_t max_bytes) const {
  std::ifstream in(options_.log_file, std::ios::binary | std::ios::ate);
  if (!in) return "";
  const auto size = static_cast<std::size_t>(in.tellg());
  const std::size_t start = size > max_bytes ? size - max_bytes : 0;
  in.seekg(static_cast<std::streamoff>(start));
  std::string tail(size - start, '\0');
  in.read(tail.data(), static_cast<std::streamsize>(tail.size()));
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
  return tail;
}

WorkerReply WorkerProcess::request(const json& message, std::chrono::milliseconds deadline) {
  return request_line(message.dump(), deadline);
}

WorkerReply WorkerProcess::request_line(const std::string& message, std::chrono::milliseconds deadline) {
  if (pid_ <= 0) start();
  WorkerReply reply;
  // Every request carries a number its reply must echo: a line written into the pipe by anything else is caught.
  const std::uint64_t sequence = ++sequence_;
  const std::string numbered = fmt::format("{{\"seq\":{}{}", sequence, message.size() > 2 && message.front() == '{' ? "," : "}");
  const std::string line = numbered + (message.size() > 2 && message.front() == '{' ? message.substr(1) : "") + '\n';
  const auto start_time = std::chrono::steady_clock::now();
  const auto fail = [&](ReplyOutcome outcome, std::string description, bool kill_first) {
    const std::string ending = reap(kill_first);
    reply.outcome = outcome;
    reply.description = outcome == ReplyOutcome::timed_out || outcome == ReplyOutcome::forged ? description : fmt::format("{}: worker {}", description, ending);
    reply.round_trip = std::chrono::steady_clock::now() - start_time;
    return reply;
  };
  for (std::size_t sent = 0; sent < line.size();) {
    const ssize_t count = ::write(to_worker_, line.data() + sent, line.size() - sent);
    if (count < 0 && errno == EINTR) continue;
    if (count <= 0) return fail(ReplyOutcome::crashed, "the worker stopped reading", false);
    sent += static_cast<std::size_t>(count);
  }
  const auto until = start_time + deadline;
  for (;;) {
    const auto newline = pending_.find('\n');
    if (newline != std::string::npos) {
      reply.round_trip = std::chrono::steady_clock::now() - start_time;
      const std::string text = pending_.substr(0, newline);
      pending_.erase(0, newline + 1);
      try {
        reply.body = json::parse(text);
      } catch (const json::exception&) {  // a parse error, or a number too large for a double (a forged reply can hold one)
        return fail(ReplyOutcome::crashed, fmt::format("the worker protocol broke (got \"{}\")", text.substr(0, 80)), true);
      }
      if (!reply.body.is_object() || !reply.body.contains("ok"))
        return fail(ReplyOutcome::crashed, "the worker protocol broke (reply without \"ok\")", true);
      if (const auto echoed = reply.body.find("seq"); echoed == reply.body.end() || !echoed->is_number_unsigned() || echoed->get<std::uint64_t>() != sequence)
        return fail(ReplyOutcome::forged,
                    fmt::format("a reply that answers none of the judge's requests came first (\"{}\"): code in the worker wrote "
                                "to the judge's reply pipe",
                                text.substr(0, 80)),
                    true);
      reply.outcome = reply.body.value("ok", false) ? ReplyOutcome::ok : ReplyOutcome::refused;
      reply.description = reply.body.value("error", "");
      if (reply.body.value("fatal", false)) reply.description += fmt::format(" (the worker ended: {})", reap(false));
      return reply;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    if (left.count() <= 0)
      return fail(ReplyOutcome::timed_out, fmt::format("no reply within {} ms, worker killed", deadline.count()), true);
    pollfd fd{from_worker_, POLLIN, 0};
    // Spin for the first 20 ms (the timed replies), then sleep: waking costs tens of microseconds.
    const bool spin = std::chrono::steady_clock::now() - start_time < std::chrono::milliseconds(20);
    const int ready = poll(&fd, 1, spin ? 0 : static_cast<int>(left.count()) + 1);
    if (ready < 0 && errno != EINTR) return fail(ReplyOutcome::crashed, fmt::format("poll: {}", std::strerror(errno)), true);
    if (ready <= 0) continue;
    char chunk[65536];
    const ssize_t count = ::read(from_worker_, chunk, sizeof chunk);
    if (count < 0 && errno == EINTR) continue;
    if (count <= 0) return fail(ReplyOutcome::crashed, "the worker died", false);
    pending_.append(chunk, static_cast<std::size_t>(count));
    if (pending_.size() > (1u << 20)) return fail(ReplyOutcome::crashed, "the worker protocol broke (reply over 1 MiB)", true);
  }
}

}  // namespace kernelarc::judge
