// Does not compile: uses an undeclared identifier (undeclared_scale_factor).
#include <kernelarc/candidate_abi.h>

#include <cstdint>

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs, (void)stream;
  float* y = static_cast<float*>(outputs[0]->data);
  const int64_t n = inputs[0]->shape[0] * inputs[0]->shape[1];
  for (int64_t i = 0; i < n; ++i) y[i] = undeclared_scale_factor;
  return 0;
}
