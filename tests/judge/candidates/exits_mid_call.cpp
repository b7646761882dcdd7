// Calls exit(0) in the middle of a call: a clean exit code must not look like success.
#include <kernelarc/candidate_abi.h>

#include <cstdio>
#include <cstdlib>

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)inputs, (void)num_inputs, (void)outputs, (void)num_outputs, (void)stream;
  std::fprintf(stderr, "leaving early\n");
  std::exit(0);
}
