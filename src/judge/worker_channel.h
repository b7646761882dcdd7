// The worker's end of the protocol: one JSON request per line in, one reply per line out, on private
// descriptors so nothing a candidate prints can break it. Shared by the CPU and the GPU worker.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

namespace kernelarc::judge {

class WorkerChannel {
 public:
  // Moves the protocol to private descriptors, sends the process's stdout to stderr, empties stdin,
  // and turns core dumps off. Call once, before any candidate code is loaded.
  static WorkerChannel open_standard_streams();

  // Serves requests until "quit" or the end of input. A handler's exception becomes {"ok": false, "error": ...}.
  // A reply with "fatal": true is sent and then the process exits (a sticky device error): nothing after it is safe.
  using Handler = std::function<nlohmann::json(const std::string& op, const nlohmann::json& request)>;
  int serve(const Handler& handler);

 private:
  WorkerChannel(int input_fd, int output_fd, int spin_milliseconds)
      : input_fd_(input_fd), output_fd_(output_fd), spin_milliseconds_(spin_milliseconds) {}
  bool read_line(std::string& line);
  void wait_for_input() const;
  void send(const nlohmann::json& reply) const;

  int input_fd_;
  int output_fd_;
  int spin_milliseconds_;
  std::string pending_;
};

}  // namespace kernelarc::judge
