// Honest: a persistent kernel: one block per SM (the count queried once), each block looping over rows with
// block-wide reductions for the row's max and sum. Expected: PASSED.
#include <kernelarc/candidate_abi.h>

#include <cuda_runtime.h>

// Every thread of the block gets the block's max (is_max) or sum of `value`; blockDim.x is a multiple of 32.
__device__ float block_reduce(float value, bool is_max, float* shared) {
  for (int offset = 16; offset > 0; offset /= 2) {
    const float other = __shfl_xor_sync(0xffffffffu, value, offset);
    value = is_max ? fmaxf(value, other) : value + other;
  }
  __syncthreads();  // the previous reduction's readers are done with `shared`
  if (threadIdx.x % 32 == 0) shared[threadIdx.x / 32] = value;
  __syncthreads();
  value = threadIdx.x % 32 < blockDim.x / 32 ? shared[threadIdx.x % 32] : (is_max ? -INFINITY : 0.0f);
  for (int offset = 16; offset > 0; offset /= 2) {
    const float other = __shfl_xor_sync(0xffffffffu, value, offset);
    value = is_max ? fmaxf(value, other) : value + other;
  }
  return value;
}

__global__ void softmax_persistent(const float* x, float* y, long long rows, long long cols) {
  __shared__ float shared[32];
  for (long long r = blockIdx.x; r < rows; r += gridDim.x) {
    const float* in = x + r * cols;
    float* out = y + r * cols;
    float max = -INFINITY;
    for (long long c = threadIdx.x; c < cols; c += blockDim.x) max = fmaxf(max, in[c]);
    max = block_reduce(max, true, shared);
    float sum = 0;
    for (long long c = threadIdx.x; c < cols; c += blockDim.x) sum += expf(in[c] - max);
    sum = block_reduce(sum, false, shared);
    for (long long c = threadIdx.x; c < cols; c += blockDim.x) out[c] = expf(in[c] - max) / sum;
  }
}

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs;
  static int sms = 0;
  if (sms == 0) {
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess || cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
        sms <= 0)
      return sms = 0, 1;
  }
  const long long rows = inputs[0]->shape[0], cols = inputs[0]->shape[1];
  if (rows == 0) return 0;
  softmax_persistent<<<sms, 512, 0, static_cast<cudaStream_t>(stream)>>>(static_cast<const float*>(inputs[0]->data),
                                                                         static_cast<float*>(outputs[0]->data), rows, cols);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
