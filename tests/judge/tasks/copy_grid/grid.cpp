// The copy_grid fixture's template: spins SPIN_US microseconds, then copies in chunks of CHUNK floats.
#include <kernelarc/candidate_abi.h>

#include <chrono>
#include <cstdint>
#include <cstring>

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs, (void)stream;
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(SPIN_US);
  while (std::chrono::steady_clock::now() < until) {
  }
  const auto* x = static_cast<const float*>(inputs[0]->data);
  auto* y = static_cast<float*>(outputs[0]->data);
  const int64_t n = inputs[0]->shape[0];
  for (int64_t i = 0; i < n; i += CHUNK) std::memcpy(y + i, x + i, static_cast<size_t>(n - i < CHUNK ? n - i : CHUNK) * sizeof(float));
  return 0;
}
