// Native CUDA reference for the post-norm residual: one block of 256 threads per token, float32 math as the PyTorch
// reference does it (the sum of squares accumulated in float32, a shared-memory tree), 1 / sqrtf correctly rounded, and
// the same two roundings: y = bf16(x * scale * weight), out = bf16(residual + y).
#include <kernelarc/candidate_abi.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

constexpr int kThreads = 256;

__global__ void post_rmsnorm_reference(const __nv_bfloat16* x, const __nv_bfloat16* residual, const __nv_bfloat16* weight,
                                       const float* eps, __nv_bfloat16* out, long long hidden) {
  __shared__ float partial[kThreads];
  const long long base = blockIdx.x * hidden;
  float squares = 0;
  for (long long c = threadIdx.x; c < hidden; c += kThreads) {
    const float value = __bfloat162float(x[base + c]);
    squares += value * value;
  }
  partial[threadIdx.x] = squares;
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  const float scale = 1.0f / sqrtf(partial[0] / static_cast<float>(hidden) + *eps);
  for (long long c = threadIdx.x; c < hidden; c += kThreads) {
    const __nv_bfloat16 normed = __float2bfloat16(__bfloat162float(x[base + c]) * scale * __bfloat162float(weight[c]));
    out[base + c] = __float2bfloat16(__bfloat162float(residual[base + c]) + __bfloat162float(normed));
  }
}

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs;
  const long long tokens = inputs[0]->shape[0], hidden = inputs[0]->shape[1];
  if (tokens == 0) return 0;
  post_rmsnorm_reference<<<static_cast<unsigned>(tokens), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<const __nv_bfloat16*>(inputs[0]->data), static_cast<const __nv_bfloat16*>(inputs[1]->data),
      static_cast<const __nv_bfloat16*>(inputs[2]->data), static_cast<const float*>(inputs[3]->data),
      static_cast<__nv_bfloat16*>(outputs[0]->data), hidden);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
