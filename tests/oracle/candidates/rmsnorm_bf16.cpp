// RMSNorm of bf16 rows for the test problem rmsnorm_bf16: fp32 sums, one row at a time.
#include <kernelarc/candidate_abi.h>

#include <cmath>
#include <cstdint>

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs, (void)stream;
  const auto* x = static_cast<const uint16_t*>(inputs[0]->data);
  const auto* weight = static_cast<const uint16_t*>(inputs[1]->data);
  const float eps = *static_cast<const float*>(inputs[2]->data);
  auto* y = static_cast<uint16_t*>(outputs[0]->data);
  const int64_t rows = inputs[0]->shape[0], hidden = inputs[0]->shape[1];
  for (int64_t r = 0; r < rows; ++r) {
    float squares = 0;
    for (int64_t c = 0; c < hidden; ++c) {
      const float h = kernelarc_bf16_to_float(x[r * hidden + c]);
      squares += h * h;
    }
    const float scale = 1.0f / std::sqrt(squares / static_cast<float>(hidden) + eps);
    for (int64_t c = 0; c < hidden; ++c)
      y[r * hidden + c] = kernelarc_float_to_bf16(kernelarc_bf16_to_float(x[r * hidden + c]) * scale * kernelarc_bf16_to_float(weight[c]));
  }
  return 0;
}
