// Nondeterministic: every other call perturbs the output by a real amount (5e-4 relative + 5e-6), which stays inside
// the task's tolerance (atol 1e-5, rtol 1e-3) but far outside rounding noise, like a racy reduction would.
#include <kernelarc/candidate_abi.h>

#include <cmath>
#include <cstdint>

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs, (void)stream;
  static int64_t calls = 0;
  const bool perturb = calls++ % 2 == 1;
  const float* x = static_cast<const float*>(inputs[0]->data);
  float* y = static_cast<float*>(outputs[0]->data);
  const int64_t rows = inputs[0]->shape[0], cols = inputs[0]->shape[1];
  for (int64_t r = 0; r < rows; ++r) {
    float max = x[r * cols];
    for (int64_t c = 1; c < cols; ++c) max = std::fmax(max, x[r * cols + c]);
    float sum = 0;
    for (int64_t c = 0; c < cols; ++c) sum += std::exp(x[r * cols + c] - max);
    for (int64_t c = 0; c < cols; ++c) {
      const float value = std::exp(x[r * cols + c] - max) / sum;
      y[r * cols + c] = perturb ? value * (1.0f + 5e-4f) + 5e-6f : value;
    }
  }
  return 0;
}
