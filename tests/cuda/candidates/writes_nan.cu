// Canary (semantics): NaN tricks: a correct softmax except that every 97th element (y[0, 0] among them) is a quiet NaN,
// a few bad values that fit inside a small mismatch budget. Expected: INCORRECT_NUMERICAL.
#include <kernelarc/candidate_abi.h>

#include <cuda_runtime.h>

__global__ void softmax_rows_with_nans(const float* x, float* y, long long rows, long long cols) {
  const long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* in = x + r * cols;
  float* out = y + r * cols;
  float max = in[0];
  for (long long c = 1; c < cols; ++c) max = fmaxf(max, in[c]);
  float sum = 0;
  for (long long c = 0; c < cols; ++c) sum += expf(in[c] - max);
  for (long long c = 0; c < cols; ++c) out[c] = (r * cols + c) % 97 == 0 ? __int_as_float(0x7fc00000) : expf(in[c] - max) / sum;
}

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs;
  const long long rows = inputs[0]->shape[0], cols = inputs[0]->shape[1];
  if (rows == 0) return 0;
  softmax_rows_with_nans<<<(unsigned)((rows + 127) / 128), 128, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<const float*>(inputs[0]->data), static_cast<float*>(outputs[0]->data), rows, cols);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
