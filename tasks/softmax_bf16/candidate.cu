// A deliberately plain full-source CUDA candidate for the bf16 softmax: one thread per row, three passes, float32 math.
#include <kernelarc/candidate_abi.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void softmax_bf16_plain(const __nv_bfloat16* x, __nv_bfloat16* y, long long rows, long long cols) {
  const long long r = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (r >= rows) return;
  const __nv_bfloat16* in = x + r * cols;
  __nv_bfloat16* out = y + r * cols;
  float max = __bfloat162float(in[0]);
  for (long long c = 1; c < cols; ++c) max = fmaxf(max, __bfloat162float(in[c]));
  float sum = 0;
  for (long long c = 0; c < cols; ++c) sum += expf(__bfloat162float(in[c]) - max);
  for (long long c = 0; c < cols; ++c) out[c] = __float2bfloat16(expf(__bfloat162float(in[c]) - max) / sum);
}

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs;
  const long long rows = inputs[0]->shape[0], cols = inputs[0]->shape[1];
  if (rows == 0) return 0;
  softmax_bf16_plain<<<static_cast<unsigned>((rows + 127) / 128), 128, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<const __nv_bfloat16*>(inputs[0]->data), static_cast<__nv_bfloat16*>(outputs[0]->data), rows, cols);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
