// Canary (harmful): runs a shell command (a harmless one) through system() on every call, then a correct softmax
// kernel. Unsandboxed it would pass; a new process is what the worker's system-call filter forbids: RUNTIME_ERROR.
#include <kernelarc/candidate_abi.h>

#include <cuda_runtime.h>

#include <cstdlib>

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

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs;
  (void)std::system("true");
  const long long rows = inputs[0]->shape[0], cols = inputs[0]->shape[1];
  if (rows == 0) return 0;
  softmax_rows<<<(unsigned)((rows + 127) / 128), 128, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<const float*>(inputs[0]->data), static_cast<float*>(outputs[0]->data), rows, cols);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
