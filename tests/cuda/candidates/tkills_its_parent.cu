// Harmful: sends SIGTERM to its parent, the judge, with tkill (which names a thread anywhere on the system, where kill
// and tgkill name a process), then computes correctly. The sandbox kills the worker at tkill(): RUNTIME_ERROR, and the
// judge lives on.
#include <kernelarc/candidate_abi.h>

#include <cuda_runtime.h>

#include <csignal>
#include <cstdint>
#include <sys/syscall.h>
#include <unistd.h>

namespace {

__global__ void softmax_kernel(const float* x, float* y, int64_t rows, int64_t cols) {
  const int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float max = x[r * cols];
  for (int64_t c = 1; c < cols; ++c) max = fmaxf(max, x[r * cols + c]);
  float sum = 0;
  for (int64_t c = 0; c < cols; ++c) sum += expf(x[r * cols + c] - max);
  for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = expf(x[r * cols + c] - max) / sum;
}

void softmax_rows(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  if (rows > 0) softmax_kernel<<<(unsigned)((rows + 127) / 128), 128, 0, stream>>>(x, y, rows, cols);
}

}  // namespace

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs;
  (void)syscall(SYS_tkill, getppid(), SIGTERM);
  softmax_rows(static_cast<const float*>(inputs[0]->data), static_cast<float*>(outputs[0]->data), inputs[0]->shape[0], inputs[0]->shape[1],
               static_cast<cudaStream_t>(stream));
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
