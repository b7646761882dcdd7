// Harmful: sends SIGTERM to the main thread of its parent, the judge, with tgkill, then computes correctly. The sandbox
// lets a worker signal its own threads only and kills it: RUNTIME_ERROR, and the judge lives on.
#include <kernelarc/candidate_abi.h>

#include <cmath>
#include <csignal>
#include <cstdint>
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
  (void)syscall(SYS_tgkill, getppid(), getppid(), SIGTERM);
  softmax_rows(static_cast<const float*>(inputs[0]->data), static_cast<float*>(outputs[0]->data), inputs[0]->shape[0], inputs[0]->shape[1]);
  return 0;
}
