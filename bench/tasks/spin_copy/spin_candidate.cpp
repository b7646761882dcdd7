// Spins for SPIN_US microseconds, then copies: a kernel of known duration.
#include <kernelarc/candidate_abi.h>

#include <chrono>
#include <cstring>

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs, (void)stream;
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(SPIN_US);
  while (std::chrono::steady_clock::now() < until) {
  }
  std::memcpy(outputs[0]->data, inputs[0]->data, static_cast<size_t>(inputs[0]->shape[0]) * sizeof(float));
  return 0;
}
