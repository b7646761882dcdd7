// Native CUDA reference for LayerNorm: one block per row, the mean and then the biased variance accumulated in double,
// out = (x - mean) / sqrt(var + eps) * weight + bias in double, rounded to bfloat16 once as the PyTorch reference rounds.
#include <kernelarc/candidate_abi.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

constexpr int kThreads = 256;

// The sum of `value` over the block; every thread gets it.
__device__ double block_sum(double value, double* partial) {
  partial[threadIdx.x] = value;
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  const double total = partial[0];
  __syncthreads();  // partial is reused by the next call
  return total;
}

__global__ void layernorm_reference(const __nv_bfloat16* x, const __nv_bfloat16* weight, const __nv_bfloat16* bias,
                                    const float* eps, __nv_bfloat16* out, long long hidden) {
  __shared__ double partial[kThreads];
  const __nv_bfloat16* row = x + blockIdx.x * hidden;
  double sum = 0;
  for (long long c = threadIdx.x; c < hidden; c += kThreads) sum += __bfloat162float(row[c]);
  const double mean = block_sum(sum, partial) / (double)hidden;
  double deviations = 0;
  for (long long c = threadIdx.x; c < hidden; c += kThreads) {
    const double d = __bfloat162float(row[c]) - mean;
    deviations += d * d;
  }
  const double rstd = 1.0 / sqrt(block_sum(deviations, partial) / (double)hidden + (double)*eps);
  for (long long c = threadIdx.x; c < hidden; c += kThreads) {
    const double y = (__bfloat162float(row[c]) - mean) * rstd;
    out[blockIdx.x * hidden + c] = __float2bfloat16((float)(y * __bfloat162float(weight[c]) + __bfloat162float(bias[c])));
  }
}

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs;
  const long long tokens = inputs[0]->shape[0], hidden = inputs[0]->shape[1];
  if (tokens == 0) return 0;
  layernorm_reference<<<(unsigned)tokens, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<const __nv_bfloat16*>(inputs[0]->data), static_cast<const __nv_bfloat16*>(inputs[1]->data),
      static_cast<const __nv_bfloat16*>(inputs[2]->data), static_cast<const float*>(inputs[3]->data),
      static_cast<__nv_bfloat16*>(outputs[0]->data), hidden);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
