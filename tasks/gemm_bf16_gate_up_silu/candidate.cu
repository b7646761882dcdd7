// Full-source CUDA candidate for y = silu(x @ gate_weight^T) * (x @ up_weight^T) in bf16: 64 x 64 tiles of y, 16 x 16
// threads each accumulating 4 x 4 gate and 4 x 4 up sums in fp32 over 16-deep slices of x and both weights staged in
// shared memory; each sum rounded to bf16, the SiLU in fp32 rounded again, the product rounded once more. No tensor
// cores: a plain starting point.
#include <kernelarc/candidate_abi.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace {

constexpr int kTile = 64, kDepth = 16, kPer = 4;

__device__ float rounded(float v) { return __bfloat162float(__float2bfloat16(v)); }

__global__ void __launch_bounds__(256) gate_up_silu_tiles(const __nv_bfloat16* x, const __nv_bfloat16* gate_weight,
                                                           const __nv_bfloat16* up_weight, __nv_bfloat16* y, long long m, long long n,
                                                           long long k) {
  __shared__ float xs[kDepth][kTile + 1], gs[kDepth][kTile + 1], us[kDepth][kTile + 1];
  const long long m0 = static_cast<long long>(blockIdx.y) * kTile, n0 = static_cast<long long>(blockIdx.x) * kTile;
  const int thread = threadIdx.y * 16 + threadIdx.x;
  float gate[kPer][kPer] = {}, up[kPer][kPer] = {};
  for (long long k0 = 0; k0 < k; k0 += kDepth) {
    for (int e = thread; e < kTile * kDepth; e += 256) {
      const int row = e / kDepth, p = e % kDepth;
      const bool in_k = k0 + p < k;
      xs[p][row] = m0 + row < m && in_k ? __bfloat162float(x[(m0 + row) * k + k0 + p]) : 0.0f;
      gs[p][row] = n0 + row < n && in_k ? __bfloat162float(gate_weight[(n0 + row) * k + k0 + p]) : 0.0f;
      us[p][row] = n0 + row < n && in_k ? __bfloat162float(up_weight[(n0 + row) * k + k0 + p]) : 0.0f;
    }
    __syncthreads();
    for (int p = 0; p < kDepth; ++p)
      for (int i = 0; i < kPer; ++i)
        for (int j = 0; j < kPer; ++j) {
          const float a = xs[p][threadIdx.y + 16 * i];
          gate[i][j] = fmaf(a, gs[p][threadIdx.x + 16 * j], gate[i][j]);
          up[i][j] = fmaf(a, us[p][threadIdx.x + 16 * j], up[i][j]);
        }
    __syncthreads();
  }
  for (int i = 0; i < kPer; ++i)
    for (int j = 0; j < kPer; ++j) {
      const long long row = m0 + threadIdx.y + 16 * i, col = n0 + threadIdx.x + 16 * j;
      if (row >= m || col >= n) continue;
      const float g = rounded(gate[i][j]);
      y[row * n + col] = __float2bfloat16(rounded(g / (1.0f + expf(-g))) * rounded(up[i][j]));
    }
}

}  // namespace

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs;
  const long long m = inputs[0]->shape[0], k = inputs[0]->shape[1], n = inputs[1]->shape[0];
  if (m == 0 || n == 0) return 0;
  const dim3 block(16, 16), grid(static_cast<unsigned>((n + kTile - 1) / kTile), static_cast<unsigned>((m + kTile - 1) / kTile));
  gate_up_silu_tiles<<<grid, block, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<const __nv_bfloat16*>(inputs[0]->data), static_cast<const __nv_bfloat16*>(inputs[1]->data),
      static_cast<const __nv_bfloat16*>(inputs[2]->data), static_cast<__nv_bfloat16*>(outputs[0]->data), m, n, k);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
