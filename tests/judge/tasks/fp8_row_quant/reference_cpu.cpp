// Reference of the fp8_row_quant fixture: x / (absmax / 448) per row, clamped and rounded to e4m3fn (nearest, ties to even).
#include <kernelarc/candidate_abi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace {

std::uint8_t to_e4m3fn(float value) {
  const std::uint8_t sign = std::signbit(value) ? 0x80 : 0;
  const float magnitude = std::fabs(value);
  if (std::isnan(magnitude)) return 0x7F;
  if (magnitude < 0x1p-6f) return sign | static_cast<std::uint8_t>(std::nearbyint(magnitude * 512.0f));  // subnormals: steps of 2^-9
  int exponent = 0;
  std::frexp(magnitude, &exponent);
  --exponent;  // magnitude = 1.m * 2^exponent
  int mantissa = static_cast<int>(std::nearbyint((std::ldexp(magnitude, -exponent) - 1.0f) * 8.0f));
  if (mantissa == 8) mantissa = 0, ++exponent;
  const int bits = std::min(((exponent + 7) << 3) | mantissa, 0x7E);  // 0x7E is 448, the largest finite value
  return sign | static_cast<std::uint8_t>(bits);
}

}  // namespace

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs, (void)stream;
  const auto* x = static_cast<const float*>(inputs[0]->data);
  auto* q = static_cast<std::uint8_t*>(outputs[0]->data);
  auto* scale = static_cast<float*>(outputs[1]->data);
  const int64_t rows = inputs[0]->shape[0], cols = inputs[0]->shape[1];
  for (int64_t r = 0; r < rows; ++r) {
    float amax = 0;
    for (int64_t c = 0; c < cols; ++c) amax = std::max(amax, std::fabs(x[r * cols + c]));
    scale[r] = std::max(amax, 1e-12f) / 448.0f;
    for (int64_t c = 0; c < cols; ++c) q[r * cols + c] = to_e4m3fn(std::clamp(x[r * cols + c] / scale[r], -448.0f, 448.0f));
  }
  return 0;
}
