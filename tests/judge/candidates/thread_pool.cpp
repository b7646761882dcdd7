// Correct, with a legitimate trick: a persistent helper thread (a tiny pool) shares the rows and then parks on a
// condition variable between calls, using no CPU. Finished work before returning, so it must PASS.
#include <kernelarc/candidate_abi.h>

#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

namespace {

void softmax_rows(const float* x, float* y, int64_t begin, int64_t end, int64_t cols) {
  for (int64_t r = begin; r < end; ++r) {
    float max = x[r * cols];
    for (int64_t c = 1; c < cols; ++c) max = std::fmax(max, x[r * cols + c]);
    float sum = 0;
    for (int64_t c = 0; c < cols; ++c) sum += std::exp(x[r * cols + c] - max);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - max) / sum;
  }
}

struct Helper {
  std::mutex mutex;
  std::condition_variable wake, done;
  const float* x = nullptr;
  float* y = nullptr;
  int64_t begin = 0, end = 0, cols = 0;
  uint64_t posted = 0, finished = 0;

  Helper() {
    std::thread([this] {
      std::unique_lock<std::mutex> lock(mutex);
      for (uint64_t seen = 0;; ) {
        wake.wait(lock, [&] { return posted != seen; });
        seen = posted;
        lock.unlock();
        softmax_rows(x, y, begin, end, cols);
        lock.lock();
        finished = seen;
        done.notify_all();
      }
    }).detach();
  }
};

}  // namespace

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs, (void)stream;
  static Helper* helper = new Helper();  // never destroyed: the thread outlives every call
  const float* x = static_cast<const float*>(inputs[0]->data);
  float* y = static_cast<float*>(outputs[0]->data);
  const int64_t rows = inputs[0]->shape[0], cols = inputs[0]->shape[1];
  const int64_t half = rows / 2;
  uint64_t ticket;
  {
    std::lock_guard<std::mutex> lock(helper->mutex);
    helper->x = x, helper->y = y, helper->begin = half, helper->end = rows, helper->cols = cols;
    ticket = ++helper->posted;
  }
  helper->wake.notify_one();
  softmax_rows(x, y, 0, half, cols);
  std::unique_lock<std::mutex> lock(helper->mutex);
  helper->done.wait(lock, [&] { return helper->finished == ticket; });
  return 0;
}
