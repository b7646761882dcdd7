// CPU template for y = gelu(x @ weight^T + bias, tanh) in bf16: fp32 accumulation with the bias, rounded to bf16, the
// GELU in fp32 and rounded again. BLOCK_N weight rows converted to fp32 at a time (tiling), each dot product over
// PARTIALS independent sums the compiler can vectorise (pipelining).
#include <kernelarc/candidate_abi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

// Knobs: defined by the judge from definition.json, the one place their values are written.

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs, (void)stream;
  const auto* x = static_cast<const uint16_t*>(inputs[0]->data);
  const auto* weight = static_cast<const uint16_t*>(inputs[1]->data);
  const auto* bias = static_cast<const uint16_t*>(inputs[2]->data);
  auto* y = static_cast<uint16_t*>(outputs[0]->data);
  const int64_t m = inputs[0]->shape[0], k = inputs[0]->shape[1], n = inputs[1]->shape[0];
  std::vector<float> w_block(static_cast<size_t>(BLOCK_N * k)), x_row(static_cast<size_t>(k));
  for (int64_t n0 = 0; n0 < n; n0 += BLOCK_N) {
    const int64_t rows = std::min<int64_t>(BLOCK_N, n - n0);
    for (int64_t i = 0; i < rows * k; ++i) w_block[i] = kernelarc_bf16_to_float(weight[n0 * k + i]);
    for (int64_t r = 0; r < m; ++r) {
      for (int64_t p = 0; p < k; ++p) x_row[p] = kernelarc_bf16_to_float(x[r * k + p]);
      for (int64_t c = 0; c < rows; ++c) {
        const float* w = w_block.data() + c * k;
        float partial[PARTIALS] = {};
        int64_t p = 0;
        for (; p + PARTIALS <= k; p += PARTIALS)
          for (int j = 0; j < PARTIALS; ++j) partial[j] += x_row[p + j] * w[p + j];
        float sum = kernelarc_bf16_to_float(bias[n0 + c]);
        for (; p < k; ++p) sum += x_row[p] * w[p];
        for (float part : partial) sum += part;
        const float v = kernelarc_bf16_to_float(kernelarc_float_to_bf16(sum));
        y[r * n + n0 + c] = kernelarc_float_to_bf16(0.5f * v * (1.0f + std::tanh(0.7978845608028654f * (v + 0.044715f * v * v * v))));
      }
    }
  }
  return 0;
}
