// CPU template for y = (x @ weight^T) * (x_scale * w_scale) with x and weight in fp8 e4m3fn, one scale each: BLOCK_N
// weight rows decoded to fp32 at a time (tiling), each dot product over PARTIALS independent sums the compiler can
// vectorise (pipelining), the sum times the scales' product, one rounding to bf16.
#include <kernelarc/candidate_abi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

// Knobs: defined by the judge from definition.json, the one place their values are written.

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs, (void)stream;
  const auto* x = static_cast<const uint8_t*>(inputs[0]->data);
  const auto* weight = static_cast<const uint8_t*>(inputs[1]->data);
  const auto* x_scale = static_cast<const float*>(inputs[2]->data);
  const auto* w_scale = static_cast<const float*>(inputs[3]->data);
  auto* y = static_cast<uint16_t*>(outputs[0]->data);
  const float scale = x_scale[0] * w_scale[0];
  const int64_t m = inputs[0]->shape[0], k = inputs[0]->shape[1], n = inputs[1]->shape[0];
  float table[256];  // e4m3fn: sign, four exponent bits (bias 7), three mantissa bits; 0x7F and 0xFF NaN
  for (int b = 0; b < 256; ++b) {
    const int exponent = (b >> 3) & 0xF, mantissa = b & 0x7;
    const float magnitude = (b & 0x7F) == 0x7F ? NAN
                            : exponent == 0    ? std::ldexp(static_cast<float>(mantissa), -9)
                                               : std::ldexp(1.0f + mantissa / 8.0f, exponent - 7);
    table[b] = b & 0x80 ? -magnitude : magnitude;
  }
  std::vector<float> w_block(static_cast<size_t>(BLOCK_N * k)), x_row(static_cast<size_t>(k));
  for (int64_t n0 = 0; n0 < n; n0 += BLOCK_N) {
    const int64_t rows = std::min<int64_t>(BLOCK_N, n - n0);
    for (int64_t i = 0; i < rows * k; ++i) w_block[i] = table[weight[n0 * k + i]];
    for (int64_t r = 0; r < m; ++r) {
      for (int64_t p = 0; p < k; ++p) x_row[p] = table[x[r * k + p]];
      for (int64_t c = 0; c < rows; ++c) {
        const float* w = w_block.data() + c * k;
        float partial[PARTIALS] = {};
        int64_t p = 0;
        for (; p + PARTIALS <= k; p += PARTIALS)
          for (int j = 0; j < PARTIALS; ++j) partial[j] += x_row[p + j] * w[p + j];
        float sum = 0.0f;
        for (; p < k; ++p) sum += x_row[p] * w[p];
        for (float part : partial) sum += part;
        y[r * n + n0 + c] = kernelarc_float_to_bf16(sum * scale);
      }
    }
  }
  return 0;
}
