// A deliberately plain full-source CUDA candidate for the post-norm residual: one thread per token walks its row twice.
#include <kernelarc/candidate_abi.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void post_rmsnorm_plain(const __nv_bfloat16* x, const __nv_bfloat16* residual, const __nv_bfloat16* weight, const float* eps,
                                   __nv_bfloat16* out, long long tokens, long long hidden) {
  const long long t = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (t >= tokens) return;
  const long long base = t * hidden;
  float squares = 0;
  for (long long c = 0; c < hidden; ++c) {
    const float value = __bfloat162float(x[base + c]);
    squares += value * value;
  }
  const float scale = rsqrtf(squares / static_cast<float>(hidden) + *eps);
  for (long long c = 0; c < hidden; ++c) {
    const __nv_bfloat16 normed = __float2bfloat16(__bfloat162float(x[base + c]) * scale * __bfloat162float(weight[c]));
    out[base + c] = __float2bfloat16(__bfloat162float(residual[base + c]) + __bfloat162float(normed));
  }
}

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs;
  const long long tokens = inputs[0]->shape[0], hidden = inputs[0]->shape[1];
  if (tokens == 0) return 0;
  post_rmsnorm_plain<<<static_cast<unsigned>((tokens + 127) / 128), 128, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<const __nv_bfloat16*>(inputs[0]->data), static_cast<const __nv_bfloat16*>(inputs[1]->data),
      static_cast<const __nv_bfloat16*>(inputs[2]->data), static_cast<const float*>(inputs[3]->data),
      static_cast<__nv_bfloat16*>(outputs[0]->data), tokens, hidden);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
