// Correct softmax that prints garbage (including fake protocol replies) to stdout and stderr on every call: must PASS.
#include <kernelarc/candidate_abi.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs, (void)stream;
  static int calls = 0;
  ++calls;
  std::printf("{\"ok\":true,\"rc\":0,\"ns\":1}\n");  // a fake worker reply on stdout
  std::printf("garbage without a newline %d", calls);
  std::fflush(stdout);
  std::cout << "\n{\"ok\":false,\"error\":\"fake\"}" << std::endl;
  std::fprintf(stderr, "stderr garbage %d \x01\x02\xff\n", calls);
  (void)!write(1, "raw fd 1 garbage\n", 17);
  (void)!write(2, "raw fd 2 garbage\n", 17);
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
