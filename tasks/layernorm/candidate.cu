// A deliberately plain full-source CUDA candidate for LayerNorm: one thread per token, the mean then the variance.
#include <kernelarc/candidate_abi.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void layernorm_plain(const __nv_bfloat16* x, const __nv_bfloat16* weight, const __nv_bfloat16* bias, const float* eps,
                                __nv_bfloat16* out, long long tokens, long long hidden) {
  const long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (t >= tokens) return;
  const __nv_bfloat16* row = x + t * hidden;
  float sum = 0;
  for (long long c = 0; c < hidden; ++c) sum += __bfloat162float(row[c]);
  const float mean = sum / (float)hidden;
  float deviations = 0;
  for (long long c = 0; c < hidden; ++c) {
    const float d = __bfloat162float(row[c]) - mean;
    deviations += d * d;
  }
  const float rstd = rsqrtf(deviations / (float)hidden + *eps);
  for (long long c = 0; c < hidden; ++c)
    out[t * hidden + c] =
        __float2bfloat16((__bfloat162float(row[c]) - mean) * rstd * __bfloat162float(weight[c]) + __bfloat162float(bias[c]));
}

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs;
  const long long tokens = inputs[0]->shape[0], hidden = inputs[0]->shape[1];
  if (tokens == 0) return 0;
  layernorm_plain<<<(unsigned)((tokens + 127) / 128), 128, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<const __nv_bfloat16*>(inputs[0]->data), static_cast<const __nv_bfloat16*>(inputs[1]->data),
      static_cast<const __nv_bfloat16*>(inputs[2]->data), static_cast<const float*>(inputs[3]->data),
      static_cast<__nv_bfloat16*>(outputs[0]->data), tokens, hidden);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
