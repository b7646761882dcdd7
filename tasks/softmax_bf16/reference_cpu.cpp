// Native C++ reference for the bf16 softmax: float32 logits and exponentials as the PyTorch reference computes them, the
// sum in double, the quotient rounded to bfloat16 as .to(torch.bfloat16) rounds (to nearest even).
#include <kernelarc/candidate_abi.h>

#include <cmath>
#include <cstdint>
#include <vector>

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs, (void)stream;
  const auto* x = static_cast<const uint16_t*>(inputs[0]->data);
  auto* y = static_cast<uint16_t*>(outputs[0]->data);
  const int64_t rows = inputs[0]->shape[0], cols = inputs[0]->shape[1];
  std::vector<float> e(static_cast<size_t>(cols));
  for (int64_t r = 0; r < rows; ++r) {
    const uint16_t* in = x + r * cols;
    uint16_t* out = y + r * cols;
    float max = kernelarc_bf16_to_float(in[0]);
    for (int64_t c = 1; c < cols; ++c) max = std::fmax(max, kernelarc_bf16_to_float(in[c]));
    double sum = 0;
    for (int64_t c = 0; c < cols; ++c) sum += e[c] = std::exp(kernelarc_bf16_to_float(in[c]) - max);
    for (int64_t c = 0; c < cols; ++c) out[c] = kernelarc_float_to_bf16(static_cast<float>(e[c] / sum));
  }
  return 0;
}
