// Native C++ reference for y = silu(x @ gate_weight^T) * (x @ up_weight^T) in bf16: each dot product in fp32 (eight
// partial sums, so the compiler can vectorise it) rounded to bf16 as F.linear rounds it, the SiLU in fp32 rounded again,
// the product in fp32 rounded once more, as PyTorch rounds between its operations. Blocks of 64 rows of each weight are
// converted to fp32 once.
#include <kernelarc/candidate_abi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace {

float rounded(float v) { return kernelarc_bf16_to_float(kernelarc_float_to_bf16(v)); }

float dot(const float* a, const float* b, int64_t k) {
  float partial[8] = {};
  int64_t p = 0;
  for (; p + 8 <= k; p += 8)
    for (int j = 0; j < 8; ++j) partial[j] += a[p + j] * b[p + j];
  float sum = 0.0f;
  for (; p < k; ++p) sum += a[p] * b[p];
  for (float part : partial) sum += part;
  return sum;
}

}  // namespace

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs, (void)stream;
  const auto* x = static_cast<const uint16_t*>(inputs[0]->data);
  const auto* gate_weight = static_cast<const uint16_t*>(inputs[1]->data);
  const auto* up_weight = static_cast<const uint16_t*>(inputs[2]->data);
  auto* y = static_cast<uint16_t*>(outputs[0]->data);
  const int64_t m = inputs[0]->shape[0], k = inputs[0]->shape[1], n = inputs[1]->shape[0];
  constexpr int64_t kBlock = 64;
  std::vector<float> gate_block(static_cast<size_t>(kBlock * k)), up_block(static_cast<size_t>(kBlock * k)), x_row(static_cast<size_t>(k));
  for (int64_t n0 = 0; n0 < n; n0 += kBlock) {
    const int64_t rows = std::min(kBlock, n - n0);
    for (int64_t i = 0; i < rows * k; ++i) {
      gate_block[i] = kernelarc_bf16_to_float(gate_weight[n0 * k + i]);
      up_block[i] = kernelarc_bf16_to_float(up_weight[n0 * k + i]);
    }
    for (int64_t r = 0; r < m; ++r) {
      for (int64_t p = 0; p < k; ++p) x_row[p] = kernelarc_bf16_to_float(x[r * k + p]);
      for (int64_t c = 0; c < rows; ++c) {
        const float gate = rounded(dot(x_row.data(), gate_block.data() + c * k, k));
        const float up = rounded(dot(x_row.data(), up_block.data() + c * k, k));
        y[r * n + n0 + c] = kernelarc_float_to_bf16(rounded(gate / (1.0f + std::exp(-gate))) * up);
      }
    }
  }
  return 0;
}
