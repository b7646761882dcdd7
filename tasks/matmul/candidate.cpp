// A deliberately plain starting candidate for matmul: the textbook triple loop.
#include <kernelarc/candidate_abi.h>

#include <cstdint>

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs, (void)stream;
  const float* a = static_cast<const float*>(inputs[0]->data);
  const float* b = static_cast<const float*>(inputs[1]->data);
  float* c = static_cast<float*>(outputs[0]->data);
  const int64_t m = inputs[0]->shape[0], k = inputs[0]->shape[1], n = inputs[1]->shape[1];
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float sum = 0;
      for (int64_t p = 0; p < k; ++p) sum += a[i * k + p] * b[p * n + j];
      c[i * n + j] = sum;
    }
  return 0;
}
