// Native CUDA reference for NeoX-style rotary embedding: one thread per rotation pair (token, head, j), float32 math with
// each product rounded before the sum (no fused multiply-add), as PyTorch computes x1 * cos - x2 * sin, rounded to bf16.
#include <kernelarc/candidate_abi.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

// Pair e of `tokens * heads * half` pairs of x ([tokens, heads, 2 * half]).
__global__ void rotary_reference(const long long* positions, const __nv_bfloat16* x, const float* cache, __nv_bfloat16* out,
                                 long long tokens, long long heads, long long half, long long max_position) {
  const long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (e >= tokens * heads * half) return;
  const long long j = e % half, head = e / half, t = head / heads;
  const long long position = positions[t] < 0 ? positions[t] + max_position : positions[t];  // from the end, as PyTorch
  const float* row = cache + position * 2 * half;
  const long long at = head * 2 * half + j;
  const float x1 = __bfloat162float(x[at]), x2 = __bfloat162float(x[at + half]);
  const float cos = row[j], sin = row[half + j];
  out[at] = __float2bfloat16(__fsub_rn(__fmul_rn(x1, cos), __fmul_rn(x2, sin)));
  out[at + half] = __float2bfloat16(__fadd_rn(__fmul_rn(x2, cos), __fmul_rn(x1, sin)));
}

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs;
  const long long tokens = inputs[1]->shape[0], q_heads = inputs[1]->shape[1], kv_heads = inputs[2]->shape[1];
  const long long half = inputs[1]->shape[2] / 2, max_position = inputs[3]->shape[0];
  const auto* positions = static_cast<const long long*>(inputs[0]->data);
  const auto* cache = static_cast<const float*>(inputs[3]->data);
  const auto cuda_stream = static_cast<cudaStream_t>(stream);
  const long long q_pairs = tokens * q_heads * half, k_pairs = tokens * kv_heads * half;
  if (q_pairs > 0)
    rotary_reference<<<static_cast<unsigned>((q_pairs + 255) / 256), 256, 0, cuda_stream>>>(
        positions, static_cast<const __nv_bfloat16*>(inputs[1]->data), cache, static_cast<__nv_bfloat16*>(outputs[0]->data), tokens,
        q_heads, half, max_position);
  if (k_pairs > 0)
    rotary_reference<<<static_cast<unsigned>((k_pairs + 255) / 256), 256, 0, cuda_stream>>>(
        positions, static_cast<const __nv_bfloat16*>(inputs[2]->data), cache, static_cast<__nv_bfloat16*>(outputs[1]->data), tokens,
        kv_heads, half, max_position);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
