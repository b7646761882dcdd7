// Native C++ reference for the post-norm residual, rounding where the PyTorch reference rounds:
// y = bf16(x * scale * weight), out = bf16(residual + y); the sum of squares in double.
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
  const int64_t tokens = inputs[0]->shape[0], hidden = inputs[0]->shape[1];
  for (int64_t t = 0; t < tokens; ++t) {
    const int64_t base = t * hidden;
    double squares = 0;
    for (int64_t c = 0; c < hidden; ++c) {
      const double value = kernelarc_bf16_to_float(x[base + c]);
      squares += value * value;
    }
    const float scale = static_cast<float>(1.0 / std::sqrt(squares / static_cast<double>(hidden) + static_cast<double>(eps)));
    for (int64_t c = 0; c < hidden; ++c) {
      const uint16_t normed = kernelarc_float_to_bf16(kernelarc_bf16_to_float(x[base + c]) * scale * kernelarc_bf16_to_float(weight[c]));
      out[base + c] = kernelarc_float_to_bf16(kernelarc_bf16_to_float(residual[base + c]) + kernelarc_bf16_to_float(normed));
    }
  }
  return 0;
}
