// Harmful: reads a file outside its sandbox through the compiler (#include of /etc/passwd, the judge's host's users):
// its content would land in the compiler's diagnostics, and so in the verdict's reason. Whichever compiler builds a
// full CUDA source must not read it: COMPILE_ERROR, whose reason names the file and not its content.
#include <kernelarc/candidate_abi.h>

static const char* const kLeaked[] = {
#include "/etc/passwd"
};

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)inputs, (void)num_inputs, (void)outputs, (void)num_outputs, (void)stream, (void)kLeaked;
  return 0;
}
