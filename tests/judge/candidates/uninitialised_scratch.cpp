// Semantics (undefined behaviour that passes once): sums each row's exponentials into a heap scratch it never clears.
// The first allocation comes from fresh, zeroed pages, so the first call is right; later calls reuse memory that holds
// the last call's sums. The judge's later rounds and re-checked timed calls see it: rejected.
#include <kernelarc/candidate_abi.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs, (void)stream;
  const float* x = static_cast<const float*>(inputs[0]->data);
  float* y = static_cast<float*>(outputs[0]->data);
  const int64_t rows = inputs[0]->shape[0], cols = inputs[0]->shape[1];
  // Large enough for malloc to take fresh pages from the system the first time, and small enough to be kept for reuse.
  static float* sums = nullptr;
  if (!sums) sums = static_cast<float*>(std::malloc(1 << 16));
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t slot = r % 4096;
    float max = x[r * cols];
    for (int64_t c = 1; c < cols; ++c) max = std::fmax(max, x[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c) sums[slot] += std::exp(x[r * cols + c] - max);  // never set to zero first
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - max) / sums[slot];
  }
  return 0;
}
