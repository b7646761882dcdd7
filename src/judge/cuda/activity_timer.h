// Device-side time of one host call from CUPTI activity records, as SOL-ExecBench measures it: from the
// earliest start to the latest end of every kernel (any stream), memcpy and memset the call caused.
// CUPTI is loaded at run time, so the binary still starts where it is missing.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace kernelarc::judge::cuda {

struct ActivitySpan {
  double span_ns = 0;  // last end - first start over the records of the call; 0 when none
  int records = 0;     // activity records seen in the call
  int kernels = 0;     // of which kernels
  int late = 0;        // records that ended after the given stream was found done (work not joined to it)
};

// CUPTI's activity callbacks are process-wide, so at most one timer is live in a process.
class ActivityTimer {
 public:
  // Create it before the CUDA context exists. nullptr, with the reason in `why`, when CUPTI is missing,
  // refuses (another profiler attached), or a timer is already live.
  static std::unique_ptr<ActivityTimer> create(std::string* why);
  ~ActivityTimer();
  ActivityTimer(const ActivityTimer&) = delete;
  ActivityTimer& operator=(const ActivityTimer&) = delete;

  // Discards every record collected so far and marks the start of the call. Returns how many kernels started
  // after the previous end(), between calls: work a candidate left behind (a thread, a callback) to run later.
  // Throws std::runtime_error when CUPTI fails.
  int begin();
  // CUPTI's clock now, in the records' time base: taken when the given stream is done, it tells joined work
  // (ended before) from work left running on another stream (ended after).
  std::uint64_t now() const;
  // The caller has synchronised the whole device. Only records that started after begin() count; those that
  // ended after `stream_done_ns` (when non-zero) are counted as late. Throws std::runtime_error when CUPTI fails.
  ActivitySpan end(std::uint64_t stream_done_ns = 0);

 private:
  ActivityTimer() = default;
  std::uint64_t begin_ns_ = 0;
  std::uint64_t end_ns_ = 0;  // when the previous call's records were all in; 0 before the first call
};

}  // namespace kernelarc::judge::cuda
