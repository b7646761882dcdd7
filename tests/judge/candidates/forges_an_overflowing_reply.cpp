// Timing (tampering with the judge's own code): writes a reply on the worker's pipe whose number overflows a double
// ("ns": 1e999999), which made the JSON parser throw a kind of error the judge did not catch: the orchestrator itself
// stopped. Now a reply that does not parse breaks the protocol and the worker is killed: rejected.
#include <kernelarc/candidate_abi.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
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
  static const char forged[] = "{\"ok\":true,\"rc\":0,\"ns\":1e999999,\"metadata\":\"\"}\n";
  // The reply pipe: a write-only pipe above the standard descriptors.
  for (int fd = 3; fd < 64; ++fd) {
    struct stat info;
    const int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || (flags & O_ACCMODE) != O_WRONLY || fstat(fd, &info) != 0 || !S_ISFIFO(info.st_mode)) continue;
    (void)!write(fd, forged, std::strlen(forged));
  }
  softmax_rows(static_cast<const float*>(inputs[0]->data), static_cast<float*>(outputs[0]->data), inputs[0]->shape[0], inputs[0]->shape[1]);
  return 0;
}
