#include "common/parallel.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace kernelarc::common {

void for_each_chunk(std::int64_t count, std::int64_t chunk,
                    const std::function<void(std::int64_t, std::int64_t, std::int64_t)>& body) {
  if (count <= 0) return;
  chunk = std::max<std::int64_t>(chunk, 1);
  const std::int64_t chunks = (count + chunk - 1) / chunk;
  const auto run = [&](std::int64_t index) { body(index * chunk, std::min(count, (index + 1) * chunk), index); };
  const auto threads = std::min<std::int64_t>(chunks, std::max(1u, std::thread::hardware_concurrency()));
  if (threads <= 1) {
    for (std::int64_t index = 0; index < chunks; ++index) run(index);
    return;
  }
  std::atomic<std::int64_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  const auto worker = [&] {
    for (std::int64_t index; (index = next.fetch_add(1)) < chunks;) {
      try {
        run(index);
      } catch (...) {
        std::lock_guard lock(failure_mutex);
        if (!failure) failure = std::current_exception();
        next = chunks;  // stop handing out work
      }
    }
  };
  std::vector<std::thread> pool;
  for (std::int64_t t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& thread : pool) thread.join();
  if (failure) std::rethrow_exception(failure);
}

namespace {
constexpr std::int64_t kByteChunk = 4 << 20;  // large enough that a thread's start costs little beside it
}  // namespace

void copy_bytes(void* to, const void* from, std::size_t bytes) {
  for_each_chunk(static_cast<std::int64_t>(bytes), kByteChunk, [&](std::int64_t begin, std::int64_t end, std::int64_t) {
    std::memcpy(static_cast<char*>(to) + begin, static_cast<const char*>(from) + begin, static_cast<std::size_t>(end - begin));
  });
}

void fill_bytes(void* to, unsigned char value, std::size_t bytes) {
  for_each_chunk(static_cast<std::int64_t>(bytes), kByteChunk, [&](std::int64_t begin, std::int64_t end, std::int64_t) {
    std::memset(static_cast<char*>(to) + begin, value, static_cast<std::size_t>(end - begin));
  });
}

bool equal_bytes(const void* a, const void* b, std::size_t bytes) {
  std::atomic<bool> equal{true};
  for_each_chunk(static_cast<std::int64_t>(bytes), kByteChunk, [&](std::int64_t begin, std::int64_t end, std::int64_t) {
    if (!equal.load(std::memory_order_relaxed)) return;
    if (std::memcmp(static_cast<const char*>(a) + begin, static_cast<const char*>(b) + begin, static_cast<std::size_t>(end - begin)) != 0)
      equal = false;
  });
  return equal;
}

}  // namespace kernelarc::common
