// LayerNorm with weight, bias and a per-column shift for the test problem layer_norm_shift; -DNO_SHIFT leaves the shift
// out (a candidate the judge must reject, so the file's values are known to reach both sides).
#include <kernelarc/candidate_abi.h>

#include <cmath>
#include <cstdint>

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs, (void)stream;
  const auto* x = static_cast<const float*>(inputs[0]->data);
  const auto* weight = static_cast<const float*>(inputs[1]->data);
  const auto* bias = static_cast<const float*>(inputs[2]->data);
  const auto* shift = static_cast<const float*>(inputs[3]->data);
  const float eps = *static_cast<const float*>(inputs[4]->data);
  auto* y = static_cast<float*>(outputs[0]->data);
  const int64_t rows = inputs[0]->shape[0], hidden = inputs[0]->shape[1];
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = x + r * hidden;
    double mean = 0, var = 0;
    for (int64_t c = 0; c < hidden; ++c) mean += row[c];
    mean /= static_cast<double>(hidden);
    for (int64_t c = 0; c < hidden; ++c) var += (row[c] - mean) * (row[c] - mean);
    var /= static_cast<double>(hidden);
    const double scale = 1.0 / std::sqrt(var + eps);
    for (int64_t c = 0; c < hidden; ++c) {
      double value = (row[c] - mean) * scale * weight[c] + bias[c];
#ifndef NO_SHIFT
      value += shift[c];
#endif
      y[r * hidden + c] = static_cast<float>(value);
    }
  }
  return 0;
}
