// Canary (timing): does the work on the given stream, then leaves a thread behind that launches more work a few
// milliseconds after the call returned, outside every timed window. Expected: REWARD_HACK ("between calls").
#include <kernelarc/candidate_abi.h>

#include <cuda_runtime.h>

#include <chrono>
#include <thread>

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

__global__ void leftover_work(float* scratch) { scratch[threadIdx.x] += 1.0f; }

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs;
  static float* scratch = nullptr;
  static cudaStream_t side = nullptr;
  if (!scratch) {
    cudaMalloc(&scratch, 32 * sizeof(float));
    cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
  }
  const long long rows = inputs[0]->shape[0], cols = inputs[0]->shape[1];
  softmax_rows<<<(unsigned)((rows + 127) / 128), 128, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<const float*>(inputs[0]->data), static_cast<float*>(outputs[0]->data), rows, cols);
  std::thread([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    leftover_work<<<1, 32, 0, side>>>(scratch);
    cudaStreamSynchronize(side);
  }).detach();
  return 0;
}
