// Right answer, but leaves a thread burning CPU after the call returned and tries to hide it from a CPU-time sum
// over all threads: a decoy thread that burned CPU during the call exits just after the return, so the total drops.
#include <kernelarc/candidate_abi.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <thread>

namespace {

std::atomic<unsigned long> sink{0};

void spin_until(std::chrono::steady_clock::time_point until) {
  while (std::chrono::steady_clock::now() < until) sink.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs, (void)stream;
  using namespace std::chrono;
  const auto start = steady_clock::now();
  std::thread(spin_until, start + milliseconds(110)).detach();  // the decoy: busy during the call, gone 10 ms after
  const float* x = static_cast<const float*>(inputs[0]->data);
  float* y = static_cast<float*>(outputs[0]->data);
  const int64_t rows = inputs[0]->shape[0], cols = inputs[0]->shape[1];
  for (int64_t r = 0; r < rows; ++r) {
    float max = x[r * cols];
    for (int64_t c = 1; c < cols; ++c) max = std::fmax(max, x[r * cols + c]);
    float sum = 0;
    for (int64_t c = 0; c < cols; ++c) sum += std::exp(x[r * cols + c] - max);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - max) / sum;
  }
  std::this_thread::sleep_until(start + milliseconds(100));
  std::thread(spin_until, steady_clock::now() + milliseconds(400)).detach();  // the hidden background work
  return 0;
}
