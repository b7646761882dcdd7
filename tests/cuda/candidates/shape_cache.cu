// Canary (timing): computes once per shape (rows, cols) and keeps the answer on the device; every later call with that
// shape copies the kept answer with a tiny kernel. Each round brings fresh inputs of the same shape, so the replay is
// a stale answer: rejected.
#include <kernelarc/candidate_abi.h>

#include <cuda_runtime.h>

#include <map>
#include <utility>

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

__global__ void copy_floats(const float* from, float* to, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) to[i] = from[i];
}

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs;
  static std::map<std::pair<long long, long long>, float*> kept;  // by (rows, cols)
  const auto s = static_cast<cudaStream_t>(stream);
  const long long rows = inputs[0]->shape[0], cols = inputs[0]->shape[1], count = rows * cols;
  auto* y = static_cast<float*>(outputs[0]->data);
  if (count == 0) return 0;
  const unsigned copy_blocks = (unsigned)(count < 256 * 1024 ? (count + 255) / 256 : 1024);
  float*& answer = kept[{rows, cols}];
  if (answer) {  // seen this shape: replay
    copy_floats<<<copy_blocks, 256, 0, s>>>(answer, y, count);
    return cudaGetLastError() == cudaSuccess ? 0 : 1;
  }
  if (cudaMalloc(&answer, count * sizeof(float)) != cudaSuccess) return answer = nullptr, 1;
  softmax_rows<<<(unsigned)((rows + 127) / 128), 128, 0, s>>>(static_cast<const float*>(inputs[0]->data), y, rows, cols);
  copy_floats<<<copy_blocks, 256, 0, s>>>(y, answer, count);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
