// Kernel-only matmul template for CUDA: TILE x TILE output tiles staged through shared memory.
// Launch: grid [ceil_div(N, TILE), ceil_div(M, TILE)], block [TILE, TILE]. Arguments: a, b, c, M, N, K.
#ifndef TILE
#define TILE 16
#endif

extern "C" __global__ void matmul_tiled(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                        long long m, long long n, long long k) {
  __shared__ float a_tile[TILE][TILE], b_tile[TILE][TILE];
  const long long row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  float sum = 0;
  for (long long p0 = 0; p0 < k; p0 += TILE) {
    a_tile[threadIdx.y][threadIdx.x] = row < m && p0 + threadIdx.x < k ? a[row * k + p0 + threadIdx.x] : 0.0f;
    b_tile[threadIdx.y][threadIdx.x] = p0 + threadIdx.y < k && col < n ? b[(p0 + threadIdx.y) * n + col] : 0.0f;
    __syncthreads();
    for (int p = 0; p < TILE; ++p) sum += a_tile[threadIdx.y][p] * b_tile[p][threadIdx.x];
    __syncthreads();
  }
  if (row < m && col < n) c[row * n + col] = sum;
}
