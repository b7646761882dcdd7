// Harmful: embeds a file outside its sandbox into its own library through the assembler (.incbin of /etc/passwd) and
// prints it at run time, where the worker's log reaches the verdict's reason. The compiler runs in a sandbox of its
// own that reads only the system's compiler and include folders: COMPILE_ERROR, whose reason holds no content.
#include <kernelarc/candidate_abi.h>

#include <cstdio>

asm(".section .rodata\n"
    ".global kernelarc_leaked\n"
    "kernelarc_leaked:\n"
    ".incbin \"/etc/passwd\"\n"
    ".byte 0\n"
    ".previous\n");
extern "C" const char kernelarc_leaked[];

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)inputs, (void)num_inputs, (void)outputs, (void)num_outputs, (void)stream;
  std::fprintf(stderr, "%s\n", kernelarc_leaked);
  return 1;
}
