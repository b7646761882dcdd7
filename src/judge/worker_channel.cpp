#include "judge/worker_channel.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <chrono>
#include <stdexcept>

#include "judge/worker.h"

namespace kernelarc::judge {

using nlohmann::json;

WorkerChannel WorkerChannel::open_standard_streams() {
  const rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  const int protocol_in = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
  const int protocol_out = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  if (protocol_in < 0 || protocol_out < 0) throw std::runtime_error("cannot move the protocol to private descriptors");
  dup2(STDERR_FILENO, STDOUT_FILENO);
  const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null_fd >= 0) dup2(null_fd, STDIN_FILENO);
  const char* spin = std::getenv("KERNELARC_WORKER_SPIN_MS");
  return WorkerChannel(protocol_in, protocol_out, spin && *spin ? std::clamp(std::atoi(spin), 0, 1000) : kWorkerSpinMilliseconds);
}

int WorkerChannel::serve(const Handler& handler) {
  std::string line;
  while (read_line(line)) {
    json reply, sequence;
    try {
      const json request = json::parse(line);
      if (request.is_object() && request.contains("seq")) sequence = request.at("seq");
      const std::string op = request.at("op").get<std::string>();
      if (op == "quit") {
        send({{"ok", true}, {"seq", sequence}});
        return 0;
      }
      reply = handler(op, request);
    } catch (const std::exception& error) {
      reply = {{"ok", false}, {"error", error.what()}};
    }
    if (!sequence.is_null()) reply["seq"] = sequence;
    send(reply);
    if (reply.value("fatal", false)) _exit(4);
  }
  return 0;
}

bool WorkerChannel::read_line(std::string& line) {
  for (;;) {
    const auto newline = pending_.find('\n');
    if (newline != std::string::npos) {
      line = pending_.substr(0, newline);
      pending_.erase(0, newline + 1);
      return true;
    }
    wait_for_input();
    char chunk[4096];
    const ssize_t count = ::read(input_fd_, chunk, sizeof chunk);
    if (count < 0 && errno == EINTR) continue;
    if (count <= 0) return false;
    pending_.append(chunk, static_cast<std::size_t>(count));
  }
}

// Spin briefly before sleeping: waking a sleeping process costs tens of microseconds, which
// would otherwise land inside the timed round trip.
void WorkerChannel::wait_for_input() const {
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(spin_milliseconds_);
  pollfd fd{input_fd_, POLLIN, 0};
  while (std::chrono::steady_clock::now() < until)
    if (poll(&fd, 1, 0) != 0) return;
  poll(&fd, 1, -1);
}

void WorkerChannel::send(const json& reply) const {
  const std::string text = reply.dump() + '\n';
  for (std::size_t sent = 0; sent < text.size();) {
    const ssize_t count = ::write(output_fd_, text.data() + sent, text.size() - sent);
    if (count < 0 && errno == EINTR) continue;
    if (count <= 0) _exit(3);
    sent += static_cast<std::size_t>(count);
  }
}

}  // namespace kernelarc::judge
