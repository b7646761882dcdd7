// Native C++ reference for NeoX-style rotary embedding: float32 math, each product rounded before the sum as PyTorch
// computes x1 * cos - x2 * sin, the results rounded to bfloat16.
#include <kernelarc/candidate_abi.h>

#include <cstdint>

// Rotates `heads` heads of one token from `in` to `out` with the cache row's cos (first half) and sin (second half).
static void rotate_token(const uint16_t* in, uint16_t* out, int64_t heads, int64_t dim, const float* row) {
  const int64_t half = dim / 2;
  for (int64_t h = 0; h < heads; ++h)
    for (int64_t j = 0; j < half; ++j) {
      const float x1 = kernelarc_bf16_to_float(in[h * dim + j]), x2 = kernelarc_bf16_to_float(in[h * dim + half + j]);
      const float cos = row[j], sin = row[half + j];
      const float a = x1 * cos, b = x2 * sin, c = x2 * cos, d = x1 * sin;
      out[h * dim + j] = kernelarc_float_to_bf16(a - b);
      out[h * dim + half + j] = kernelarc_float_to_bf16(c + d);
    }
}

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs, (void)stream;
  const auto* positions = static_cast<const int64_t*>(inputs[0]->data);
  const auto* q = static_cast<const uint16_t*>(inputs[1]->data);
  const auto* k = static_cast<const uint16_t*>(inputs[2]->data);
  const auto* cache = static_cast<const float*>(inputs[3]->data);
  auto* q_out = static_cast<uint16_t*>(outputs[0]->data);
  auto* k_out = static_cast<uint16_t*>(outputs[1]->data);
  const int64_t tokens = inputs[1]->shape[0], q_heads = inputs[1]->shape[1], kv_heads = inputs[2]->shape[1];
  const int64_t dim = inputs[1]->shape[2], max_position = inputs[3]->shape[0];
  for (int64_t t = 0; t < tokens; ++t) {
    // A negative position counts from the end, as PyTorch indexes; beyond either end the reference's index fails too.
    const int64_t position = positions[t] < 0 ? positions[t] + max_position : positions[t];
    if (position < 0 || position >= max_position) return 2;
    const float* row = cache + position * dim;
    rotate_token(q + t * q_heads * dim, q_out + t * q_heads * dim, q_heads, dim, row);
    rotate_token(k + t * kv_heads * dim, k_out + t * kv_heads * dim, kv_heads, dim, row);
  }
  return 0;
}
