// y = x for the test problems whose references fail.
#include <kernelarc/candidate_abi.h>

#include <cstring>

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs, (void)stream;
  std::memcpy(outputs[0]->data, inputs[0]->data, static_cast<size_t>(inputs[0]->shape[0] * inputs[0]->shape[1]) * sizeof(float));
  return 0;
}
