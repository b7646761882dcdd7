// Harmful: opens a TCP socket through io_uring (IORING_OP_SOCKET), where a filter that checks only the socket()
// system call does not look, then computes correctly. The sandbox kills the worker at io_uring_setup():
// RUNTIME_ERROR.
#include <kernelarc/candidate_abi.h>

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <linux/io_uring.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/socket.h>
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
  io_uring_params params;
  std::memset(&params, 0, sizeof params);
  const int ring = static_cast<int>(syscall(SYS_io_uring_setup, 1, &params));
  if (ring >= 0) {
    const std::size_t sq_bytes = params.sq_off.array + params.sq_entries * sizeof(std::uint32_t);
    auto* sq = static_cast<char*>(mmap(nullptr, sq_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQ_RING));
    auto* sqes = static_cast<io_uring_sqe*>(mmap(nullptr, params.sq_entries * sizeof(io_uring_sqe), PROT_READ | PROT_WRITE,
                                                 MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQES));
    if (sq != MAP_FAILED && sqes != MAP_FAILED) {
      std::memset(&sqes[0], 0, sizeof sqes[0]);
      sqes[0].opcode = IORING_OP_SOCKET;
      sqes[0].fd = AF_INET;
      sqes[0].off = SOCK_STREAM;
      reinterpret_cast<std::uint32_t*>(sq + params.sq_off.array)[0] = 0;
      __atomic_store_n(reinterpret_cast<std::uint32_t*>(sq + params.sq_off.tail), 1u, __ATOMIC_RELEASE);
      (void)syscall(SYS_io_uring_enter, ring, 1, 1, IORING_ENTER_GETEVENTS, nullptr, 0);
    }
    close(ring);
  }
  softmax_rows(static_cast<const float*>(inputs[0]->data), static_cast<float*>(outputs[0]->data), inputs[0]->shape[0], inputs[0]->shape[1],
               static_cast<cudaStream_t>(stream));
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
