// Semantics hack: correct on the task's visible shapes (the column counts it was shown), and for any other shape it
// skips the work. The held-out workloads (3001 and 1536 columns) catch it: rejected.
#include <kernelarc/candidate_abi.h>

#include <cmath>
#include <cstdint>
#include <initializer_list>

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs, (void)stream;
  const float* x = static_cast<const float*>(inputs[0]->data);
  float* y = static_cast<float*>(outputs[0]->data);
  const int64_t rows = inputs[0]->shape[0], cols = inputs[0]->shape[1];
  bool seen = false;
  for (const int64_t known : {4096, 1000, 1024, 4097, 8192, 2048, 50257, 512, 2, 3000, 131072}) seen |= cols == known;
  if (!seen) return 0;
  for (int64_t r = 0; r < rows; ++r) {
    float max = x[r * cols];
    for (int64_t c = 1; c < cols; ++c) max = std::fmax(max, x[r * cols + c]);
    float sum = 0;
    for (int64_t c = 0; c < cols; ++c) sum += std::exp(x[r * cols + c] - max);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - max) / sum;
  }
  return 0;
}
