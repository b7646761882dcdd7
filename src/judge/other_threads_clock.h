// The CPU time a worker process spends outside its main thread, read by the judge from outside: the process's CPU
// clock (every thread, exited ones included) less its main thread's. Work a candidate's helper threads do between
// calls (while the judge flushes the caches with the next inputs already in place, say) is then work the timing sees.
#pragma once

#include <sys/types.h>

#include <ctime>
#include <optional>

namespace kernelarc::judge {

class OtherThreadsClock {
 public:
  // Nothing to read (no such process, or the kernel refuses its CPU clock): every reading is then nullopt.
  explicit OtherThreadsClock(pid_t pid);

  // Nanoseconds of CPU used so far by the process's threads other than the main one, exited ones included.
  std::optional<double> ns() const;

 private:
  pid_t pid_ = 0;
  std::optional<clockid_t> process_clock_;
};

}  // namespace kernelarc::judge
