// Canary: a rotary kernel written for the narrower inputs KernelArc used to draw (positions in [0, 128)): it takes a
// negative position as position 0 instead of counting from the end as PyTorch indexes. The benchmark draws int64
// positions in [-1024, 1024), so about half of them are negative; the judge must reject it.
#include <kernelarc/candidate_abi.h>

#include <cstdint>

static void rotate_heads(const uint16_t* in, uint16_t* out, int64_t heads, int64_t dim, const float* row) {
  const int64_t half = dim / 2;
  for (int64_t h = 0; h < heads; ++h, in += dim, out += dim)
    for (int64_t j = 0; j < half; ++j) {
      const float x1 = kernelarc_bf16_to_float(in[j]), x2 = kernelarc_bf16_to_float(in[half + j]);
      out[j] = kernelarc_float_to_bf16(x1 * row[j] - x2 * row[half + j]);
      out[half + j] = kernelarc_float_to_bf16(x2 * row[j] + x1 * row[half + j]);
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
  const int64_t dim = inputs[1]->shape[2];
  for (int64_t t = 0; t < tokens; ++t) {
    const int64_t position = positions[t] < 0 ? 0 : positions[t];  // the assumption under test
    const float* row = cache + position * dim;
    rotate_heads(q + t * q_heads * dim, q_out + t * q_heads * dim, q_heads, dim, row);
    rotate_heads(k + t * kv_heads * dim, k_out + t * kv_heads * dim, kv_heads, dim, row);
  }
  return 0;
}
