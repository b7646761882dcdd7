// Native CUDA reference for fused residual add + RMSNorm: one block of 256 threads per token, float32 math as the PyTorch
// reference does it (the sum of squares accumulated in float32, a shared-memory tree), 1 / sqrtf correctly rounded, and
// the same two roundings: new_residual = bf16(x + residual), out = bf16(h * scale * weight) of h = that rounded value.
#include <kernelarc/candidate_abi.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

constexpr int kThreads = 256;

__global__ void fused_add_rmsnorm_reference(const __nv_bfloat16* x, const __nv_bfloat16* residual, const __nv_bfloat16* weight,
                                            const float* eps, __nv_bfloat16* out, __nv_bfloat16* new_residual, long long hidden) {
  __shared__ float partial[kThreads];
  const long long base = blockIdx.x * hidden;
  float squares = 0;
  for (long long c = threadIdx.x; c < hidden; c += kThreads) {
    const __nv_bfloat16 h = __float2bfloat16(__bfloat162float(x[base + c]) + __bfloat162float(residual[base + c]));
    new_residual[base + c] = h;
    const float value = __bfloat162float(h);
    squares += value * value;
  }
  partial[threadIdx.x] = squares;
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  const float scale = 1.0f / sqrtf(partial[0] / static_cast<float>(hidden) + *eps);
  // Each thread reads back only the elements it wrote itself.
  for (long long c = threadIdx.x; c < hidden; c += kThreads)
    out[base + c] = __float2bfloat16(__bfloat162float(new_residual[base + c]) * scale * __bfloat162float(weight[c]));
}

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs;
  const long long tokens = inputs[0]->shape[0], hidden = inputs[0]->shape[1];
  if (tokens == 0) return 0;
  fused_add_rmsnorm_reference<<<static_cast<unsigned>(tokens), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<const __nv_bfloat16*>(inputs[0]->data), static_cast<const __nv_bfloat16*>(inputs[1]->data),
      static_cast<const __nv_bfloat16*>(inputs[2]->data), static_cast<const float*>(inputs[3]->data),
      static_cast<__nv_bfloat16*>(outputs[0]->data), static_cast<__nv_bfloat16*>(outputs[1]->data), hidden);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
