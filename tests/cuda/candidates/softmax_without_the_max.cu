// Softmax without subtracting the row's maximum: right on N(0, 1) logits, overflows to inf/inf once logits sit far from
// zero (the judge's shifted and scaled rounds). Must be rejected.
#include <kernelarc/candidate_abi.h>

#include <cuda_runtime.h>

#include <cstdint>

__global__ void softmax_without_the_max(const float* x, float* y, int64_t rows, int64_t cols) {
  const int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float sum = 0;
  for (int64_t c = 0; c < cols; ++c) sum += expf(x[r * cols + c]);
  for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = expf(x[r * cols + c]) / sum;
}

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs;
  const int64_t rows = inputs[0]->shape[0], cols = inputs[0]->shape[1];
  if (rows == 0) return 0;
  softmax_without_the_max<<<(unsigned)((rows + 127) / 128), 128, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<const float*>(inputs[0]->data), static_cast<float*>(outputs[0]->data), rows, cols);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
