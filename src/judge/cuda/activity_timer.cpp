#include "judge/cuda/activity_timer.h"

#include <cupti_activity.h>
#include <cupti_result.h>
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "common/runtime_library.h"

namespace kernelarc::judge::cuda {

namespace {

struct Cupti {
  decltype(&::cuptiActivityRegisterCallbacks) register_callbacks = nullptr;
  decltype(&::cuptiActivityEnable) enable = nullptr;
  decltype(&::cuptiActivityDisable) disable = nullptr;
  decltype(&::cuptiActivityFlushAll) flush_all = nullptr;
  decltype(&::cuptiActivityGetNextRecord) next_record = nullptr;
  decltype(&::cuptiGetTimestamp) timestamp = nullptr;
  decltype(&::cuptiGetResultString) result_string = nullptr;
  decltype(&::cuptiActivitySetAttribute) set_attribute = nullptr;
};

struct LoadResult {
  Cupti api;
  bool ok = false;
  std::string why;
};

// Never unloaded: CUPTI keeps threads and our callbacks registered for the life of the process.
LoadResult load() {
  LoadResult result;
  common::RuntimeLibrary library("CUPTI", {"libcupti.so.13", "libcupti.so", "/usr/local/cuda/lib64/libcupti.so.13",
                                           "/usr/local/cuda/lib64/libcupti.so", "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13",
                                           "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so"});
  const auto resolve = [&](auto& slot, const char* name) { library.resolve(slot, name); };
  auto& a = result.api;
  resolve(a.register_callbacks, "cuptiActivityRegisterCallbacks");
  resolve(a.enable, "cuptiActivityEnable");
  resolve(a.disable, "cuptiActivityDisable");
  resolve(a.flush_all, "cuptiActivityFlushAll");
  resolve(a.next_record, "cuptiActivityGetNextRecord");
  resolve(a.timestamp, "cuptiGetTimestamp");
  resolve(a.result_string, "cuptiGetResultString");
  resolve(a.set_attribute, "cuptiActivitySetAttribute");
  result.ok = library.ok();
  result.why = library.why();
  return result;
}

const LoadResult& loaded() {
  static const LoadResult result = load();
  return result;
}

std::string describe(CUptiResult status) {
  const char* text = nullptr;
  if (loaded().ok && loaded().api.result_string(status, &text) == CUPTI_SUCCESS && text) return text;
  return fmt::format("CUPTI error {}", static_cast<int>(status));
}

void check_cupti(CUptiResult status, const char* what) {
  if (status != CUPTI_SUCCESS) throw std::runtime_error(fmt::format("{}: {}", what, describe(status)));
}

struct Interval {
  std::uint64_t start = 0, end = 0;
  bool kernel = false;
};

constexpr std::size_t kBufferBytes = 8u << 20;

// Filled by CUPTI's completion callback, which may run on a CUPTI thread.
std::mutex collected_mutex;
std::vector<Interval> collected;
std::vector<std::uint8_t*> spare_buffers;  // reused so the timed loop does not fault in fresh pages
std::atomic<bool> timer_live{false};

constexpr CUpti_ActivityKind kKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                         CUPTI_ACTIVITY_KIND_MEMSET};

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  std::uint8_t* fresh = nullptr;
  {
    std::lock_guard lock(collected_mutex);
    if (!spare_buffers.empty()) {
      fresh = spare_buffers.back();
      spare_buffers.pop_back();
    }
  }
  // calloc's 16-byte alignment covers CUPTI's 8; the buffer must be zeroed (see create()).
  if (!fresh) fresh = static_cast<std::uint8_t*>(std::calloc(1, kBufferBytes));
  *buffer = fresh;
  *size = fresh ? kBufferBytes : 0;
  *max_records = 0;
}

// The record layout follows CUDA 13.0's CUPTI: CUpti_ActivityKernel10, CUpti_ActivityMemcpy6 and
// CUpti_ActivityMemset4 (start and end sit at the same offsets in every earlier version too).
template <typename Record>
Interval interval_of(const CUpti_Activity* record, bool kernel) {
  const auto* typed = reinterpret_cast<const Record*>(record);
  return {typed->start, typed->end, kernel};
}

void CUPTIAPI buffer_completed(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t, std::size_t valid) {
  if (!buffer) return;
  std::vector<Interval> found;
  CUpti_Activity* record = nullptr;
  while (valid > 0 && loaded().api.next_record(buffer, valid, &record) == CUPTI_SUCCESS) {
    switch (record->kind) {
      case CUPTI_ACTIVITY_KIND_KERNEL:
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        found.push_back(interval_of<CUpti_ActivityKernel10>(record, true));
        break;
      case CUPTI_ACTIVITY_KIND_MEMCPY:
        found.push_back(interval_of<CUpti_ActivityMemcpy6>(record, false));
        break;
      case CUPTI_ACTIVITY_KIND_MEMSET:
        found.push_back(interval_of<CUpti_ActivityMemset4>(record, false));
        break;
      default:
        break;
    }
  }
  std::memset(buffer, 0, valid);  // only the bytes CUPTI wrote, so the buffer goes back zeroed
  std::lock_guard lock(collected_mutex);
  collected.insert(collected.end(), found.begin(), found.end());
  spare_buffers.push_back(buffer);
}

}  // namespace

std::unique_ptr<ActivityTimer> ActivityTimer::create(std::string* why) {
  const auto refuse = [&](std::string reason) -> std::unique_ptr<ActivityTimer> {
    if (why) *why = std::move(reason);
    return nullptr;
  };
  if (!loaded().ok) return refuse(loaded().why);
  if (timer_live.exchange(true)) {
    return refuse("a CUPTI activity timer is already live in this process (CUPTI's activity callbacks are process-wide)");
  }
  const Cupti& api = loaded().api;
  // Both only make the first launch after each flush cheaper (measured on an H200: 0.67 ms with CUPTI's
  // defaults, 0.06 ms with these), so a refusal is no reason to go without the timer. CUPTI otherwise zeroes
  // each new 8 MiB host buffer on the launching thread, and resets a 3.2 MB device buffer; 1 MiB still
  // holds ~32,000 activities before CUPTI must rotate buffers inside a call.
  std::uint8_t zeroed = 1;
  std::size_t zeroed_size = sizeof zeroed;
  api.set_attribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &zeroed_size, &zeroed);
  std::size_t device_buffer = 1u << 20;
  std::size_t device_buffer_size = sizeof device_buffer;
  api.set_attribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, &device_buffer_size, &device_buffer);
  if (const CUptiResult status = api.register_callbacks(buffer_requested, buffer_completed); status != CUPTI_SUCCESS) {
    timer_live = false;
    return refuse(fmt::format("CUPTI refused the activity callbacks: {}", describe(status)));
  }
  for (std::size_t i = 0; i < std::size(kKinds); ++i) {
    if (const CUptiResult status = api.enable(kKinds[i]); status != CUPTI_SUCCESS) {
      for (std::size_t j = 0; j < i; ++j) api.disable(kKinds[j]);
      timer_live = false;
      const bool taken = status == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
      return refuse(fmt::format("CUPTI refused activity kind {}: {}{}", static_cast<int>(kKinds[i]), describe(status),
                                taken ? " (another profiler holds CUPTI)" : ""));
    }
  }
  return std::unique_ptr<ActivityTimer>(new ActivityTimer());
}

ActivityTimer::~ActivityTimer() {
  const Cupti& api = loaded().api;
  for (const CUpti_ActivityKind kind : kKinds) api.disable(kind);
  api.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  {
    std::lock_guard lock(collected_mutex);
    collected.clear();
    for (std::uint8_t* buffer : spare_buffers) std::free(buffer);
    spare_buffers.clear();
  }
  timer_live = false;
}

int ActivityTimer::begin() {
  const Cupti& api = loaded().api;
  check_cupti(api.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
  int stray = 0;
  {
    std::lock_guard lock(collected_mutex);
    // The worker itself only copies and sets memory between calls: a kernel that started then is the candidate's.
    for (const Interval& interval : collected) stray += end_ns_ != 0 && interval.kernel && interval.start > end_ns_ ? 1 : 0;
    collected.clear();
  }
  check_cupti(api.timestamp(&begin_ns_), "cuptiGetTimestamp");
  return stray;
}

std::uint64_t ActivityTimer::now() const {
  std::uint64_t timestamp = 0;
  check_cupti(loaded().api.timestamp(&timestamp), "cuptiGetTimestamp");
  return timestamp;
}

ActivitySpan ActivityTimer::end(std::uint64_t stream_done_ns) {
  const Cupti& api = loaded().api;
  check_cupti(api.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
  std::vector<Interval> intervals;
  {
    std::lock_guard lock(collected_mutex);
    intervals.swap(collected);
  }
  ActivitySpan span;
  std::uint64_t first = UINT64_MAX, last = 0;
  for (const Interval& interval : intervals) {
    // Work queued before the call, untimed records (start = end = 0) and unfinished ones are not the call's.
    if (interval.start < begin_ns_ || interval.end < interval.start) continue;
    ++span.records;
    span.kernels += interval.kernel ? 1 : 0;
    // A margin for the GPU-to-host clock conversion; an unjoined side stream's work outlasts it by far, and its
    // time is inside the span either way.
    constexpr std::uint64_t kLateMarginNs = 50'000;
    span.late += stream_done_ns != 0 && interval.end > stream_done_ns + kLateMarginNs ? 1 : 0;
    first = std::min(first, interval.start);
    last = std::max(last, interval.end);
  }
  if (span.records > 0) span.span_ns = static_cast<double>(last - first);
  check_cupti(api.timestamp(&end_ns_), "cuptiGetTimestamp");  // every record of the call ended before this
  return span;
}

}  // namespace kernelarc::judge::cuda
