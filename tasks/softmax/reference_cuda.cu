// Native CUDA reference for softmax: one block per row, float64 accumulation, the judge's stream.
#include <kernelarc/candidate_abi.h>

#include <cuda_runtime.h>

__global__ void softmax_reference(const float* x, float* y, long long cols) {
  __shared__ double partial[256];
  const float* in = x + blockIdx.x * cols;
  float* out = y + blockIdx.x * cols;
  double max = -1e300;
  for (long long c = threadIdx.x; c < cols; c += blockDim.x) max = fmax(max, (double)in[c]);
  partial[threadIdx.x] = max;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] = fmax(partial[threadIdx.x], partial[threadIdx.x + stride]);
    __syncthreads();
  }
  max = partial[0];
  __syncthreads();
  double sum = 0;
  for (long long c = threadIdx.x; c < cols; c += blockDim.x) sum += exp((double)in[c] - max);
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  sum = partial[0];
  for (long long c = threadIdx.x; c < cols; c += blockDim.x) out[c] = (float)(exp((double)in[c] - max) / sum);
}

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs;
  const long long rows = inputs[0]->shape[0], cols = inputs[0]->shape[1];
  if (rows == 0) return 0;
  softmax_reference<<<(unsigned)rows, 256, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<const float*>(inputs[0]->data), static_cast<float*>(outputs[0]->data), cols);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
