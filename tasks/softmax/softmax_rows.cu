// Kernel-only softmax template for CUDA (sm_90): each row goes to BLOCK threads of a block, or of each block of a
// thread-block cluster. Knobs:
//   BLOCK           threads per row in one block, a power of two from 32 (a warp per row: no shared memory) (tiling)
//   ROWS_PER_BLOCK  rows per block, one group of BLOCK threads each (tiling)
//   CLUSTER         blocks of a cluster sharing each row, partials exchanged through distributed shared memory (tiling)
//   VEC             floats per load, 1, 2 or 4; a row's unaligned head and its tail go one element per thread (memory)
//   CACHE_ROW       vector loads per thread kept in registers, so the passes read x once; 0 for none; longer rows are
//                   re-read (fusion)
//   ONE_PASS        online max and rescaled sum in one read, instead of a max pass then a sum pass (algorithmic)
//   FAST_EXP        __expf (ex2.approx) instead of expf (precision)
//   STREAMING       evict-first hints on the last read of x and on the stores of y (memory)
//   UNROLL          loads a thread issues before it uses the first, where the row is streamed from memory (pipelining)
// Launch: grid [ceil_div(batch_size, ROWS_PER_BLOCK) * CLUSTER], block [BLOCK * ROWS_PER_BLOCK].
// Arguments: x, y, then the var axes batch_size and hidden.
#include <kernelarc/device.cuh>

// Knobs: defined by the judge from definition.json, the one place their values are written.

static_assert(BLOCK >= 32 && BLOCK <= 1024 && (BLOCK & (BLOCK - 1)) == 0, "BLOCK: a power of two, 32 to 1024");
static_assert(ROWS_PER_BLOCK >= 1 && BLOCK * ROWS_PER_BLOCK <= 1024, "BLOCK * ROWS_PER_BLOCK: at most 1024 threads");
static_assert(CLUSTER >= 1 && CLUSTER <= 8, "CLUSTER: 1 to 8 blocks (the portable cluster size)");
static_assert(VEC == 1 || VEC == 2 || VEC == 4, "VEC: 1, 2 or 4 floats");
static_assert(CACHE_ROW >= 0, "CACHE_ROW: 0 or more loads");
static_assert(UNROLL >= 1, "UNROLL: 1 or more loads");

#if CLUSTER > 1
#define CLUSTER_DIMS __cluster_dims__(CLUSTER, 1, 1)
#else
#define CLUSTER_DIMS
#endif

constexpr int kWarps = BLOCK / 32;             // warps per row in one block
constexpr int kRowThreads = BLOCK * CLUSTER;  // threads per row, over the cluster

template <int V> struct Floats;
template <> struct Floats<1> { using type = float; };
template <> struct Floats<2> { using type = float2; };
template <> struct Floats<4> { using type = float4; };
using Vec = Floats<VEC>::type;

__device__ __forceinline__ float& element(Vec& v, int i) { return reinterpret_cast<float*>(&v)[i]; }

template <class T>
__device__ __forceinline__ T load(const float* at, bool last_use) {
#if STREAMING
  if (last_use) return __ldcs(reinterpret_cast<const T*>(at));
#endif
  (void)last_use;
  return __ldg(reinterpret_cast<const T*>(at));
}

template <class T>
__device__ __forceinline__ void store(float* at, T value) {
#if STREAMING
  __stcs(reinterpret_cast<T*>(at), value);
#else
  *reinterpret_cast<T*>(at) = value;
#endif
}

// The VEC floats of `value` to `at`: one vector store where `at` is aligned for it, else one float at a time.
__device__ __forceinline__ void store_vec(float* at, Vec value, bool aligned) {
  if (aligned) {
    store<Vec>(at, value);
  } else {
#pragma unroll
    for (int i = 0; i < VEC; ++i) store<float>(at + i, element(value, i));
  }
}

// Calls visit(v, value) on each vector v of the row that is this thread's (v = lane, lane + kRowThreads, ...), with UNROLL
// loads in flight before the first value is used.
template <class Visit>
__device__ __forceinline__ void stream_row(const float* in_vec, long long vectors, int lane, bool last_use, Visit&& visit) {
  for (long long first = lane; first < vectors; first += static_cast<long long>(kRowThreads) * UNROLL) {
    Vec values[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      const long long v = first + static_cast<long long>(u) * kRowThreads;
      if (v < vectors) values[u] = load<Vec>(in_vec + v * VEC, last_use);
    }
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
      if (first + static_cast<long long>(u) * kRowThreads < vectors) visit(first + static_cast<long long>(u) * kRowThreads, values[u]);
  }
}

__device__ __forceinline__ float exp_of(float v) {
#if FAST_EXP
  return __expf(v);
#else
  return expf(v);
#endif
}

// exp(a - b), exactly 1 when a == b: an element at -inf against a maximum still at -inf weighs 1, not NaN.
__device__ __forceinline__ float exp_diff(float a, float b) { return a == b ? 1.0f : exp_of(a - b); }

// A running maximum and the sum of exp(x - max) over the elements seen.
struct Online {
  float max, sum;
};

__device__ __forceinline__ void online_add(Online& state, float x) {
  const float weight = exp_diff(fminf(x, state.max), fmaxf(x, state.max));  // exp(-|x - max|)
  if (x > state.max) {
    state.sum = state.sum * weight + 1.0f;
    state.max = x;
  } else {
    state.sum += weight;
  }
}

struct MaxOp {
  using T = float;
  static __device__ __forceinline__ T identity() { return __int_as_float(0xff800000); }
  static __device__ __forceinline__ T combine(T a, T b) { return fmaxf(a, b); }
};

struct SumOp {
  using T = float;
  static __device__ __forceinline__ T identity() { return 0.0f; }
  static __device__ __forceinline__ T combine(T a, T b) { return a + b; }
};

struct OnlineOp {
  using T = Online;
  static __device__ __forceinline__ T identity() { return {__int_as_float(0xff800000), 0.0f}; }
  static __device__ __forceinline__ T combine(T a, T b) {
    const float max = fmaxf(a.max, b.max);
    return {max, a.sum * exp_diff(a.max, max) + b.sum * exp_diff(b.max, max)};
  }
};

using kernelarc::device::shuffle_xor;  // of a float; the Online overload is this file's
__device__ __forceinline__ Online shuffle_xor(Online v, int mask) { return {shuffle_xor(v.max, mask), shuffle_xor(v.sum, mask)}; }

template <class Op>
__device__ __forceinline__ typename Op::T warp_reduce(typename Op::T v) {
#pragma unroll
  for (int mask = 16; mask > 0; mask /= 2) v = Op::combine(v, shuffle_xor(v, mask));
  return v;
}

// Reduces v over the BLOCK * CLUSTER threads of this thread's row. Every thread of the block calls it at the same
// point (the control flow around it is uniform), each reduction with its own `partials`, so that no barrier is needed
// after the reads.
template <class Op>
__device__ __forceinline__ typename Op::T row_reduce(typename Op::T v, typename Op::T (&partials)[ROWS_PER_BLOCK][kWarps]) {
  v = warp_reduce<Op>(v);
  if constexpr (kWarps > 1 || CLUSTER > 1) {
    const int group = threadIdx.x / BLOCK, warp = threadIdx.x % BLOCK / 32, lane = threadIdx.x % 32;
    if (lane == 0) partials[group][warp] = v;
#if CLUSTER > 1
    __cluster_barrier_arrive();
    __cluster_barrier_wait();
#else
    __syncthreads();
#endif
    v = Op::identity();
    for (int i = lane; i < kWarps * CLUSTER; i += 32) {
      const typename Op::T* from = &partials[group][i % kWarps];
#if CLUSTER > 1
      from = static_cast<const typename Op::T*>(__cluster_map_shared_rank(from, i / kWarps));
#endif
      v = Op::combine(v, *from);
    }
    v = warp_reduce<Op>(v);
  }
  return v;
}

extern "C" __global__ void __launch_bounds__(BLOCK * ROWS_PER_BLOCK) CLUSTER_DIMS
softmax_rows(const float* __restrict__ x, float* __restrict__ y, long long rows, long long cols) {
  const int group = threadIdx.x / BLOCK;
#if CLUSTER > 1
  const int rank = static_cast<int>(__clusterRelativeBlockRank());
#else
  const int rank = 0;
#endif
  const long long row = static_cast<long long>(blockIdx.x / CLUSTER) * ROWS_PER_BLOCK + group;
  // A group past the last row has no elements but still takes part in the reductions.
  const long long n = row < rows ? cols : 0;
  const float* in = x + (row < rows ? row : 0) * cols;
  float* out = y + (row < rows ? row : 0) * cols;
  const int lane = rank * BLOCK + static_cast<int>(threadIdx.x % BLOCK);  // this thread's place among the row's threads

  // The row is `head` elements up to the first VEC-aligned address of `in`, `vectors` aligned vectors, then the tail
  // from `tail`; head and tail (fewer than 2 * VEC elements, fewer than the row's threads) take one element per thread.
  const int misaligned = static_cast<int>(reinterpret_cast<unsigned long long>(in) / sizeof(float) % VEC);
  const long long head = (VEC - misaligned) % VEC < n ? (VEC - misaligned) % VEC : n;
  const long long vectors = (n - head) / VEC;
  const long long tail = head + vectors * VEC;
  const bool has_edge = lane < head + (n - tail);
  const long long edge = lane < head ? lane : tail + (lane - head);
  // y may sit at another offset from a 16-byte boundary than x: then the vectors are stored one float at a time.
  const bool aligned_out =
      (reinterpret_cast<unsigned long long>(in) ^ reinterpret_cast<unsigned long long>(out)) % (VEC * sizeof(float)) == 0;
  const float* in_vec = in + head;
  float* out_vec = out + head;

  const bool cached = CACHE_ROW > 0 && vectors <= static_cast<long long>(CACHE_ROW) * kRowThreads;
  Vec cache[CACHE_ROW > 0 ? CACHE_ROW : 1];
  const float edge_x = has_edge ? load<float>(in + edge, true) : MaxOp::identity();

#if ONE_PASS
  __shared__ Online online_partials[ROWS_PER_BLOCK][kWarps];
  Online state = OnlineOp::identity();
  if (has_edge) online_add(state, edge_x);
  if (cached) {
#pragma unroll
    for (int j = 0; j < (CACHE_ROW > 0 ? CACHE_ROW : 1); ++j) {
      const long long v = lane + static_cast<long long>(j) * kRowThreads;
      if (v < vectors) {
        cache[j] = load<Vec>(in_vec + v * VEC, true);
#pragma unroll
        for (int i = 0; i < VEC; ++i) online_add(state, element(cache[j], i));
      }
    }
  } else {
    stream_row(in_vec, vectors, lane, false, [&](long long, Vec value) {
#pragma unroll
      for (int i = 0; i < VEC; ++i) online_add(state, element(value, i));
    });
  }
  state = row_reduce<OnlineOp>(state, online_partials);
  const float max = state.max, inverse = 1.0f / state.sum;
#else
  __shared__ float max_partials[ROWS_PER_BLOCK][kWarps];
  __shared__ float sum_partials[ROWS_PER_BLOCK][kWarps];
  float max = edge_x;
  if (cached) {
#pragma unroll
    for (int j = 0; j < (CACHE_ROW > 0 ? CACHE_ROW : 1); ++j) {
      const long long v = lane + static_cast<long long>(j) * kRowThreads;
      if (v < vectors) {
        cache[j] = load<Vec>(in_vec + v * VEC, true);
#pragma unroll
        for (int i = 0; i < VEC; ++i) max = fmaxf(max, element(cache[j], i));
      }
    }
  } else {
    stream_row(in_vec, vectors, lane, false, [&](long long, Vec value) {
#pragma unroll
      for (int i = 0; i < VEC; ++i) max = fmaxf(max, element(value, i));
    });
  }
  max = row_reduce<MaxOp>(max, max_partials);

  float sum = has_edge ? exp_diff(edge_x, max) : 0.0f;
  if (cached) {
    // The cache keeps exp(x - max) from here on.
#pragma unroll
    for (int j = 0; j < (CACHE_ROW > 0 ? CACHE_ROW : 1); ++j) {
      const long long v = lane + static_cast<long long>(j) * kRowThreads;
      if (v < vectors) {
#pragma unroll
        for (int i = 0; i < VEC; ++i) {
          element(cache[j], i) = exp_diff(element(cache[j], i), max);
          sum += element(cache[j], i);
        }
      }
    }
  } else {
    stream_row(in_vec, vectors, lane, false, [&](long long, Vec value) {
#pragma unroll
      for (int i = 0; i < VEC; ++i) sum += exp_diff(element(value, i), max);
    });
  }
  const float inverse = 1.0f / row_reduce<SumOp>(sum, sum_partials);
#endif

#if CLUSTER > 1
  // The other blocks of the cluster may still read this block's partials: it stays until they are done.
  __cluster_barrier_arrive();
#endif
  if (has_edge) store<float>(out + edge, exp_diff(edge_x, max) * inverse);
  if (cached) {
#pragma unroll
    for (int j = 0; j < (CACHE_ROW > 0 ? CACHE_ROW : 1); ++j) {
      const long long v = lane + static_cast<long long>(j) * kRowThreads;
      if (v < vectors) {
        Vec value = cache[j];
#pragma unroll
        for (int i = 0; i < VEC; ++i) element(value, i) = (ONE_PASS ? exp_diff(element(value, i), max) : element(value, i)) * inverse;
        store_vec(out_vec + v * VEC, value, aligned_out);
      }
    }
  } else {
    stream_row(in_vec, vectors, lane, true, [&](long long v, Vec value) {
#pragma unroll
      for (int i = 0; i < VEC; ++i) element(value, i) = exp_diff(element(value, i), max) * inverse;
      store_vec(out_vec + v * VEC, value, aligned_out);
    });
  }
#if CLUSTER > 1
  __cluster_barrier_wait();
#endif
}
