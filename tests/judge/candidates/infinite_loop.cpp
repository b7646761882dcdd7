// Never returns: spins forever (volatile, so the compiler cannot assume the loop terminates).
#include <kernelarc/candidate_abi.h>

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)inputs, (void)num_inputs, (void)outputs, (void)num_outputs, (void)stream;
  volatile unsigned long spins = 0;
  for (;;) spins = spins + 1;
  return 0;
}
