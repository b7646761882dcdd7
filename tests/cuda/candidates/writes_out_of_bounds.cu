// Canary (harmful): writes one value a terabyte past its output. Expected: RUNTIME_ERROR naming CUDA_ERROR_ILLEGAL_ADDRESS.
#include <kernelarc/candidate_abi.h>

#include <cuda_runtime.h>

__global__ void scribble(float* y) { y[(1ll << 38) + threadIdx.x] = 1.0f; }

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)inputs, (void)num_inputs, (void)num_outputs;
  scribble<<<1, 32, 0, static_cast<cudaStream_t>(stream)>>>(static_cast<float*>(outputs[0]->data));
  return 0;
}
