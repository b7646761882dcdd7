// CPU LayerNorm template: out = (x - mean) / sqrt(var + eps) * weight + bias, row by row, float32 math. Knob ONE_PASS
// (algorithmic): 0 reads a row for the mean, again for the squared deviations; 1 takes the sum and the sum of squares in
// one read, accumulated in double so that var = E[x^2] - mean^2 does not cancel.
#include <kernelarc/candidate_abi.h>

#include <cmath>
#include <cstdint>

// Knobs (ONE_PASS): defined by the judge from definition.json, the one place their values are written.

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs, (void)stream;
  const auto* x = static_cast<const uint16_t*>(inputs[0]->data);
  const auto* weight = static_cast<const uint16_t*>(inputs[1]->data);
  const auto* bias = static_cast<const uint16_t*>(inputs[2]->data);
  const float eps = *static_cast<const float*>(inputs[3]->data);
  auto* out = static_cast<uint16_t*>(outputs[0]->data);
  const int64_t tokens = inputs[0]->shape[0], hidden = inputs[0]->shape[1];
  for (int64_t t = 0; t < tokens; ++t) {
    const uint16_t* row = x + t * hidden;
#if ONE_PASS
    double sum = 0, squares = 0;
    for (int64_t c = 0; c < hidden; ++c) {
      const double v = kernelarc_bf16_to_float(row[c]);
      sum += v;
      squares += v * v;
    }
    const double mean_d = sum / static_cast<double>(hidden);
    const float mean = static_cast<float>(mean_d);
    const float var = static_cast<float>(std::fmax(squares / static_cast<double>(hidden) - mean_d * mean_d, 0.0));
#else
    float sum = 0;
    for (int64_t c = 0; c < hidden; ++c) sum += kernelarc_bf16_to_float(row[c]);
    const float mean = sum / static_cast<float>(hidden);
    float deviations = 0;
    for (int64_t c = 0; c < hidden; ++c) {
      const float d = kernelarc_bf16_to_float(row[c]) - mean;
      deviations += d * d;
    }
    const float var = deviations / static_cast<float>(hidden);
#endif
    const float rstd = 1.0f / std::sqrt(var + eps);
    for (int64_t c = 0; c < hidden; ++c)
      out[t * hidden + c] = kernelarc_float_to_bf16((kernelarc_bf16_to_float(row[c]) - mean) * rstd * kernelarc_bf16_to_float(weight[c]) +
                                                    kernelarc_bf16_to_float(bias[c]));
  }
  return 0;
}
