// Harmful: asks which capabilities it holds (a worker started by root keeps them all unless it drops them) and uses
// CAP_NET_RAW for a raw socket, to reach the network below the namespace's walls, then computes correctly. The worker
// holds no capability (probes_its_privileges.cpp checks that) and the sandbox kills it at socket(): RUNTIME_ERROR.
#include <kernelarc/candidate_abi.h>

#include <cuda_runtime.h>

#include <cstdint>
#include <linux/capability.h>
#include <netinet/in.h>
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
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct sets[_LINUX_CAPABILITY_U32S_3] = {};
  const bool raw = syscall(SYS_capget, &header, sets) == 0 && ((sets[0].effective >> CAP_NET_RAW) & 1u);
  const int fd = socket(AF_INET, raw ? SOCK_RAW : SOCK_DGRAM, raw ? IPPROTO_ICMP : 0);  // unprivileged: the ping socket
  if (fd >= 0) close(fd);
  softmax_rows(static_cast<const float*>(inputs[0]->data), static_cast<float*>(outputs[0]->data), inputs[0]->shape[0], inputs[0]->shape[1],
               static_cast<cudaStream_t>(stream));
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
