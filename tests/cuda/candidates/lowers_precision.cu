// Canary (semantics): lowers precision past the tolerance: the softmax done in __half arithmetic throughout (inputs
// rounded to half, hexp, the row sum accumulated in half, the result rounded to half), about 3 significant digits
// where the task asks for a relative error of 1e-3. Expected: INCORRECT_NUMERICAL.
#include <kernelarc/candidate_abi.h>

#include <cuda_fp16.h>
#include <cuda_runtime.h>

__global__ void softmax_rows_half(const float* x, float* y, long long rows, long long cols) {
  const long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* in = x + r * cols;
  float* out = y + r * cols;
  __half max = __float2half(in[0]);
  for (long long c = 1; c < cols; ++c) max = __hmax(max, __float2half(in[c]));
  __half sum = __float2half(0.0f);
  for (long long c = 0; c < cols; ++c) sum = __hadd(sum, hexp(__hsub(__float2half(in[c]), max)));
  for (long long c = 0; c < cols; ++c) out[c] = __half2float(__hdiv(hexp(__hsub(__float2half(in[c]), max)), sum));
}

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs;
  const long long rows = inputs[0]->shape[0], cols = inputs[0]->shape[1];
  if (rows == 0) return 0;
  softmax_rows_half<<<(unsigned)((rows + 127) / 128), 128, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<const float*>(inputs[0]->data), static_cast<float*>(outputs[0]->data), rows, cols);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
