// Canary (timing): computes once per input address and keeps the answer on the device; a later call on an address it
// has seen copies the kept answer with a tiny kernel. The next round's fresh inputs at the same address get the stale
// answer: rejected.
#include <kernelarc/candidate_abi.h>

#include <cuda_runtime.h>

#include <map>

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

struct Kept {
  float* answer = nullptr;
  long long count = 0;
};

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs;
  static std::map<const void*, Kept> kept;  // by input address
  const auto s = static_cast<cudaStream_t>(stream);
  const long long rows = inputs[0]->shape[0], cols = inputs[0]->shape[1], count = rows * cols;
  const auto* x = static_cast<const float*>(inputs[0]->data);
  auto* y = static_cast<float*>(outputs[0]->data);
  if (count == 0) return 0;
  const unsigned copy_blocks = (unsigned)(count < 256 * 1024 ? (count + 255) / 256 : 1024);
  Kept& entry = kept[x];
  if (entry.answer && entry.count == count) {  // seen this address: replay
    copy_floats<<<copy_blocks, 256, 0, s>>>(entry.answer, y, count);
    return cudaGetLastError() == cudaSuccess ? 0 : 1;
  }
  if (entry.answer) cudaFree(entry.answer), entry.answer = nullptr;
  if (cudaMalloc(&entry.answer, count * sizeof(float)) != cudaSuccess) return 1;
  entry.count = count;
  softmax_rows<<<(unsigned)((rows + 127) / 128), 128, 0, s>>>(x, y, rows, cols);
  copy_floats<<<copy_blocks, 256, 0, s>>>(y, entry.answer, count);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
