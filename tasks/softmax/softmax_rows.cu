// Kernel-only softmax template for CUDA: one block of BLOCK threads per row, three passes, warp-shuffle
// reductions. Launch: grid [batch_size], block [BLOCK]. Arguments: x, y, then the var axes batch_size and hidden.
#ifndef BLOCK
#define BLOCK 256
#endif

__device__ float block_reduce(float value, bool take_max) {
  __shared__ float warp_results[32];
  for (int offset = 16; offset > 0; offset /= 2) {
    const float other = __shfl_xor_sync(0xffffffffu, value, offset);
    value = take_max ? fmaxf(value, other) : value + other;
  }
  if (threadIdx.x % 32 == 0) warp_results[threadIdx.x / 32] = value;
  __syncthreads();
  value = threadIdx.x < BLOCK / 32 ? warp_results[threadIdx.x] : (take_max ? __int_as_float(0xff800000) : 0.0f);
  if (threadIdx.x < 32)
    for (int offset = 16; offset > 0; offset /= 2) {
      const float other = __shfl_xor_sync(0xffffffffu, value, offset);
      value = take_max ? fmaxf(value, other) : value + other;
    }
  if (threadIdx.x == 0) warp_results[0] = value;
  __syncthreads();
  value = warp_results[0];
  __syncthreads();
  return value;
}

extern "C" __global__ void __launch_bounds__(BLOCK) softmax_rows(const float* __restrict__ x, float* __restrict__ y, long long rows,
                                                                 long long cols) {
  (void)rows;  // one block per row: the grid covers them
  const float* in = x + blockIdx.x * cols;
  float* out = y + blockIdx.x * cols;
  float max = __int_as_float(0xff800000);
  for (long long c = threadIdx.x; c < cols; c += BLOCK) max = fmaxf(max, in[c]);
  max = block_reduce(max, true);
  float sum = 0;
  for (long long c = threadIdx.x; c < cols; c += BLOCK) sum += __expf(in[c] - max);
  const float inverse = 1.0f / block_reduce(sum, false);
  for (long long c = threadIdx.x; c < cols; c += BLOCK) out[c] = __expf(in[c] - max) * inverse;
}
