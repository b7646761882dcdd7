// A probe of the sandbox's privilege walls: correct, unless the worker holds a capability in any set (it started as
// root, say), could gain privileges back through an exec (no no_new_privs) or runs without a system-call filter: then
// it writes NaN. Sandboxed, it must PASS; a worker that kept its privileges is INCORRECT.
#include <kernelarc/candidate_abi.h>

#include <cmath>
#include <cstdint>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace {

void softmax_rows(const float* x, float* y, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    float max = x[r * cols];
    for (int64_t c = 1; c < cols; ++c) max = std::fmax(max, x[r * cols + c]);
    float sum = 0;
    for (int64_t c = 0; c < cols; ++c) sum += std::exp(x[r * cols + c] - max);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - max) / sum;
  }
}

}  // namespace

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs, (void)stream;
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct sets[_LINUX_CAPABILITY_U32S_3] = {};
  bool privileged = syscall(SYS_capget, &header, sets) != 0;
  for (const auto& set : sets) privileged = privileged || set.effective || set.permitted || set.inheritable;
  for (int capability = 0; capability <= CAP_LAST_CAP; ++capability)
    privileged = privileged || prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, capability, 0, 0) == 1;
  privileged = privileged || prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1 || prctl(PR_GET_SECCOMP, 0, 0, 0, 0) != 2;
  if (privileged) {
    static_cast<float*>(outputs[0]->data)[0] = NAN;
    return 0;
  }
  softmax_rows(static_cast<const float*>(inputs[0]->data), static_cast<float*>(outputs[0]->data), inputs[0]->shape[0], inputs[0]->shape[1]);
  return 0;
}
