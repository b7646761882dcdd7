// Calls abort() (SIGABRT), as a failed assert would.
#include <kernelarc/candidate_abi.h>

#include <cstdlib>

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)inputs, (void)num_inputs, (void)outputs, (void)num_outputs, (void)stream;
  std::abort();
}
