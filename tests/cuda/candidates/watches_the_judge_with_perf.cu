// Harmful: opens a performance counter on its parent, the judge, to learn when the judge is busy (a cache flush, a
// timed call being prepared) and time its own work around it, then computes correctly. The sandbox kills the worker
// at perf_event_open(): RUNTIME_ERROR.
#include <kernelarc/candidate_abi.h>

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <linux/perf_event.h>
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
  perf_event_attr attributes;
  std::memset(&attributes, 0, sizeof attributes);
  attributes.size = sizeof attributes;
  attributes.type = PERF_TYPE_SOFTWARE;
  attributes.config = PERF_COUNT_SW_TASK_CLOCK;
  const long fd = syscall(SYS_perf_event_open, &attributes, getppid(), -1, -1, 0);
  if (fd >= 0) {
    std::uint64_t judge_busy_ns = 0;
    (void)!read(static_cast<int>(fd), &judge_busy_ns, sizeof judge_busy_ns);
    close(static_cast<int>(fd));
  }
  softmax_rows(static_cast<const float*>(inputs[0]->data), static_cast<float*>(outputs[0]->data), inputs[0]->shape[0], inputs[0]->shape[1],
               static_cast<cudaStream_t>(stream));
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
