// A deliberately plain full-source CUDA candidate for matmul: one thread per output, float accumulation.
#include <kernelarc/candidate_abi.h>

#include <cuda_runtime.h>

__global__ void matmul_plain(const float* a, const float* b, float* c, long long m, long long n, long long k) {
  const long long row = blockIdx.y * (long long)blockDim.y + threadIdx.y, col = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (row >= m || col >= n) return;
  float sum = 0;
  for (long long p = 0; p < k; ++p) sum += a[row * k + p] * b[p * n + col];
  c[row * n + col] = sum;
}

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs;
  const long long m = inputs[0]->shape[0], k = inputs[0]->shape[1], n = inputs[1]->shape[1];
  if (m == 0 || n == 0) return 0;
  const dim3 block(16, 16), grid((unsigned)((n + 15) / 16), (unsigned)((m + 15) / 16));
  matmul_plain<<<grid, block, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<const float*>(inputs[0]->data), static_cast<const float*>(inputs[1]->data), static_cast<float*>(outputs[0]->data), m, n, k);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
