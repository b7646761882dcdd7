// A deliberately plain full-source CUDA candidate for NeoX-style rotary embedding: one thread per (token, head) walks the
// head's pairs, q heads first, then k heads.
#include <kernelarc/candidate_abi.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void rotary_plain(const long long* positions, const __nv_bfloat16* q, const __nv_bfloat16* k, const float* cache,
                             __nv_bfloat16* q_out, __nv_bfloat16* k_out, long long tokens, long long q_heads, long long kv_heads,
                             long long dim, long long max_position) {
  const long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  const long long heads = q_heads + kv_heads;
  if (e >= tokens * heads) return;
  const long long t = e / heads, h = e % heads, half = dim / 2;
  const __nv_bfloat16* in = h < q_heads ? q + (t * q_heads + h) * dim : k + (t * kv_heads + h - q_heads) * dim;
  __nv_bfloat16* out = h < q_heads ? q_out + (t * q_heads + h) * dim : k_out + (t * kv_heads + h - q_heads) * dim;
  const long long position = positions[t] < 0 ? positions[t] + max_position : positions[t];  // from the end, as PyTorch
  const float* row = cache + position * dim;
  for (long long j = 0; j < half; ++j) {
    const float x1 = __bfloat162float(in[j]), x2 = __bfloat162float(in[half + j]);
    out[j] = __float2bfloat16(x1 * row[j] - x2 * row[half + j]);
    out[half + j] = __float2bfloat16(x2 * row[j] + x1 * row[half + j]);
  }
}

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs;
  const long long tokens = inputs[1]->shape[0], q_heads = inputs[1]->shape[1], kv_heads = inputs[2]->shape[1];
  const long long dim = inputs[1]->shape[2], max_position = inputs[3]->shape[0], items = tokens * (q_heads + kv_heads);
  if (items == 0) return 0;
  rotary_plain<<<static_cast<unsigned>((items + 127) / 128), 128, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<const long long*>(inputs[0]->data), static_cast<const __nv_bfloat16*>(inputs[1]->data),
      static_cast<const __nv_bfloat16*>(inputs[2]->data), static_cast<const float*>(inputs[3]->data),
      static_cast<__nv_bfloat16*>(outputs[0]->data), static_cast<__nv_bfloat16*>(outputs[1]->data), tokens, q_heads, kv_heads, dim,
      max_position);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
