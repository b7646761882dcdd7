// Native CUDA reference for GELU(tanh)-and-mul: one thread per output element, float32 math with the exact tanhf in
// PyTorch's order of operations (0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))) before rounding to bfloat16.
#include <kernelarc/candidate_abi.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void gelu_tanh_mul_reference(const __nv_bfloat16* gate_up, __nv_bfloat16* out, long long tokens, long long inter) {
  const long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (e >= tokens * inter) return;
  const long long row = e / inter, col = e % inter;
  const float x = __bfloat162float(gate_up[row * 2 * inter + col]);
  const float up = __bfloat162float(gate_up[row * 2 * inter + inter + col]);
  const float beta = 0.7978845608028654f, kappa = 0.044715f;
  const float cube = __fmul_rn(__fmul_rn(x, x), x);
  const float inner = __fmul_rn(beta, __fadd_rn(x, __fmul_rn(kappa, cube)));
  const float gelu = __fmul_rn(__fmul_rn(0.5f, x), __fadd_rn(1.0f, tanhf(inner)));
  out[e] = __float2bfloat16(__fmul_rn(gelu, up));
}

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs;
  const long long tokens = inputs[0]->shape[0], inter = outputs[0]->shape[1];
  if (tokens * inter == 0) return 0;
  gelu_tanh_mul_reference<<<static_cast<unsigned>((tokens * inter + 255) / 256), 256, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<const __nv_bfloat16*>(inputs[0]->data), static_cast<__nv_bfloat16*>(outputs[0]->data), tokens, inter);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
