// Canary (semantics): a constant output: a kernel writes 0 to every element (all written, none right).
// Expected: INCORRECT_NUMERICAL.
#include <kernelarc/candidate_abi.h>

#include <cuda_runtime.h>

__global__ void zeros(float* y, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) y[i] = 0.0f;
}

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs;
  const long long n = inputs[0]->shape[0] * inputs[0]->shape[1];
  if (n == 0) return 0;
  zeros<<<(unsigned)(n < 256 * 1024 ? (n + 255) / 256 : 1024), 256, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<float*>(outputs[0]->data), n);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
