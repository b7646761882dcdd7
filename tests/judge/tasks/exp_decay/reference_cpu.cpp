// Reference of the exp_decay fixture: exp(-|x|) in float32.
#include <kernelarc/candidate_abi.h>

#include <cmath>
#include <cstdint>

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs, (void)stream;
  const auto* x = static_cast<const float*>(inputs[0]->data);
  auto* y = static_cast<float*>(outputs[0]->data);
  const int64_t count = inputs[0]->shape[0] * inputs[0]->shape[1];
  for (int64_t i = 0; i < count; ++i) y[i] = std::exp(-std::fabs(x[i]));
  return 0;
}
