#include "judge/other_threads_clock.h"

#include <fmt/format.h>

#include <cstdio>
#include <ctime>

namespace kernelarc::judge {

OtherThreadsClock::OtherThreadsClock(pid_t pid) : pid_(pid) {
  clockid_t clock{};
  if (pid > 0 && clock_getcpuclockid(pid, &clock) == 0) process_clock_ = clock;
}

std::optional<double> OtherThreadsClock::ns() const {
  if (!process_clock_) return std::nullopt;
  // The main thread first: a reading taken between the two can only count the main thread's latest work as another
  // thread's, never hide another thread's.
  const std::string path = fmt::format("/proc/{}/task/{}/schedstat", pid_, pid_);
  std::FILE* file = std::fopen(path.c_str(), "r");
  if (!file) return std::nullopt;
  unsigned long long main_ns = 0;
  const bool read = std::fscanf(file, "%llu", &main_ns) == 1;
  std::fclose(file);
  timespec process{};
  if (!read || clock_gettime(*process_clock_, &process) != 0) return std::nullopt;
  const double process_ns = static_cast<double>(process.tv_sec) * 1e9 + static_cast<double>(process.tv_nsec);
  return std::max(0.0, process_ns - static_cast<double>(main_ns));
}

}  // namespace kernelarc::judge
