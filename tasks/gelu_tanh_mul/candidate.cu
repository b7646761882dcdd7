// A deliberately plain full-source CUDA candidate for GELU(tanh)-and-mul: one thread per token walks its row.
#include <kernelarc/candidate_abi.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void gelu_tanh_mul_plain(const __nv_bfloat16* gate_up, __nv_bfloat16* out, long long tokens, long long inter) {
  const long long t = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (t >= tokens) return;
  for (long long c = 0; c < inter; ++c) {
    const float x = __bfloat162float(gate_up[t * 2 * inter + c]);
    const float up = __bfloat162float(gate_up[t * 2 * inter + inter + c]);
    const float gelu = 0.5f * x * (1.0f + tanhf(0.7978845608028654f * (x + 0.044715f * x * x * x)));
    out[t * inter + c] = __float2bfloat16(gelu * up);
  }
}

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs;
  const long long tokens = inputs[0]->shape[0], inter = outputs[0]->shape[1];
  if (tokens == 0) return 0;
  gelu_tanh_mul_plain<<<static_cast<unsigned>((tokens + 127) / 128), 128, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<const __nv_bfloat16*>(inputs[0]->data), static_cast<__nv_bfloat16*>(outputs[0]->data), tokens, inter);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
