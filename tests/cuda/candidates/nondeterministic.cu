// Canary (semantics): a real race. Two grids write every row: a correct one on the given stream, columns ascending, and
// on a side stream (joined with an event before returning) one whose values are off by 5e-4 relative + 5e-6 (inside
// the tolerance, far outside rounding), columns descending. Which write lands last varies from call to call: rejected.
#include <kernelarc/candidate_abi.h>

#include <cuda_runtime.h>

__global__ void softmax_rows(const float* x, float* y, long long rows, long long cols, bool perturbed) {
  const long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* in = x + r * cols;
  float* out = y + r * cols;
  float max = in[0];
  for (long long c = 1; c < cols; ++c) max = fmaxf(max, in[c]);
  float sum = 0;
  for (long long c = 0; c < cols; ++c) sum += expf(in[c] - max);
  for (long long i = 0; i < cols; ++i) {
    const long long c = perturbed ? cols - 1 - i : i;  // the two grids meet somewhere in the middle of each row
    const float value = expf(in[c] - max) / sum;
    out[c] = perturbed ? value * (1.0f + 5e-4f) + 5e-6f : value;
  }
}

// Holds both streams back for ~50 us, longer than the launches below take, so that the two grids start together
// instead of one launch latency apart.
__global__ void gate() {
  const long long start = clock64();
  while (clock64() - start < 100000) {
  }
}

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs;
  static cudaStream_t side = nullptr;
  static cudaEvent_t ready = nullptr, done = nullptr;
  if (!side) {
    cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
    cudaEventCreateWithFlags(&ready, cudaEventDisableTiming);
    cudaEventCreateWithFlags(&done, cudaEventDisableTiming);
  }
  const auto given = static_cast<cudaStream_t>(stream);
  const long long rows = inputs[0]->shape[0], cols = inputs[0]->shape[1];
  if (rows == 0) return 0;
  const auto* x = static_cast<const float*>(inputs[0]->data);
  auto* y = static_cast<float*>(outputs[0]->data);
  const unsigned blocks = (unsigned)((rows + 127) / 128);
  gate<<<1, 1, 0, given>>>();
  cudaEventRecord(ready, given);
  cudaStreamWaitEvent(side, ready, 0);
  softmax_rows<<<blocks, 128, 0, side>>>(x, y, rows, cols, true);
  softmax_rows<<<blocks, 128, 0, given>>>(x, y, rows, cols, false);
  cudaEventRecord(done, side);
  cudaStreamWaitEvent(given, done, 0);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
