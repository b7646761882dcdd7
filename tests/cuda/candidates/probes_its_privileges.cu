// A probe of the sandbox's privilege walls: correct, unless the worker holds a capability in any set (it started as
// root, say), could gain privileges back through an exec (no no_new_privs) or runs without a system-call filter: then
// it writes NaN (on the GPU, through the given stream). Sandboxed, it must PASS; a worker that kept its privileges is INCORRECT.
#include <kernelarc/candidate_abi.h>

#include <cuda_runtime.h>

#include <cstdint>
#include <linux/capability.h>
#include <sys/prctl.h>
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
  bool privileged = syscall(SYS_capget, &header, sets) != 0;
  for (const auto& set : sets) privileged = privileged || set.effective || set.permitted || set.inheritable;
  for (int capability = 0; capability <= CAP_LAST_CAP; ++capability)
    privileged = privileged || prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, capability, 0, 0) == 1;
  privileged = privileged || prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1 || prctl(PR_GET_SECCOMP, 0, 0, 0, 0) != 2;
  if (privileged) {  // all-ones bytes: a NaN in the first value
    cudaMemsetAsync(outputs[0]->data, 0xFF, sizeof(float), static_cast<cudaStream_t>(stream));
    return 0;
  }
  softmax_rows(static_cast<const float*>(inputs[0]->data), static_cast<float*>(outputs[0]->data), inputs[0]->shape[0], inputs[0]->shape[1],
               static_cast<cudaStream_t>(stream));
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
