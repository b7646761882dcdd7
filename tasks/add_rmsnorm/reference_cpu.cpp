// Native reference for residual add + RMSNorm, matching the PyTorch reference's roundings.
#include <kernelarc/candidate_abi.h>

#include <cmath>
#include <cstdint>
#include <vector>

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs, (void)stream;
  const auto* x = static_cast<const uint16_t*>(inputs[0]->data);
  const auto* residual = static_cast<const uint16_t*>(inputs[1]->data);
  const auto* weight = static_cast<const uint16_t*>(inputs[2]->data);
  const float eps = *static_cast<const float*>(inputs[3]->data);
  auto* out = static_cast<uint16_t*>(outputs[0]->data);
  auto* new_residual = static_cast<uint16_t*>(outputs[1]->data);
  const int64_t tokens = inputs[0]->shape[0], hidden = inputs[0]->shape[1];
  std::vector<float> h(static_cast<size_t>(hidden));
  for (int64_t t = 0; t < tokens; ++t) {
    double squares = 0;
    for (int64_t c = 0; c < hidden; ++c) {
      const uint16_t rounded = kernelarc_float_to_bf16(kernelarc_bf16_to_float(x[t * hidden + c]) +
                                                       kernelarc_bf16_to_float(residual[t * hidden + c]));
      new_residual[t * hidden + c] = rounded;
      h[c] = kernelarc_bf16_to_float(rounded);
      squares += static_cast<double>(h[c]) * h[c];
    }
    const float scale = static_cast<float>(1.0 / std::sqrt(squares / static_cast<double>(hidden) + eps));
    for (int64_t c = 0; c < hidden; ++c)
      out[t * hidden + c] = kernelarc_float_to_bf16(h[c] * scale * kernelarc_bf16_to_float(weight[c]));
  }
  return 0;
}
