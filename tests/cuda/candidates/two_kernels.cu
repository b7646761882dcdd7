// Honest: two kernels per call: the first writes each row's max and sum of exp(x - max) to a scratch buffer kept
// between calls (allocated once, grown when a call needs more rows), the second normalises. Expected: PASSED.
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

// One block per row (grid-stride over rows): stats[r] = (max, sum of exp(x - max)).
__global__ void row_stats(const float* x, float2* stats, long long rows, long long cols) {
  __shared__ float shared[32];
  for (long long r = blockIdx.x; r < rows; r += gridDim.x) {
    const float* in = x + r * cols;
    float max = -INFINITY;
    for (long long c = threadIdx.x; c < cols; c += blockDim.x) max = fmaxf(max, in[c]);
    max = block_reduce(max, true, shared);
    float sum = 0;
    for (long long c = threadIdx.x; c < cols; c += blockDim.x) sum += expf(in[c] - max);
    sum = block_reduce(sum, false, shared);
    if (threadIdx.x == 0) stats[r] = make_float2(max, sum);
  }
}

// One thread per element (grid-stride).
__global__ void normalise(const float* x, const float2* stats, float* y, long long rows, long long cols) {
  const long long n = rows * cols;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    const float2 row = stats[i / cols];
    y[i] = expf(x[i] - row.x) / row.y;
  }
}

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs;
  static float2* stats = nullptr;
  static long long capacity = 0;  // rows
  const auto s = static_cast<cudaStream_t>(stream);
  const long long rows = inputs[0]->shape[0], cols = inputs[0]->shape[1];
  if (rows == 0) return 0;
  if (rows > capacity) {
    // Every earlier call has finished (the judge waits for each), so the old buffer is free to go.
    if (stats) cudaFree(stats);
    stats = nullptr, capacity = 0;
    if (cudaMalloc(&stats, rows * sizeof(float2)) != cudaSuccess) return 1;
    capacity = rows;
  }
  const auto* x = static_cast<const float*>(inputs[0]->data);
  auto* y = static_cast<float*>(outputs[0]->data);
  row_stats<<<(unsigned)(rows < 65536 ? rows : 65536), 256, 0, s>>>(x, stats, rows, cols);
  const long long n = rows * cols, blocks = (n + 255) / 256;
  normalise<<<(unsigned)(blocks < 65536 ? blocks : 65536), 256, 0, s>>>(x, stats, y, rows, cols);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
