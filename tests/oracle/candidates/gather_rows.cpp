// Rows of a table by index for the test problem gather_rows_custom; an index outside the table fails the call (so inputs
// made at random, not by the problem's custom_inputs_entrypoint, are caught).
#include <kernelarc/candidate_abi.h>

#include <cstdint>
#include <cstring>

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs, (void)stream;
  const auto* table = static_cast<const float*>(inputs[0]->data);
  const auto* indices = static_cast<const int64_t*>(inputs[1]->data);
  auto* rows = static_cast<float*>(outputs[0]->data);
  const int64_t table_rows = inputs[0]->shape[0], hidden = inputs[0]->shape[1], tokens = inputs[1]->shape[0];
  for (int64_t t = 0; t < tokens; ++t) {
    if (indices[t] < 0 || indices[t] >= table_rows) return 2;
    std::memcpy(rows + t * hidden, table + indices[t] * hidden, static_cast<std::size_t>(hidden) * sizeof(float));
  }
  return 0;
}
