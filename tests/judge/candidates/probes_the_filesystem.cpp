// A probe of the sandbox's filesystem walls: correct, unless it can read what a candidate must not (the judge's
// scratch folder with the reference's buffers, the user's home, /proc of its parent, /etc): then it writes NaN.
// Sandboxed, it must PASS; without the walls it is INCORRECT.
#include <kernelarc/candidate_abi.h>

#include <cmath>
#include <cstdint>
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>
#include <cstdlib>
#include <string>

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
  const char* tmp = std::getenv("TMPDIR");
  const std::string scratch = std::string(tmp ? tmp : "/tmp") + "/../..";
  bool escaped = false;
  if (DIR* d = opendir(scratch.c_str())) escaped = true, closedir(d);
  for (const char* path : {"/etc/hostname", "/etc/passwd", "/root", "/proc/1/environ"}) {
    const int fd = open(path, O_RDONLY);
    if (fd >= 0) escaped = true, close(fd);
  }
  if (escaped) {
    float* y = static_cast<float*>(outputs[0]->data);
    y[0] = NAN;
    return 0;
  }
  softmax_rows(static_cast<const float*>(inputs[0]->data), static_cast<float*>(outputs[0]->data), inputs[0]->shape[0], inputs[0]->shape[1]);
  return 0;
}
