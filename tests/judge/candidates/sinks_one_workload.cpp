// Timing (making one workload's time near zero to sink a mean): honest on the small workloads, and on the largest it
// returns at once, trusting the output buffer to still hold an answer from before (the way a silently failed launch
// "ran" in published audits). The poisoned output shows nothing was written: rejected.
#include <kernelarc/candidate_abi.h>

#include <cmath>
#include <cstdint>

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs, (void)stream;
  const float* x = static_cast<const float*>(inputs[0]->data);
  float* y = static_cast<float*>(outputs[0]->data);
  const int64_t rows = inputs[0]->shape[0], cols = inputs[0]->shape[1];
  if (rows * cols > 20000) return 0;
  for (int64_t r = 0; r < rows; ++r) {
    float max = x[r * cols];
    for (int64_t c = 1; c < cols; ++c) max = std::fmax(max, x[r * cols + c]);
    float sum = 0;
    for (int64_t c = 0; c < cols; ++c) sum += std::exp(x[r * cols + c] - max);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - max) / sum;
  }
  return 0;
}
