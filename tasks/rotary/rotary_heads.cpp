// CPU rotary embedding template (NeoX style): each token's cos/sin row is found once and used for all its q and k heads.
// Knob UNROLL: rotation pairs per inner step, written so the compiler can vectorise that many (pipelining).
#include <kernelarc/candidate_abi.h>

#include <cstdint>

// Knobs (UNROLL): defined by the judge from definition.json, the one place their values are written.

static inline void rotate_pair(const uint16_t* in, uint16_t* out, int64_t j, int64_t half, const float* row) {
  const float x1 = kernelarc_bf16_to_float(in[j]), x2 = kernelarc_bf16_to_float(in[half + j]);
  out[j] = kernelarc_float_to_bf16(x1 * row[j] - x2 * row[half + j]);
  out[half + j] = kernelarc_float_to_bf16(x2 * row[j] + x1 * row[half + j]);
}

static void rotate_heads(const uint16_t* in, uint16_t* out, int64_t heads, int64_t dim, const float* row) {
  const int64_t half = dim / 2;
  for (int64_t h = 0; h < heads; ++h, in += dim, out += dim) {
    int64_t j = 0;
    for (; j + UNROLL <= half; j += UNROLL)
      for (int u = 0; u < UNROLL; ++u) rotate_pair(in, out, j + u, half, row);
    for (; j < half; ++j) rotate_pair(in, out, j, half, row);
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
    const int64_t position = positions[t] < 0 ? positions[t] + max_position : positions[t];  // from the end, as PyTorch
    const float* row = cache + position * dim;
    rotate_heads(q + t * q_heads * dim, q_out + t * q_heads * dim, q_heads, dim, row);
    rotate_heads(k + t * kv_heads * dim, k_out + t * kv_heads * dim, kv_heads, dim, row);
  }
  return 0;
}
