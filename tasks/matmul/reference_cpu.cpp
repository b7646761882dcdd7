// Native reference for matmul: float64 accumulation.
#include <kernelarc/candidate_abi.h>

#include <cstdint>
#include <vector>

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs, (void)stream;
  const float* a = static_cast<const float*>(inputs[0]->data);
  const float* b = static_cast<const float*>(inputs[1]->data);
  float* c = static_cast<float*>(outputs[0]->data);
  const int64_t m = inputs[0]->shape[0], k = inputs[0]->shape[1], n = inputs[1]->shape[1];
  std::vector<double> row(static_cast<size_t>(n));
  for (int64_t i = 0; i < m; ++i) {
    for (auto& value : row) value = 0;
    for (int64_t p = 0; p < k; ++p) {
      const double left = a[i * k + p];
      for (int64_t j = 0; j < n; ++j) row[j] += left * b[p * n + j];
    }
    for (int64_t j = 0; j < n; ++j) c[i * n + j] = static_cast<float>(row[j]);
  }
  return 0;
}
