// Native CUDA reference for the bf16 softmax: one block per row, float32 math with the exact expf and a true division,
// as the PyTorch reference computes in float32 before rounding to bfloat16; float32 tree reductions.
#include <kernelarc/candidate_abi.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

constexpr int kThreads = 256;

__global__ void softmax_bf16_reference(const __nv_bfloat16* x, __nv_bfloat16* y, long long cols) {
  __shared__ float partial[kThreads];
  const __nv_bfloat16* in = x + blockIdx.x * cols;
  __nv_bfloat16* out = y + blockIdx.x * cols;
  float max = -INFINITY;
  for (long long c = threadIdx.x; c < cols; c += kThreads) max = fmaxf(max, __bfloat162float(in[c]));
  partial[threadIdx.x] = max;
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] = fmaxf(partial[threadIdx.x], partial[threadIdx.x + stride]);
    __syncthreads();
  }
  max = partial[0];
  __syncthreads();
  float sum = 0;
  for (long long c = threadIdx.x; c < cols; c += kThreads) sum += expf(__bfloat162float(in[c]) - max);
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  sum = partial[0];
  for (long long c = threadIdx.x; c < cols; c += kThreads) out[c] = __float2bfloat16(expf(__bfloat162float(in[c]) - max) / sum);
}

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs;
  const long long rows = inputs[0]->shape[0], cols = inputs[0]->shape[1];
  if (rows == 0) return 0;
  softmax_bf16_reference<<<static_cast<unsigned>(rows), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<const __nv_bfloat16*>(inputs[0]->data), static_cast<__nv_bfloat16*>(outputs[0]->data), cols);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
