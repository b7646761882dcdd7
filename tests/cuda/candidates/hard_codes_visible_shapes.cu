// Canary (semantics): hard-codes the visible shapes: a kernel specialised to 7x1000 and 2x2 (the workloads it was
// shown); any other shape is run as rows of 1000 columns, which is wrong. The held-out 17x3001 catches it:
// INCORRECT_NUMERICAL.
#include <kernelarc/candidate_abi.h>

#include <cuda_runtime.h>

template <int COLS>
__global__ void softmax_fixed(const float* x, float* y, long long rows) {
  const long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* in = x + r * COLS;
  float* out = y + r * COLS;
  float max = in[0];
#pragma unroll 8
  for (int c = 1; c < COLS; ++c) max = fmaxf(max, in[c]);
  float sum = 0;
#pragma unroll 8
  for (int c = 0; c < COLS; ++c) sum += expf(in[c] - max);
#pragma unroll 8
  for (int c = 0; c < COLS; ++c) out[c] = expf(in[c] - max) / sum;
}

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs;
  const auto s = static_cast<cudaStream_t>(stream);
  const long long rows = inputs[0]->shape[0], cols = inputs[0]->shape[1];
  const auto* x = static_cast<const float*>(inputs[0]->data);
  auto* y = static_cast<float*>(outputs[0]->data);
  if (rows == 7 && cols == 1000) {
    softmax_fixed<1000><<<1, 32, 0, s>>>(x, y, 7);
  } else if (rows == 2 && cols == 2) {
    softmax_fixed<2><<<1, 32, 0, s>>>(x, y, 2);
  } else {
    const long long as_rows = rows * cols / 1000;  // "every workload has 1000 columns": stays inside the buffers
    if (as_rows == 0) return 0;
    softmax_fixed<1000><<<(unsigned)((as_rows + 127) / 128), 128, 0, s>>>(x, y, as_rows);
  }
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
