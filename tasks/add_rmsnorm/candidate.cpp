// A deliberately plain starting candidate for residual add + RMSNorm: two passes over each row.
#include <kernelarc/candidate_abi.h>

#include <cmath>
#include <cstdint>

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs, (void)stream;
  const auto* x = static_cast<const uint16_t*>(inputs[0]->data);
  const auto* residual = static_cast<const uint16_t*>(inputs[1]->data);
  const auto* weight = static_cast<const uint16_t*>(inputs[2]->data);
  const float eps = *static_cast<const float*>(inputs[3]->data);
  auto* out = static_cast<uint16_t*>(outputs[0]->data);
  auto* new_residual = static_cast<uint16_t*>(outputs[1]->data);
  const int64_t tokens = inputs[0]->shape[0], hidden = inputs[0]->shape[1];
  for (int64_t t = 0; t < tokens; ++t) {
    float squares = 0;
    for (int64_t c = 0; c < hidden; ++c) {
      const int64_t i = t * hidden + c;
      new_residual[i] = kernelarc_float_to_bf16(kernelarc_bf16_to_float(x[i]) + kernelarc_bf16_to_float(residual[i]));
      const float h = kernelarc_bf16_to_float(new_residual[i]);
      squares += h * h;
    }
    const float scale = 1.0f / std::sqrt(squares / static_cast<float>(hidden) + eps);
    for (int64_t c = 0; c < hidden; ++c) {
      const int64_t i = t * hidden + c;
      out[i] = kernelarc_float_to_bf16(kernelarc_bf16_to_float(new_residual[i]) * scale * kernelarc_bf16_to_float(weight[c]));
    }
  }
  return 0;
}
