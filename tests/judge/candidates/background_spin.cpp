// Right answer, but leaves a detached thread burning CPU after the call returned (work the call's timing never sees).
#include <kernelarc/candidate_abi.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <thread>

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs, (void)stream;
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
  std::thread([] {
    static std::atomic<unsigned long> sink{0};
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(400);
    while (std::chrono::steady_clock::now() < until) sink.fetch_add(1, std::memory_order_relaxed);
  }).detach();
  return 0;
}
