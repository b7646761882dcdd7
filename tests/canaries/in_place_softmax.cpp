// Honest: uses the output as its own scratch (the exponentials are written there, then divided in place), which looks
// like working in place but never touches the input. Must PASS.
#include <kernelarc/candidate_abi.h>

#include <cmath>
#include <cstdint>

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs, (void)stream;
  const float* x = static_cast<const float*>(inputs[0]->data);
  float* y = static_cast<float*>(outputs[0]->data);
  const int64_t rows = inputs[0]->shape[0], cols = inputs[0]->shape[1];
  for (int64_t r = 0; r < rows; ++r) {
    const float* in = x + r * cols;
    float* out = y + r * cols;
    float max = in[0];
    for (int64_t c = 1; c < cols; ++c) max = std::fmax(max, in[c]);
    float sum = 0;
    for (int64_t c = 0; c < cols; ++c) sum += (out[c] = std::exp(in[c] - max));
    const float inverse = 1.0f / sum;
    for (int64_t c = 0; c < cols; ++c) out[c] *= inverse;
  }
  return 0;
}
