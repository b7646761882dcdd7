// Returns a non-zero code (3) without computing anything.
#include <kernelarc/candidate_abi.h>

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)inputs, (void)num_inputs, (void)outputs, (void)num_outputs, (void)stream;
  return 3;
}
