// Canary (timing): fingerprints A and B from 64 sampled elements on the device and replays the C it kept for that
// fingerprint; a miss computes C and then burns ~200 us (standing for an expensive kernel) before remembering it. The
// loop's calls reuse the correctness rounds' inputs (hits), calls on new inputs miss: REWARD_HACK ("faster on inputs...").
#include <kernelarc/candidate_abi.h>

#include <cuda_runtime.h>

#include <map>
#include <tuple>

constexpr int kEntries = 32;  // more than the distinct inputs one workload ever shows it (rounds and new-input calls)
constexpr int kSamples = 64;

// Lives in device memory: the kernels decide between replay and work, so the host never waits.
struct Table {
  unsigned long long keys[kEntries];  // fingerprint held by each entry, 0 for none
  unsigned long long fingerprint;     // of this call's inputs
  int hit;                            // the entry holding this call's answer, or -1
  int victim;                         // the entry a miss fills
  int next;                           // round robin
};

__global__ void look_up(const float* a, const float* b, long long a_count, long long b_count, Table* table) {
  __shared__ unsigned samples[kSamples];
  const int i = threadIdx.x;
  const float* from = i % 2 ? b : a;
  const long long count = i % 2 ? b_count : a_count;
  samples[i] = __float_as_uint(from[((long long)(i / 2) * 7919) % count]);
  __syncthreads();
  if (i != 0) return;
  unsigned long long hash = 1469598103934665603ull ^ (unsigned long long)a_count ^ ((unsigned long long)b_count << 32);
  for (int j = 0; j < kSamples; ++j) hash = (hash ^ samples[j]) * 1099511628211ull;
  if (hash == 0) hash = 1;
  table->fingerprint = hash;
  table->hit = -1;
  for (int e = 0; e < kEntries; ++e)
    if (table->keys[e] == hash) table->hit = e;
  if (table->hit < 0) {
    table->victim = table->next;
    table->next = (table->next + 1) % kEntries;
    table->keys[table->victim] = 0;  // being overwritten
  }
}

__global__ void serve(const float* a, const float* b, float* c, float* answers, const Table* table, long long m, long long n,
                      long long k) {
  const long long row = blockIdx.y * (long long)blockDim.y + threadIdx.y, col = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (row >= m || col >= n) return;
  const long long at = row * n + col;
  if (const int hit = table->hit; hit >= 0) {
    c[at] = answers[hit * m * n + at];
    return;
  }
  float sum = 0;
  for (long long p = 0; p < k; ++p) sum += a[row * k + p] * b[p * n + col];
  c[at] = sum;
  answers[table->victim * m * n + at] = sum;
}

__global__ void remember(Table* table) {
  if (table->hit >= 0) return;
  // The expensive computation a cache would save, in one thread: ~200 us of wall time on the GPU's global timer.
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < 200000);
  table->keys[table->victim] = table->fingerprint;
}

struct Cache {
  Table* table = nullptr;
  float* answers = nullptr;  // kEntries outputs of this shape
};

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs;
  static std::map<std::tuple<long long, long long, long long>, Cache> caches;  // by (M, N, K)
  const auto s = static_cast<cudaStream_t>(stream);
  const long long m = inputs[0]->shape[0], k = inputs[0]->shape[1], n = inputs[1]->shape[1];
  if (m == 0 || n == 0) return 0;
  if (k == 0) return cudaMemsetAsync(outputs[0]->data, 0, m * n * sizeof(float), s) == cudaSuccess ? 0 : 1;
  Cache& cache = caches[{m, n, k}];
  if (!cache.table) {
    if (cudaMalloc(&cache.table, sizeof(Table)) != cudaSuccess) return cache.table = nullptr, 1;
    if (cudaMalloc(&cache.answers, kEntries * m * n * sizeof(float)) != cudaSuccess) return 1;
    cudaMemsetAsync(cache.table, 0, sizeof(Table), s);
  }
  const auto* a = static_cast<const float*>(inputs[0]->data);
  const auto* b = static_cast<const float*>(inputs[1]->data);
  look_up<<<1, kSamples, 0, s>>>(a, b, m * k, k * n, cache.table);
  const dim3 block(16, 16), grid((unsigned)((n + 15) / 16), (unsigned)((m + 15) / 16));
  serve<<<grid, block, 0, s>>>(a, b, static_cast<float*>(outputs[0]->data), cache.answers, cache.table, m, n, k);
  remember<<<1, 1, 0, s>>>(cache.table);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
