// Native C++ reference for SwiGLU: float32 math with std::exp, rounded to bfloat16 as the PyTorch reference rounds.
#include <kernelarc/candidate_abi.h>

#include <cmath>
#include <cstdint>

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs, (void)stream;
  const auto* gate_up = static_cast<const uint16_t*>(inputs[0]->data);
  auto* out = static_cast<uint16_t*>(outputs[0]->data);
  const int64_t tokens = outputs[0]->shape[0], inter = outputs[0]->shape[1];
  for (int64_t t = 0; t < tokens; ++t)
    for (int64_t c = 0; c < inter; ++c) {
      const float gate = kernelarc_bf16_to_float(gate_up[t * 2 * inter + c]);
      const float up = kernelarc_bf16_to_float(gate_up[t * 2 * inter + inter + c]);
      out[t * inter + c] = kernelarc_float_to_bf16(gate / (1.0f + std::exp(-gate)) * up);
    }
  return 0;
}
