// Honest: works on a stream of its own and joins it to the given stream with an event before returning. Expected: PASSED.
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
  cudaEventRecord(ready, given);
  cudaStreamWaitEvent(side, ready, 0);
  softmax_rows<<<(unsigned)((rows + 127) / 128), 128, 0, side>>>(static_cast<const float*>(inputs[0]->data),
                                                                 static_cast<float*>(outputs[0]->data), rows, cols);
  cudaEventRecord(done, side);
  cudaStreamWaitEvent(given, done, 0);
  return 0;
}
