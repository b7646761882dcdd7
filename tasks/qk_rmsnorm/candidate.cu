// A deliberately plain full-source CUDA candidate for qk-norm: one thread per head vector, q's then k's in one launch.
#include <kernelarc/candidate_abi.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void qk_rmsnorm_plain(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* q_weight,
                                 const __nv_bfloat16* k_weight, const float* eps, __nv_bfloat16* q_out, __nv_bfloat16* k_out,
                                 long long q_vectors, long long k_vectors, long long head_dim) {
  long long h = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (h >= q_vectors + k_vectors) return;
  const bool is_q = h < q_vectors;
  if (!is_q) h -= q_vectors;
  const __nv_bfloat16* in = (is_q ? q : k) + h * head_dim;
  const __nv_bfloat16* weight = is_q ? q_weight : k_weight;
  __nv_bfloat16* out = (is_q ? q_out : k_out) + h * head_dim;
  float squares = 0;
  for (long long d = 0; d < head_dim; ++d) {
    const float v = __bfloat162float(in[d]);
    squares += v * v;
  }
  const float rstd = rsqrtf(squares / (float)head_dim + *eps);
  for (long long d = 0; d < head_dim; ++d) out[d] = __float2bfloat16(__bfloat162float(in[d]) * rstd * __bfloat162float(weight[d]));
}

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs;
  const long long tokens = inputs[0]->shape[0], head_dim = inputs[0]->shape[2];
  const long long q_vectors = tokens * inputs[0]->shape[1], k_vectors = tokens * inputs[1]->shape[1];
  if (q_vectors + k_vectors == 0) return 0;
  qk_rmsnorm_plain<<<(unsigned)((q_vectors + k_vectors + 127) / 128), 128, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<const __nv_bfloat16*>(inputs[0]->data), static_cast<const __nv_bfloat16*>(inputs[1]->data),
      static_cast<const __nv_bfloat16*>(inputs[2]->data), static_cast<const __nv_bfloat16*>(inputs[3]->data),
      static_cast<const float*>(inputs[4]->data), static_cast<__nv_bfloat16*>(outputs[0]->data),
      static_cast<__nv_bfloat16*>(outputs[1]->data), q_vectors, k_vectors, head_dim);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
