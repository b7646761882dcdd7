// Kernel-only matmul template for CUDA (sm_90): a block computes a TILE_M x TILE tile of C (TILE_M rows, TILE columns),
// each thread THREAD_M x THREAD_N of its outputs in registers, over BLOCK_K-deep slices of A and B that cp.async stages in
// shared memory, with STAGES slices in flight. Knobs: TILE_M, TILE, THREAD_M, THREAD_N, BLOCK_K (tiling), STAGES
// (pipelining).
// A thread's outputs are strided over the tile (every TILE_M / THREAD_M rows, every TILE / THREAD_N columns), so that the
// shared-memory reads are conflict-free and a warp's stores to C are coalesced.
// Launch: grid [ceil_div(N, TILE), ceil_div(M, TILE_M)], block [TILE / THREAD_N, TILE_M / THREAD_M].
// Arguments: a, b, c, then the var axes M, N and K.
#include <cuda_pipeline_primitives.h>

// Knobs: defined by the judge from definition.json, the one place their values are written.

constexpr int kThreadsM = TILE_M / THREAD_M;  // threads along a column of the tile (threadIdx.y)
constexpr int kThreadsN = TILE / THREAD_N;  // threads along a row of the tile (threadIdx.x)
constexpr int kThreads = kThreadsM * kThreadsN;

static_assert(TILE_M % THREAD_M == 0 && TILE % THREAD_N == 0, "THREAD_M and THREAD_N divide the tile");
static_assert(kThreads >= 1 && kThreads <= 1024, "at most 1024 threads a block");
static_assert(STAGES >= 1 && STAGES <= 8, "STAGES: 1 to 8 slices in flight");
static_assert(STAGES * BLOCK_K * (TILE_M + 1 + TILE) * 4 <= 48 * 1024, "static shared memory: at most 48 KiB");

// The slice [k0, k0 + BLOCK_K) of A's rows m0.. (transposed: a column of the slice is a row of a_slice, padded by one so
// that the writes of consecutive k spread over the banks) and of B's columns n0..; zeros outside the matrices.
__device__ __forceinline__ void stage_slices(float (&a_slice)[BLOCK_K][TILE_M + 1], float (&b_slice)[BLOCK_K][TILE],
                                             const float* a, const float* b, long long m, long long n, long long k, long long m0,
                                             long long n0, long long k0) {
  const int thread = threadIdx.y * kThreadsN + threadIdx.x;
#pragma unroll
  for (int i = 0; i < (TILE_M * BLOCK_K + kThreads - 1) / kThreads; ++i) {
    const int e = thread + i * kThreads;
    if (TILE_M * BLOCK_K % kThreads == 0 || e < TILE_M * BLOCK_K) {
      const int r = e / BLOCK_K, p = e % BLOCK_K;
      const bool inside = m0 + r < m && k0 + p < k;
      __pipeline_memcpy_async(&a_slice[p][r], inside ? a + (m0 + r) * k + k0 + p : a, 4, inside ? 0 : 4);
    }
  }
#pragma unroll
  for (int i = 0; i < (BLOCK_K * TILE + kThreads - 1) / kThreads; ++i) {
    const int e = thread + i * kThreads;
    if (BLOCK_K * TILE % kThreads == 0 || e < BLOCK_K * TILE) {
      const int p = e / TILE, col = e % TILE;
      const bool inside = k0 + p < k && n0 + col < n;
      __pipeline_memcpy_async(&b_slice[p][col], inside ? b + (k0 + p) * n + n0 + col : b, 4, inside ? 0 : 4);
    }
  }
}

extern "C" __global__ void __launch_bounds__(kThreads)
matmul_tiled(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, long long m, long long n, long long k) {
  __shared__ float a_slices[STAGES][BLOCK_K][TILE_M + 1];
  __shared__ float b_slices[STAGES][BLOCK_K][TILE];
  const long long m0 = static_cast<long long>(blockIdx.y) * TILE_M, n0 = static_cast<long long>(blockIdx.x) * TILE;
  const long long slices = (k + BLOCK_K - 1) / BLOCK_K;

  float sum[THREAD_M][THREAD_N];
#pragma unroll
  for (int i = 0; i < THREAD_M; ++i)
#pragma unroll
    for (int j = 0; j < THREAD_N; ++j) sum[i][j] = 0.0f;

  // Slice s sits in stage s % STAGES and is the s-th group of copies committed: one group a step, empty or not, so that
  // waiting for all but the newest STAGES - 1 groups means slice s has landed.
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < slices) stage_slices(a_slices[s], b_slices[s], a, b, m, n, k, m0, n0, static_cast<long long>(s) * BLOCK_K);
    __pipeline_commit();
  }
  for (long long s = 0; s < slices; ++s) {
    const long long ahead = s + STAGES - 1;
    // Its stage was last read in step s - 1, which every thread has finished (the barrier at the end of the step).
    if (ahead < slices) stage_slices(a_slices[ahead % STAGES], b_slices[ahead % STAGES], a, b, m, n, k, m0, n0, ahead * BLOCK_K);
    __pipeline_commit();
    __pipeline_wait_prior(STAGES - 1);
    __syncthreads();
    const int stage = static_cast<int>(s % STAGES);
#pragma unroll
    for (int p = 0; p < BLOCK_K; ++p) {
      float a_column[THREAD_M], b_row[THREAD_N];
#pragma unroll
      for (int i = 0; i < THREAD_M; ++i) a_column[i] = a_slices[stage][p][threadIdx.y + i * kThreadsM];
#pragma unroll
      for (int j = 0; j < THREAD_N; ++j) b_row[j] = b_slices[stage][p][threadIdx.x + j * kThreadsN];
#pragma unroll
      for (int i = 0; i < THREAD_M; ++i)
#pragma unroll
        for (int j = 0; j < THREAD_N; ++j) sum[i][j] = fmaf(a_column[i], b_row[j], sum[i][j]);
    }
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < THREAD_M; ++i) {
    const long long row = m0 + threadIdx.y + i * kThreadsM;
#pragma unroll
    for (int j = 0; j < THREAD_N; ++j) {
      const long long col = n0 + threadIdx.x + j * kThreadsN;
      if (row < m && col < n) c[row * n + col] = sum[i][j];
    }
  }
}
