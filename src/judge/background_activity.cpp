#include "judge/background_activity.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "judge/worker.h"

namespace kernelarc::judge {

namespace fs = std::filesystem;

std::optional<std::string> find_background_activity(pid_t pid) {
  const fs::path tasks = fs::path("/proc") / std::to_string(pid) / "task";
  const std::string main_thread = std::to_string(pid);
  std::error_code error;
  // CPU time of each thread by id. Counted thread by thread: in a sum over the threads alive at each look, a thread
  // that exits in between takes its whole past CPU time out and hides work that another thread keeps doing.
  const auto runtime = [&]() {
    std::map<std::string, double> ns_by_thread;
    for (const auto& entry : fs::directory_iterator(tasks, error)) {
      std::ifstream stat(entry.path() / "schedstat");
      double ns = 0;
      stat >> ns;
      ns_by_thread[entry.path().filename().string()] = ns;
    }
    return ns_by_thread;
  };
  const auto before = runtime();
  if (before.size() <= 1) return std::nullopt;
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const auto after = runtime();
  double used_ns = 0;
  for (const auto& [thread, ns] : after) {
    const auto earlier = before.find(thread);
    double delta = std::max(0.0, ns - (earlier == before.end() ? 0.0 : earlier->second));
    // The main thread's own wait loop spins up to kWorkerSpinMilliseconds after the reply: that CPU is the worker's.
    if (thread == main_thread) delta = std::max(0.0, delta - kWorkerSpinMilliseconds * 1e6);
    used_ns += delta;
  }
  // An idle pool parked in the kernel uses nothing; work still running after the call returned is a hack.
  if (used_ns > 5e6)
    return fmt::format("work kept running on {} threads after the call returned ({:.1f} ms of CPU in 50 ms)", after.size() - 1,
                       used_ns / 1e6);
  return std::nullopt;
}

}  // namespace kernelarc::judge
