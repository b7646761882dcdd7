// Compiles, but exports no kernelarc_run: the function has C++ linkage, so its symbol name is mangled.
#include <dlpack/dlpack.h>

#include <cstdint>

int kernelarc_run(const DLTensor* const* inputs, int32_t num_inputs, DLTensor* const* outputs, int32_t num_outputs,
                  void* stream) {
  (void)inputs, (void)num_inputs, (void)outputs, (void)num_outputs, (void)stream;
  return 0;
}
