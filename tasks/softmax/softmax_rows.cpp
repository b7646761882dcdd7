// Softmax template: knobs ROWS_PER_STEP (rows interleaved for more independent work) and
// ONE_PASS (online max and rescaled sum in a single read of the row).
#include <kernelarc/candidate_abi.h>

#include <cmath>
#include <cstdint>

#ifndef ROWS_PER_STEP
#define ROWS_PER_STEP 1
#endif
#ifndef ONE_PASS
#define ONE_PASS 0
#endif

static void softmax_row(const float* in, float* out, int64_t cols) {
  float max = in[0], sum = 0;
#if ONE_PASS
  for (int64_t c = 0; c < cols; ++c) {
    if (in[c] > max) {
      sum *= std::exp(max - in[c]);
      max = in[c];
    }
    sum += std::exp(in[c] - max);
  }
#else
  for (int64_t c = 1; c < cols; ++c) max = std::fmax(max, in[c]);
  for (int64_t c = 0; c < cols; ++c) sum += std::exp(in[c] - max);
#endif
  const float inverse = 1.0f / sum;
  for (int64_t c = 0; c < cols; ++c) out[c] = std::exp(in[c] - max) * inverse;
}

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs, (void)stream;
  const float* x = static_cast<const float*>(inputs[0]->data);
  float* y = static_cast<float*>(outputs[0]->data);
  const int64_t rows = inputs[0]->shape[0], cols = inputs[0]->shape[1];
  int64_t r = 0;
  for (; r + ROWS_PER_STEP <= rows; r += ROWS_PER_STEP)
    for (int k = 0; k < ROWS_PER_STEP; ++k) softmax_row(x + (r + k) * cols, y + (r + k) * cols, cols);
  for (; r < rows; ++r) softmax_row(x + r * cols, y + r * cols, cols);
  return 0;
}
