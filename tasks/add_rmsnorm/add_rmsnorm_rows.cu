// Kernel-only add + RMSNorm template for CUDA: one block of BLOCK threads per token.
// Launch: grid [num_tokens], block [BLOCK]. Arguments: x, residual, weight, eps, out, new_residual, then the var axes
// num_tokens and hidden_size.
#include <cuda_bf16.h>

#ifndef BLOCK
#define BLOCK 256
#endif

extern "C" __global__ void __launch_bounds__(BLOCK) add_rmsnorm_rows(const __nv_bfloat16* __restrict__ x,
    const __nv_bfloat16* __restrict__ residual, const __nv_bfloat16* __restrict__ weight, const float* __restrict__ eps,
    __nv_bfloat16* __restrict__ out, __nv_bfloat16* __restrict__ new_residual, long long tokens, long long hidden) {
  (void)tokens;  // one block per token: the grid covers them
  __shared__ float partial[BLOCK];
  const long long base = blockIdx.x * hidden;
  float squares = 0;
  for (long long c = threadIdx.x; c < hidden; c += BLOCK) {
    const __nv_bfloat16 h = __float2bfloat16(__bfloat162float(x[base + c]) + __bfloat162float(residual[base + c]));
    new_residual[base + c] = h;
    const float value = __bfloat162float(h);
    squares += value * value;
  }
  partial[threadIdx.x] = squares;
  __syncthreads();
  for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  const float scale = rsqrtf(partial[0] / (float)hidden + *eps);
  for (long long c = threadIdx.x; c < hidden; c += BLOCK)
    out[base + c] = __float2bfloat16(__bfloat162float(new_residual[base + c]) * scale * __bfloat162float(weight[c]));
}
