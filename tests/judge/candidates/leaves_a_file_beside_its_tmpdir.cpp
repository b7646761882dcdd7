// Honest softmax that leaves a file beside its TMPDIR (in the folder above it, and the one above that, where it can)
// and fails (returns 3) when it finds one it did not write itself: a candidate folder whose parent outlives the
// candidate lets answers travel from one candidate of a judge to the next.
#include <kernelarc/candidate_abi.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>

namespace {
bool wrote_them = false;
}

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs, (void)stream;
  const char* tmp = std::getenv("TMPDIR");
  const std::string base = tmp ? tmp : "/tmp";
  if (!wrote_them) {
    for (const std::string& folder : {base + "/..", base + "/../..", base + "/../candidate"}) {
      const std::string marker = folder + "/left-by-an-earlier-candidate";
      if (access(marker.c_str(), F_OK) == 0) return 3;
      std::ofstream(marker) << "seen";
    }
    wrote_them = true;
  }
  const float* x = static_cast<const float*>(inputs[0]->data);
  float* y = static_cast<float*>(outputs[0]->data);
  const int64_t rows = inputs[0]->shape[0], cols = inputs[0]->shape[1];
  for (int64_t r = 0; r < rows; ++r) {
    float max = x[r * cols];
    for (int64_t c = 1; c < cols; ++c) max = std::fmax(max, x[r * cols + c]);
    float sum = 0;
    for (int64_t c = 0; c < cols; ++c) sum += std::exp(x[r * cols + c] - max);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - max) / sum;
  }
  return 0;
}
