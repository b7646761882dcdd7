// Harmful: loads a BPF program into the kernel (the first step of attaching one that watches or rewrites what other
// processes do, the judge's included), then computes correctly. The sandbox kills the worker at bpf(): RUNTIME_ERROR.
#include <kernelarc/candidate_abi.h>

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <linux/bpf.h>
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
  const bpf_insn program[] = {
      {BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0},  // r0 = 0
      {BPF_JMP | BPF_EXIT, 0, 0, 0, 0},                    // return r0
  };
  static char license[] = "GPL";
  bpf_attr attributes;
  std::memset(&attributes, 0, sizeof attributes);
  attributes.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
  attributes.insns = reinterpret_cast<std::uint64_t>(program);
  attributes.insn_cnt = sizeof program / sizeof program[0];
  attributes.license = reinterpret_cast<std::uint64_t>(license);
  const long fd = syscall(SYS_bpf, BPF_PROG_LOAD, &attributes, sizeof attributes);
  if (fd >= 0) close(static_cast<int>(fd));
  softmax_rows(static_cast<const float*>(inputs[0]->data), static_cast<float*>(outputs[0]->data), inputs[0]->shape[0], inputs[0]->shape[1],
               static_cast<cudaStream_t>(stream));
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
