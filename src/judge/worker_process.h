// The judge's side of a worker: spawns `kernelarc worker` (or the reference oracle, which speaks its protocol),
// sends requests, enforces deadlines, and turns a crash, a hang or a broken protocol into a described outcome.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kernelarc::judge {

struct WorkerOptions {
  std::filesystem::path executable;   // the kernelarc binary
  std::string device = "cpu";
  std::filesystem::path log_file;     // the worker's stderr (and the candidate's output) goes here
  std::map<std::string, std::string> environment;  // set for the worker, beside the few variables it keeps (TMPDIR, say)
  std::vector<std::string> leading_arguments;      // before "worker --device ...": the oracle's script after python3
};

// forged: a reply that answers none of the judge's requests (candidate code in the worker wrote to the reply pipe).
enum class ReplyOutcome { ok, refused, crashed, timed_out, forged };

struct WorkerReply {
  ReplyOutcome outcome = ReplyOutcome::ok;
  nlohmann::json body;                 // the worker's reply when ok or refused
  std::string description;            // why it failed: "killed by signal SIGSEGV", "no reply within 2000 ms"
  std::chrono::nanoseconds round_trip{0};
  bool ok() const { return outcome == ReplyOutcome::ok; }
};

class WorkerProcess {
 public:
  explicit WorkerProcess(WorkerOptions options);
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;
  ~WorkerProcess();

  // Starts the worker if it is not running; a request that crashes or hangs leaves it stopped.
  WorkerReply request(const nlohmann::json& message, std::chrono::milliseconds deadline);
  // The same with the message already serialised (one line, no newline): for the timed loop's hot path.
  WorkerReply request_line(const std::string& line, std::chrono::milliseconds deadline);
  void stop();
  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  int restarts() const { return starts_ > 0 ? starts_ - 1 : 0; }
  int starts() const { return starts_; }
  // The last lines the worker wrote to its log: what a crashing candidate printed.
  std::string log_tail(std::size_t max_bytes = 600) const;

 private:
  void start();
  std::string reap(bool kill_first);

  WorkerOptions options_;
  pid_t pid_ = -1;
  int to_worker_ = -1;
  int from_worker_ = -1;
  int starts_ = 0;
  std::uint64_t sequence_ = 0;  // each request's number, echoed by its reply; starts at random so it cannot be guessed
  std::string pending_;
};

}  // namespace kernelarc::judge
