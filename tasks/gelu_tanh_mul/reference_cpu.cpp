// Native C++ reference for GELU(tanh)-and-mul: float32 math with std::tanh in PyTorch's order of operations
// (0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))), rounded to bfloat16 as the PyTorch reference rounds.
#include <kernelarc/candidate_abi.h>

#include <cmath>
#include <cstdint>

static float gelu_tanh(float x) {
  const float beta = static_cast<float>(M_SQRT2 * M_2_SQRTPI * 0.5), kappa = 0.044715f;
  const float cube = x * x * x;
  return 0.5f * x * (1.0f + std::tanh(beta * (x + kappa * cube)));
}

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs, (void)stream;
  const auto* gate_up = static_cast<const uint16_t*>(inputs[0]->data);
  auto* out = static_cast<uint16_t*>(outputs[0]->data);
  const int64_t tokens = outputs[0]->shape[0], inter = outputs[0]->shape[1];
  for (int64_t t = 0; t < tokens; ++t)
    for (int64_t c = 0; c < inter; ++c) {
      const float gate = kernelarc_bf16_to_float(gate_up[t * 2 * inter + c]);
      const float up = kernelarc_bf16_to_float(gate_up[t * 2 * inter + inter + c]);
      out[t * inter + c] = kernelarc_float_to_bf16(gelu_tanh(gate) * up);
    }
  return 0;
}
