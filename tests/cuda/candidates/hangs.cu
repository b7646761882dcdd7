// Canary (harmful): a kernel that never ends. Expected: TIMEOUT at the call's deadline, and a fresh worker for the next job.
#include <kernelarc/candidate_abi.h>

#include <cuda_runtime.h>

__global__ void forever(float* y) {
  // clock64() is volatile, so the compiler cannot prove the loop ends or remove it.
  while (clock64() != -1) {
  }
  y[0] = 0;
}

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)inputs, (void)num_inputs, (void)num_outputs;
  forever<<<1, 1, 0, static_cast<cudaStream_t>(stream)>>>(static_cast<float*>(outputs[0]->data));
  return 0;
}
