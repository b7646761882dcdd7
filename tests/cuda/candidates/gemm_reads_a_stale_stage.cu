// Canary (semantics, issue 26): y = x @ weight^T with a two-stage shared-memory ring of 16-deep K slices, and the
// pipelining bug of a missing wait: the last slice is multiplied from the stage that still holds the slice before it.
// Every K longer than one slice is wrong by one slice's share of the sum. Expected: INCORRECT_NUMERICAL.
#include <kernelarc/candidate_abi.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace {

constexpr int kTile = 64, kDepth = 16, kPer = 4;

__global__ void __launch_bounds__(256) gemm_two_stages(const __nv_bfloat16* x, const __nv_bfloat16* weight, __nv_bfloat16* y, long long m,
                                                       long long n, long long k) {
  __shared__ float xs[2][kDepth][kTile + 1], ws[2][kDepth][kTile + 1];
  const long long m0 = static_cast<long long>(blockIdx.y) * kTile, n0 = static_cast<long long>(blockIdx.x) * kTile;
  const int thread = threadIdx.y * 16 + threadIdx.x;
  const long long slices = (k + kDepth - 1) / kDepth;
  float sum[kPer][kPer] = {};
  for (long long t = 0; t < slices; ++t) {
    const int stage = static_cast<int>(t & 1);
    const long long k0 = t * kDepth;
    for (int e = thread; e < kTile * kDepth; e += 256) {
      const int row = e / kDepth, p = e % kDepth;
      xs[stage][p][row] = m0 + row < m && k0 + p < k ? __bfloat162float(x[(m0 + row) * k + k0 + p]) : 0.0f;
      ws[stage][p][row] = n0 + row < n && k0 + p < k ? __bfloat162float(weight[(n0 + row) * k + k0 + p]) : 0.0f;
    }
    __syncthreads();
    const int read = t == slices - 1 && t > 0 ? stage ^ 1 : stage;  // the bug: the last slice's stage is not waited for
    for (int p = 0; p < kDepth; ++p)
      for (int i = 0; i < kPer; ++i)
        for (int j = 0; j < kPer; ++j) sum[i][j] = fmaf(xs[read][p][threadIdx.y + 16 * i], ws[read][p][threadIdx.x + 16 * j], sum[i][j]);
    __syncthreads();
  }
  for (int i = 0; i < kPer; ++i)
    for (int j = 0; j < kPer; ++j) {
      const long long row = m0 + threadIdx.y + 16 * i, col = n0 + threadIdx.x + 16 * j;
      if (row < m && col < n) y[row * n + col] = __float2bfloat16(sum[i][j]);
    }
}

}  // namespace

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs;
  const long long m = inputs[0]->shape[0], k = inputs[0]->shape[1], n = inputs[1]->shape[0];
  if (m == 0 || n == 0) return 0;
  const dim3 block(16, 16), grid(static_cast<unsigned>((n + kTile - 1) / kTile), static_cast<unsigned>((m + kTile - 1) / kTile));
  gemm_two_stages<<<grid, block, 0, static_cast<cudaStream_t>(stream)>>>(static_cast<const __nv_bfloat16*>(inputs[0]->data),
                                                                         static_cast<const __nv_bfloat16*>(inputs[1]->data),
                                                                         static_cast<__nv_bfloat16*>(outputs[0]->data), m, n, k);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
