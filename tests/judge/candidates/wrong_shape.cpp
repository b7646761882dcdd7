// Wrong shape: assumes each row has one more column than given, so the last row writes past the end of y.
#include <kernelarc/candidate_abi.h>

#include <cmath>
#include <cstdint>

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs, (void)stream;
  const float* x = static_cast<const float*>(inputs[0]->data);
  float* y = static_cast<float*>(outputs[0]->data);
  const int64_t rows = inputs[0]->shape[0], cols = inputs[0]->shape[1];
  const int64_t assumed_cols = cols + 1;  // the bug
  for (int64_t r = 0; r < rows; ++r) {
    float max = x[r * cols];
    for (int64_t c = 1; c < cols; ++c) max = std::fmax(max, x[r * cols + c]);
    float sum = 0;
    for (int64_t c = 0; c < cols; ++c) sum += std::exp(x[r * cols + c] - max);
    // Rows are written in order, so the extra element of row r is overwritten by row r + 1, except the last one.
    for (int64_t c = 0; c < assumed_cols; ++c) y[r * cols + c] = c < cols ? std::exp(x[r * cols + c] - max) / sum : 0.0f;
  }
  return 0;
}
