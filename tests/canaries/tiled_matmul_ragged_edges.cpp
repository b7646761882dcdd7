// Honest: a matmul in 32x32x64 tiles with a local accumulator tile and fp32 accumulation, whose edge tiles are cut
// to the matrix (shapes such as 127x255x129 or 200x3x77 are not multiples of any tile). Must PASS.
#include <kernelarc/candidate_abi.h>

#include <algorithm>
#include <cstdint>

namespace {
constexpr int64_t kTileM = 32, kTileN = 32, kTileK = 64;
}

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs, (void)stream;
  const float* a = static_cast<const float*>(inputs[0]->data);
  const float* b = static_cast<const float*>(inputs[1]->data);
  float* c = static_cast<float*>(outputs[0]->data);
  const int64_t m = inputs[0]->shape[0], k = inputs[0]->shape[1], n = inputs[1]->shape[1];
  float tile[kTileM][kTileN];
  for (int64_t i0 = 0; i0 < m; i0 += kTileM)
    for (int64_t j0 = 0; j0 < n; j0 += kTileN) {
      const int64_t rows = std::min(kTileM, m - i0), cols = std::min(kTileN, n - j0);
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j) tile[i][j] = 0;
      for (int64_t p0 = 0; p0 < k; p0 += kTileK) {
        const int64_t depth = std::min(kTileK, k - p0);
        for (int64_t i = 0; i < rows; ++i)
          for (int64_t p = 0; p < depth; ++p) {
            const float left = a[(i0 + i) * k + p0 + p];
            const float* right = b + (p0 + p) * n + j0;
            for (int64_t j = 0; j < cols; ++j) tile[i][j] += left * right[j];
          }
      }
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j) c[(i0 + i) * n + j0 + j] = tile[i][j];
    }
  return 0;
}
