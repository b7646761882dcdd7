// Native CUDA reference for y = (x @ weight^T) * (x_scale * w_scale) with x and weight in fp8 e4m3fn, one scale each:
// 16 x 16 tiles staged in shared memory as fp32, fp32 accumulation, the sum times the scales' product, one rounding to
// bf16, as torch._scaled_mm. A correctness oracle, not a fast kernel.
#include <kernelarc/candidate_abi.h>

#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

constexpr int kTile = 16;

__global__ void gemm_fp8_reference(const __nv_fp8_e4m3* x, const __nv_fp8_e4m3* weight, const float* x_scale, const float* w_scale,
                                   __nv_bfloat16* y, long long m, long long n, long long k) {
  __shared__ float x_tile[kTile][kTile + 1], w_tile[kTile][kTile + 1];
  const long long row = blockIdx.y * static_cast<long long>(kTile) + threadIdx.y;
  const long long col = blockIdx.x * static_cast<long long>(kTile) + threadIdx.x;
  const long long w_row = blockIdx.x * static_cast<long long>(kTile) + threadIdx.y;
  float sum = 0.0f;
  for (long long k0 = 0; k0 < k; k0 += kTile) {
    const long long p = k0 + threadIdx.x;
    x_tile[threadIdx.y][threadIdx.x] = row < m && p < k ? static_cast<float>(x[row * k + p]) : 0.0f;
    w_tile[threadIdx.y][threadIdx.x] = w_row < n && p < k ? static_cast<float>(weight[w_row * k + p]) : 0.0f;
    __syncthreads();
    for (int q = 0; q < kTile; ++q) sum = fmaf(x_tile[threadIdx.y][q], w_tile[threadIdx.x][q], sum);
    __syncthreads();
  }
  if (row < m && col < n) y[row * n + col] = __float2bfloat16(sum * (x_scale[0] * w_scale[0]));
}

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs;
  const long long m = inputs[0]->shape[0], k = inputs[0]->shape[1], n = inputs[1]->shape[0];
  if (m == 0 || n == 0) return 0;
  const dim3 block(kTile, kTile), grid(static_cast<unsigned>((n + kTile - 1) / kTile), static_cast<unsigned>((m + kTile - 1) / kTile));
  gemm_fp8_reference<<<grid, block, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<const __nv_fp8_e4m3*>(inputs[0]->data), static_cast<const __nv_fp8_e4m3*>(inputs[1]->data),
      static_cast<const float*>(inputs[2]->data), static_cast<const float*>(inputs[3]->data), static_cast<__nv_bfloat16*>(outputs[0]->data),
      m, n, k);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
