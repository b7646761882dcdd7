// Native CUDA reference for qk-norm: one warp per head vector of q or of k, the sum of squares in double,
// x * rsqrt(mean + eps) * weight in double, rounded to bfloat16 once as the PyTorch reference rounds.
#include <kernelarc/candidate_abi.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

constexpr int kWarpsPerBlock = 8;

__global__ void rms_norm_heads_reference(const __nv_bfloat16* x, const __nv_bfloat16* weight, const float* eps, __nv_bfloat16* out,
                                         long long vectors, long long head_dim) {
  const long long h = blockIdx.x * (long long)kWarpsPerBlock + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (h >= vectors) return;  // the whole warp leaves together
  const __nv_bfloat16* in = x + h * head_dim;
  double squares = 0;
  for (long long d = lane; d < head_dim; d += 32) {
    const double v = __bfloat162float(in[d]);
    squares += v * v;
  }
  for (int mask = 16; mask > 0; mask /= 2) squares += __shfl_xor_sync(0xffffffffu, squares, mask);
  const double rstd = 1.0 / sqrt(squares / (double)head_dim + (double)*eps);
  for (long long d = lane; d < head_dim; d += 32)
    out[h * head_dim + d] = __float2bfloat16((float)(__bfloat162float(in[d]) * rstd * __bfloat162float(weight[d])));
}

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs;
  const long long tokens = inputs[0]->shape[0], head_dim = inputs[0]->shape[2];
  const cudaStream_t on = static_cast<cudaStream_t>(stream);
  for (int which = 0; which < 2; ++which) {
    const long long vectors = tokens * inputs[which]->shape[1];
    if (vectors == 0) continue;
    rms_norm_heads_reference<<<(unsigned)((vectors + kWarpsPerBlock - 1) / kWarpsPerBlock), 32 * kWarpsPerBlock, 0, on>>>(
        static_cast<const __nv_bfloat16*>(inputs[which]->data), static_cast<const __nv_bfloat16*>(inputs[2 + which]->data),
        static_cast<const float*>(inputs[4]->data), static_cast<__nv_bfloat16*>(outputs[which]->data), vectors, head_dim);
  }
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
