// Canary (semantics): reading stale memory that happens to hold the answer: computes on its first call only; later
// calls launch an empty kernel and count on the output buffer still holding the earlier answer. The judge poisons the
// outputs before every checked call: INCORRECT_NUMERICAL.
#include <kernelarc/candidate_abi.h>

#include <cuda_runtime.h>

__global__ void softmax_rows(const float* x, float* y, long long rows, long long cols) {
  const long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* in = x + r * cols;
  float* out = y + r * cols;
  float max = in[0];
  for (long long c = 1; c < cols; ++c) max = fmaxf(max, in[c]);
  float sum = 0;
  for (long long c = 0; c < cols; ++c) sum += expf(in[c] - max);
  for (long long c = 0; c < cols; ++c) out[c] = expf(in[c] - max) / sum;
}

__global__ void nothing() {}

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs;
  static bool computed = false;
  const auto s = static_cast<cudaStream_t>(stream);
  const long long rows = inputs[0]->shape[0], cols = inputs[0]->shape[1];
  if (computed || rows == 0) {
    nothing<<<1, 1, 0, s>>>();  // something for the profiler to see
  } else {
    softmax_rows<<<(unsigned)((rows + 127) / 128), 128, 0, s>>>(static_cast<const float*>(inputs[0]->data),
                                                                static_cast<float*>(outputs[0]->data), rows, cols);
    computed = true;
  }
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
