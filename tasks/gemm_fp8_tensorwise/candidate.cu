// Full-source CUDA candidate for y = (x @ weight^T) * (x_scale * w_scale), x and weight in fp8 e4m3fn with one scale
// each, y in bf16: 64 x 64 tiles of y, 16 x 16 threads each accumulating 4 x 4 outputs in fp32 over 16-deep slices of x and
// weight decoded into shared memory, each sum times the scales' product. No tensor cores: a plain starting point.
#include <kernelarc/candidate_abi.h>

#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

namespace {

constexpr int kTile = 64, kDepth = 16, kPer = 4;

__global__ void __launch_bounds__(256) gemm_fp8_tiles(const __nv_fp8_e4m3* x, const __nv_fp8_e4m3* weight, const float* x_scale,
                                                       const float* w_scale, __nv_bfloat16* y, long long m, long long n, long long k) {
  __shared__ float xs[kDepth][kTile + 1], ws[kDepth][kTile + 1];
  const long long m0 = static_cast<long long>(blockIdx.y) * kTile, n0 = static_cast<long long>(blockIdx.x) * kTile;
  const int thread = threadIdx.y * 16 + threadIdx.x;
  float sum[kPer][kPer] = {};
  for (long long k0 = 0; k0 < k; k0 += kDepth) {
    for (int e = thread; e < kTile * kDepth; e += 256) {
      const int row = e / kDepth, p = e % kDepth;
      xs[p][row] = m0 + row < m && k0 + p < k ? static_cast<float>(x[(m0 + row) * k + k0 + p]) : 0.0f;
      ws[p][row] = n0 + row < n && k0 + p < k ? static_cast<float>(weight[(n0 + row) * k + k0 + p]) : 0.0f;
    }
    __syncthreads();
    for (int p = 0; p < kDepth; ++p)
      for (int i = 0; i < kPer; ++i)
        for (int j = 0; j < kPer; ++j) sum[i][j] = fmaf(xs[p][threadIdx.y + 16 * i], ws[p][threadIdx.x + 16 * j], sum[i][j]);
    __syncthreads();
  }
  for (int i = 0; i < kPer; ++i)
    for (int j = 0; j < kPer; ++j) {
      const long long row = m0 + threadIdx.y + 16 * i, col = n0 + threadIdx.x + 16 * j;
      if (row < m && col < n) y[row * n + col] = __float2bfloat16(sum[i][j] * (x_scale[0] * w_scale[0]));
    }
}

}  // namespace

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs;
  const long long m = inputs[0]->shape[0], k = inputs[0]->shape[1], n = inputs[1]->shape[0];
  if (m == 0 || n == 0) return 0;
  const dim3 block(16, 16), grid(static_cast<unsigned>((n + kTile - 1) / kTile), static_cast<unsigned>((m + kTile - 1) / kTile));
  gemm_fp8_tiles<<<grid, block, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<const __nv_fp8_e4m3*>(inputs[0]->data), static_cast<const __nv_fp8_e4m3*>(inputs[1]->data),
      static_cast<const float*>(inputs[2]->data), static_cast<const float*>(inputs[3]->data), static_cast<__nv_bfloat16*>(outputs[0]->data),
      m, n, k);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
