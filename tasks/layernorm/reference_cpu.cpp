// Native C++ reference for LayerNorm: mean and biased variance in double (the mean first, then the squared deviations),
// out = (x - mean) / sqrt(var + eps) * weight + bias in double, rounded to bfloat16 once as the PyTorch reference rounds.
#include <kernelarc/candidate_abi.h>

#include <cmath>
#include <cstdint>

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
    double sum = 0;
    for (int64_t c = 0; c < hidden; ++c) sum += kernelarc_bf16_to_float(row[c]);
    const double mean = sum / static_cast<double>(hidden);
    double deviations = 0;
    for (int64_t c = 0; c < hidden; ++c) {
      const double d = kernelarc_bf16_to_float(row[c]) - mean;
      deviations += d * d;
    }
    const double rstd = 1.0 / std::sqrt(deviations / static_cast<double>(hidden) + static_cast<double>(eps));
    for (int64_t c = 0; c < hidden; ++c) {
      const double y = (kernelarc_bf16_to_float(row[c]) - mean) * rstd;
      out[t * hidden + c] = kernelarc_float_to_bf16(
          static_cast<float>(y * kernelarc_bf16_to_float(weight[c]) + kernelarc_bf16_to_float(bias[c])));
    }
  }
  return 0;
}
