// Tells apart the timed calls whose output the judge re-checks: those find y filled with the poison pattern. A cheater
// would skip the work on the others; this canary returns 7 on such a call instead, to show it could tell.
#include <kernelarc/candidate_abi.h>

#include <cmath>
#include <cstdint>
#include <cstring>

namespace {

bool poisoned(const float* y, int64_t count) {
  uint32_t first, last;
  std::memcpy(&first, y, sizeof first);
  std::memcpy(&last, y + count - 1, sizeof last);
  const auto is_poison = [](uint32_t bits) { return bits == 0xFFFFFFFFu || bits == 0xEEEEEEEEu; };  // the judge's two poisons
  return is_poison(first) && is_poison(last);
}

}  // namespace

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs, (void)stream;
  const float* x = static_cast<const float*>(inputs[0]->data);
  float* y = static_cast<float*>(outputs[0]->data);
  const int64_t rows = inputs[0]->shape[0], cols = inputs[0]->shape[1];
  if (!poisoned(y, rows * cols)) return 7;  // an unchecked call: a cheater returns here without computing
  for (int64_t r = 0; r < rows; ++r) {
    float max = x[r * cols];
    for (int64_t c = 1; c < cols; ++c) max = std::fmax(max, x[r * cols + c]);
    float sum = 0;
    for (int64_t c = 0; c < cols; ++c) sum += std::exp(x[r * cols + c] - max);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - max) / sum;
  }
  return 0;
}
