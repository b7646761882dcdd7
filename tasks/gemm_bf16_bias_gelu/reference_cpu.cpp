// Native C++ reference for y = gelu(x @ weight^T + bias, tanh) in bf16: fp32 accumulation (eight partial sums a dot
// product, so the compiler can vectorise it) with the bias added in fp32, one rounding to bf16 as F.linear rounds, then
// the GELU in fp32 and a second rounding as F.gelu rounds. Blocks of 64 weight rows are converted to fp32 once.
#include <kernelarc/candidate_abi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace {

float gelu_tanh(float v) { return 0.5f * v * (1.0f + std::tanh(0.7978845608028654f * (v + 0.044715f * v * v * v))); }

}  // namespace

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs, (void)stream;
  const auto* x = static_cast<const uint16_t*>(inputs[0]->data);
  const auto* weight = static_cast<const uint16_t*>(inputs[1]->data);
  const auto* bias = static_cast<const uint16_t*>(inputs[2]->data);
  auto* y = static_cast<uint16_t*>(outputs[0]->data);
  const int64_t m = inputs[0]->shape[0], k = inputs[0]->shape[1], n = inputs[1]->shape[0];
  constexpr int64_t kBlock = 64;
  std::vector<float> w_block(static_cast<size_t>(kBlock * k)), x_row(static_cast<size_t>(k));
  for (int64_t n0 = 0; n0 < n; n0 += kBlock) {
    const int64_t rows = std::min(kBlock, n - n0);
    for (int64_t i = 0; i < rows * k; ++i) w_block[i] = kernelarc_bf16_to_float(weight[n0 * k + i]);
    for (int64_t r = 0; r < m; ++r) {
      for (int64_t p = 0; p < k; ++p) x_row[p] = kernelarc_bf16_to_float(x[r * k + p]);
      for (int64_t c = 0; c < rows; ++c) {
        const float* w = w_block.data() + c * k;
        float partial[8] = {};
        int64_t p = 0;
        for (; p + 8 <= k; p += 8)
          for (int j = 0; j < 8; ++j) partial[j] += x_row[p + j] * w[p + j];
        float sum = kernelarc_bf16_to_float(bias[n0 + c]);
        for (; p < k; ++p) sum += x_row[p] * w[p];
        for (float part : partial) sum += part;
        y[r * n + n0 + c] = kernelarc_float_to_bf16(gelu_tanh(kernelarc_bf16_to_float(kernelarc_float_to_bf16(sum))));
      }
    }
  }
  return 0;
}
