// Honest: copy_vector4's copy that loads each output vector before it writes it. With cold outputs, as the benchmark's
// harness allocates them, those loads come from DRAM: half as many bytes again as the plain copy moves.
#include <kernelarc/candidate_abi.h>

#include <cuda_runtime.h>

__global__ void copy4_reading(const float4* __restrict__ x, float4* __restrict__ y, long long n4) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n4; i += (long long)gridDim.x * blockDim.x) {
    const float4 old = __ldcg(y + i);
    float4 v = x[i];
    // Never true for finite random inputs over the poison: it only keeps the load.
    if (old.x == v.x && old.y == v.y && old.z == v.z && old.w == v.w && v.x == 1234.5f) v.x = 0.0f;
    y[i] = v;
  }
}

__global__ void copy_tail(const float* x, float* y, long long from, long long n) {
  const long long i = from + threadIdx.x;
  if (i < n) y[i] = x[i];
}

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs;
  const long long n = inputs[0]->shape[0];
  const auto s = static_cast<cudaStream_t>(stream);
  const auto* x = static_cast<const float*>(inputs[0]->data);
  auto* y = static_cast<float*>(outputs[0]->data);
  const long long n4 = n / 4;
  if (n4 > 0) copy4_reading<<<132 * 16, 1024, 0, s>>>(reinterpret_cast<const float4*>(x), reinterpret_cast<float4*>(y), n4);
  if (n % 4) copy_tail<<<1, 4, 0, s>>>(x, y, n4 * 4, n);
  return 0;
}
