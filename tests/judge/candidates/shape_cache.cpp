// Timing (caching results keyed on the shape): computes a shape's answer once and replays it on every later call
// with that shape. Every round brings fresh inputs of the same shape, so the replay is a stale answer: rejected.
#include <kernelarc/candidate_abi.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <utility>
#include <vector>

namespace {

void softmax_rows(const float* x, float* y, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    float max = x[r * cols];
    for (int64_t c = 1; c < cols; ++c) max = std::fmax(max, x[r * cols + c]);
    float sum = 0;
    for (int64_t c = 0; c < cols; ++c) sum += std::exp(x[r * cols + c] - max);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - max) / sum;
  }
}

std::map<std::pair<int64_t, int64_t>, std::vector<float>> answers;

}  // namespace

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs, (void)stream;
  const int64_t rows = inputs[0]->shape[0], cols = inputs[0]->shape[1];
  float* y = static_cast<float*>(outputs[0]->data);
  auto& known = answers[{rows, cols}];
  if (known.empty()) {
    softmax_rows(static_cast<const float*>(inputs[0]->data), y, rows, cols);
    known.assign(y, y + rows * cols);
  } else {
    std::memcpy(y, known.data(), known.size() * sizeof(float));
  }
  return 0;
}
