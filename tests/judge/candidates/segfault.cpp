// Crashes: writes through a null pointer (SIGSEGV) on every call.
#include <kernelarc/candidate_abi.h>

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)inputs, (void)num_inputs, (void)outputs, (void)num_outputs, (void)stream;
  volatile int* nowhere = nullptr;
  *nowhere = 42;
  return 0;
}
