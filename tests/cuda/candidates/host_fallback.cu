// Canary (shortcuts): a fast path that never runs: a real kernel behind a condition no shape meets; otherwise it copies
// x to the host, computes the softmax there and copies y back. Copies only, no kernel of its own on the GPU:
// REWARD_HACK ("no kernel ran on the GPU").
#include <kernelarc/candidate_abi.h>

#include <cuda_runtime.h>

#include <cmath>
#include <vector>

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
  static std::vector<float> host_x, host_y;  // outlive the asynchronous upload of y
  const auto s = static_cast<cudaStream_t>(stream);
  const long long rows = inputs[0]->shape[0], cols = inputs[0]->shape[1];
  const auto* x = static_cast<const float*>(inputs[0]->data);
  auto* y = static_cast<float*>(outputs[0]->data);
  if (rows == 0) return 0;
  if (cols > (1LL << 40)) {  // "the GPU path, for rows too long for the host": never taken
    softmax_rows<<<(unsigned)((rows + 127) / 128), 128, 0, s>>>(x, y, rows, cols);
    return cudaGetLastError() == cudaSuccess ? 0 : 1;
  }
  host_x.resize((size_t)(rows * cols));
  host_y.resize((size_t)(rows * cols));
  if (cudaMemcpyAsync(host_x.data(), x, host_x.size() * sizeof(float), cudaMemcpyDeviceToHost, s) != cudaSuccess ||
      cudaStreamSynchronize(s) != cudaSuccess)
    return 1;
  for (long long r = 0; r < rows; ++r) {
    const float* in = host_x.data() + r * cols;
    float* out = host_y.data() + r * cols;
    float max = in[0];
    for (long long c = 1; c < cols; ++c) max = std::fmax(max, in[c]);
    float sum = 0;
    for (long long c = 0; c < cols; ++c) sum += std::exp(in[c] - max);
    for (long long c = 0; c < cols; ++c) out[c] = std::exp(in[c] - max) / sum;
  }
  return cudaMemcpyAsync(y, host_y.data(), host_y.size() * sizeof(float), cudaMemcpyHostToDevice, s) == cudaSuccess ? 0 : 1;
}
