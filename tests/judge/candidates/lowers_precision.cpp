// Semantics (lowering precision until the tolerance barely passes, and past it): softmax computed from inputs rounded
// to bfloat16 and written back rounded to bfloat16, about 3 significant digits where the task asks for a relative
// error of 1e-3. Most elements miss the tolerance on some round: INCORRECT_NUMERICAL.
#include <kernelarc/candidate_abi.h>

#include <cmath>
#include <cstdint>
#include <cstring>

namespace {

float to_bf16_and_back(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  bits = (bits + 0x7fffu + ((bits >> 16) & 1u)) & 0xffff0000u;  // round to nearest even, keep 8 bits of mantissa
  std::memcpy(&value, &bits, sizeof bits);
  return value;
}

}  // namespace

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs, (void)stream;
  const float* x = static_cast<const float*>(inputs[0]->data);
  float* y = static_cast<float*>(outputs[0]->data);
  const int64_t rows = inputs[0]->shape[0], cols = inputs[0]->shape[1];
  for (int64_t r = 0; r < rows; ++r) {
    float max = to_bf16_and_back(x[r * cols]);
    for (int64_t c = 1; c < cols; ++c) max = std::fmax(max, to_bf16_and_back(x[r * cols + c]));
    float sum = 0;
    for (int64_t c = 0; c < cols; ++c) sum += std::exp(to_bf16_and_back(x[r * cols + c]) - max);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = to_bf16_and_back(std::exp(to_bf16_and_back(x[r * cols + c]) - max) / sum);
  }
  return 0;
}
