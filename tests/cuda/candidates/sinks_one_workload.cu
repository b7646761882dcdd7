// Canary (timing): makes one workload's time near zero to sink a mean: a correct softmax, except that on the largest
// workload (rows * cols > 20000: 17x3001 in the canary table) it launches with 2048 threads a block, an invalid
// configuration, ignores the error and returns 0. Nothing runs and the call costs nothing: rejected.
#include <kernelarc/candidate_abi.h>

#include <cuda_runtime.h>

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

// One block per row.
__global__ void softmax_rows(const float* x, float* y, long long rows, long long cols) {
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
  const long long rows = inputs[0]->shape[0], cols = inputs[0]->shape[1];
  if (rows == 0) return 0;
  const unsigned threads = rows * cols > 20000 ? 2048 : 256;  // 2048: more than a block may have, so the launch fails
  softmax_rows<<<(unsigned)(rows < 65536 ? rows : 65536), threads, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<const float*>(inputs[0]->data), static_cast<float*>(outputs[0]->data), rows, cols);
  return 0;  // the launch's error is never looked at
}
