// Native CUDA reference for y = silu(x @ gate_weight^T) * (x @ up_weight^T) in bf16: 16 x 16 tiles staged in shared
// memory, fp32 accumulation, each product rounded to bf16 as F.linear rounds it, the SiLU in fp32 rounded again, the
// product of the two rounded once more. A correctness oracle, not a fast kernel.
#include <kernelarc/candidate_abi.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

constexpr int kTile = 16;

__device__ float rounded(float v) { return __bfloat162float(__float2bfloat16(v)); }

__global__ void gate_up_silu_reference(const __nv_bfloat16* x, const __nv_bfloat16* gate_weight, const __nv_bfloat16* up_weight,
                                       __nv_bfloat16* y, long long m, long long n, long long k) {
  __shared__ float x_tile[kTile][kTile + 1], g_tile[kTile][kTile + 1], u_tile[kTile][kTile + 1];
  const long long row = blockIdx.y * static_cast<long long>(kTile) + threadIdx.y;
  const long long col = blockIdx.x * static_cast<long long>(kTile) + threadIdx.x;
  const long long w_row = blockIdx.x * static_cast<long long>(kTile) + threadIdx.y;
  float gate = 0.0f, up = 0.0f;
  for (long long k0 = 0; k0 < k; k0 += kTile) {
    const long long p = k0 + threadIdx.x;
    x_tile[threadIdx.y][threadIdx.x] = row < m && p < k ? __bfloat162float(x[row * k + p]) : 0.0f;
    g_tile[threadIdx.y][threadIdx.x] = w_row < n && p < k ? __bfloat162float(gate_weight[w_row * k + p]) : 0.0f;
    u_tile[threadIdx.y][threadIdx.x] = w_row < n && p < k ? __bfloat162float(up_weight[w_row * k + p]) : 0.0f;
    __syncthreads();
    for (int q = 0; q < kTile; ++q) {
      gate = fmaf(x_tile[threadIdx.y][q], g_tile[threadIdx.x][q], gate);
      up = fmaf(x_tile[threadIdx.y][q], u_tile[threadIdx.x][q], up);
    }
    __syncthreads();
  }
  if (row >= m || col >= n) return;
  const float g = rounded(gate);
  y[row * n + col] = __float2bfloat16(rounded(g / (1.0f + expf(-g))) * rounded(up));
}

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs;
  const long long m = inputs[0]->shape[0], k = inputs[0]->shape[1], n = inputs[1]->shape[0];
  if (m == 0 || n == 0) return 0;
  const dim3 block(kTile, kTile), grid(static_cast<unsigned>((n + kTile - 1) / kTile), static_cast<unsigned>((m + kTile - 1) / kTile));
  gate_up_silu_reference<<<grid, block, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<const __nv_bfloat16*>(inputs[0]->data), static_cast<const __nv_bfloat16*>(inputs[1]->data),
      static_cast<const __nv_bfloat16*>(inputs[2]->data), static_cast<__nv_bfloat16*>(outputs[0]->data), m, n, k);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
