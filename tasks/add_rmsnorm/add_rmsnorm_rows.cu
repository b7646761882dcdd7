// Kernel-only add + RMSNorm template for CUDA (sm_90): each token goes to BLOCK threads of a block, or of each block of a
// thread-block cluster. Knobs:
//   BLOCK           threads per token in one block, a power of two from 32 (a warp per token) (tiling)
//   ROWS_PER_BLOCK  tokens per block, one group of BLOCK threads each (tiling)
//   CLUSTER         blocks of a cluster sharing each token, partial sums exchanged through distributed shared memory (tiling)
//   VEC             bf16 per load, 1, 2, 4 or 8 (16 bytes); one at a time unless hidden_size is a multiple of VEC and every
//                   pointer is aligned for it (memory)
//   KEEP_ROW        loads per thread of h kept in registers for the second pass, 0 for none; a token that does not fit
//                   re-reads new_residual (fusion)
//   SHUFFLE_REDUCE  warp shuffles for the sum of squares instead of a shared-memory tree (algorithmic)
//   UNROLL          loads of each input a thread issues before it uses the first, where a token is streamed (pipelining)
// h = bf16(x + residual) is rounded exactly as the reference does; out = bf16(h * rsqrt(mean(h^2) + eps) * weight).
// Launch: grid [ceil_div(num_tokens, ROWS_PER_BLOCK) * CLUSTER], block [BLOCK * ROWS_PER_BLOCK].
// Arguments: x, residual, weight, eps, out, new_residual, then the var axes num_tokens and hidden_size.
#include <cuda_bf16.h>
#include <kernelarc/device.cuh>

// Knobs: defined by the judge from definition.json, the one place their values are written.

static_assert(BLOCK >= 32 && BLOCK <= 1024 && (BLOCK & (BLOCK - 1)) == 0, "BLOCK: a power of two, 32 to 1024");
static_assert(ROWS_PER_BLOCK >= 1 && BLOCK * ROWS_PER_BLOCK <= 1024, "BLOCK * ROWS_PER_BLOCK: at most 1024 threads");
static_assert(CLUSTER >= 1 && CLUSTER <= 8, "CLUSTER: 1 to 8 blocks (the portable cluster size)");
static_assert(VEC == 1 || VEC == 2 || VEC == 4 || VEC == 8, "VEC: 1, 2, 4 or 8 bf16");
static_assert(KEEP_ROW >= 0, "KEEP_ROW: 0 or more loads");
static_assert(UNROLL >= 1, "UNROLL: 1 or more loads");

#if CLUSTER > 1
#define CLUSTER_DIMS __cluster_dims__(CLUSTER, 1, 1)
#else
#define CLUSTER_DIMS
#endif

constexpr int kWarps = BLOCK / 32;             // warps per token in one block
constexpr int kRowThreads = BLOCK * CLUSTER;  // threads per token, over the cluster
constexpr int kKept = KEEP_ROW > 0 ? KEEP_ROW : 1;

// Pack<V>: V bf16 in one load of 2 * V bytes, and elements<V>(pack) (kernelarc/device.cuh).
using kernelarc::device::Pack;
using kernelarc::device::elements;
using kernelarc::device::warp_sum;
using kernelarc::device::aligned_to;

template <int V>
__device__ __forceinline__ Pack<V> load_input(const __nv_bfloat16* at) { return __ldg(reinterpret_cast<const Pack<V>*>(at)); }

template <int V>
__device__ __forceinline__ Pack<V> load_written(const __nv_bfloat16* at) { return *reinterpret_cast<const Pack<V>*>(at); }

template <int V>
__device__ __forceinline__ void store(__nv_bfloat16* at, Pack<V> value) { *reinterpret_cast<Pack<V>*>(at) = value; }

// h = x + residual for the V elements of pack p of a token: stored to new_residual, returned, and its squares added to
// `squares`.
template <int V>
__device__ __forceinline__ Pack<V> add_pack(Pack<V> a, Pack<V> b, __nv_bfloat16* new_residual, long long p, float& squares) {
  Pack<V> h;
#pragma unroll
  for (int i = 0; i < V; ++i) {
    elements<V>(h)[i] = __float2bfloat16(__bfloat162float(elements<V>(a)[i]) + __bfloat162float(elements<V>(b)[i]));
    const float value = __bfloat162float(elements<V>(h)[i]);
    squares += value * value;
  }
  store<V>(new_residual + p * V, h);
  return h;
}

template <int V>
__device__ __forceinline__ void normalise_pack(Pack<V> h, Pack<V> w, __nv_bfloat16* out, long long p, float scale) {
  Pack<V> o;
#pragma unroll
  for (int i = 0; i < V; ++i)
    elements<V>(o)[i] = __float2bfloat16(__bfloat162float(elements<V>(h)[i]) * scale * __bfloat162float(elements<V>(w)[i]));
  store<V>(out + p * V, o);
}

// First pass over a token of `packs` packs of V: h to new_residual (and to `kept` when `keep`); returns the sum of squares.
template <int V>
__device__ __forceinline__ float add_row(const __nv_bfloat16* x, const __nv_bfloat16* residual, __nv_bfloat16* new_residual,
                                         long long packs, int lane, bool keep, Pack<VEC> (&kept)[kKept]) {
  float squares = 0;
  if constexpr (V == VEC && KEEP_ROW > 0) {
    if (keep) {
#pragma unroll
      for (int j = 0; j < KEEP_ROW; ++j) {
        const long long p = lane + static_cast<long long>(j) * kRowThreads;
        if (p < packs) kept[j] = add_pack<V>(load_input<V>(x + p * V), load_input<V>(residual + p * V), new_residual, p, squares);
      }
      return squares;
    }
  }
  for (long long first = lane; first < packs; first += static_cast<long long>(kRowThreads) * UNROLL) {
    Pack<V> a[UNROLL], b[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      const long long p = first + static_cast<long long>(u) * kRowThreads;
      if (p < packs) a[u] = load_input<V>(x + p * V), b[u] = load_input<V>(residual + p * V);
    }
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      const long long p = first + static_cast<long long>(u) * kRowThreads;
      if (p < packs) add_pack<V>(a[u], b[u], new_residual, p, squares);
    }
  }
  return squares;
}

// Second pass: out from h, kept in registers or read back from new_residual (this thread's own writes).
template <int V>
__device__ __forceinline__ void normalise_row(const __nv_bfloat16* new_residual, const __nv_bfloat16* weight, __nv_bfloat16* out,
                                              long long packs, int lane, float scale, bool keep, Pack<VEC> (&kept)[kKept]) {
  if constexpr (V == VEC && KEEP_ROW > 0) {
    if (keep) {
#pragma unroll
      for (int j = 0; j < KEEP_ROW; ++j) {
        const long long p = lane + static_cast<long long>(j) * kRowThreads;
        if (p < packs) normalise_pack<V>(kept[j], load_input<V>(weight + p * V), out, p, scale);
      }
      return;
    }
  }
  for (long long first = lane; first < packs; first += static_cast<long long>(kRowThreads) * UNROLL) {
    Pack<V> h[UNROLL], w[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      const long long p = first + static_cast<long long>(u) * kRowThreads;
      if (p < packs) h[u] = load_written<V>(new_residual + p * V), w[u] = load_input<V>(weight + p * V);
    }
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      const long long p = first + static_cast<long long>(u) * kRowThreads;
      if (p < packs) normalise_pack<V>(h[u], w[u], out, p, scale);
    }
  }
}

#if CLUSTER > 1
__device__ __forceinline__ void cluster_sync() {
  __cluster_barrier_arrive();
  __cluster_barrier_wait();
}
#endif

// The sum of v over the BLOCK * CLUSTER threads of this thread's token. Every thread of the block calls it once, at the
// same point (the control flow around it is uniform).
__device__ __forceinline__ float row_sum(float v) {
  const int group = threadIdx.x / BLOCK, t = threadIdx.x % BLOCK;
#if SHUFFLE_REDUCE
  __shared__ float partials[ROWS_PER_BLOCK][kWarps];
  v = warp_sum<32>(v);
  if constexpr (kWarps > 1 || CLUSTER > 1) {
    const int lane = t % 32;
    if (lane == 0) partials[group][t / 32] = v;
#if CLUSTER > 1
    cluster_sync();
#else
    __syncthreads();
#endif
    v = 0;
    for (int i = lane; i < kWarps * CLUSTER; i += 32) {
      const float* from = &partials[group][i % kWarps];
#if CLUSTER > 1
      from = static_cast<const float*>(__cluster_map_shared_rank(from, i / kWarps));
#endif
      v += *from;
    }
    v = warp_sum<32>(v);
  }
  return v;
#else
  __shared__ float partials[ROWS_PER_BLOCK][BLOCK];
  partials[group][t] = v;
  __syncthreads();
#pragma unroll
  for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
    if (t < stride) partials[group][t] += partials[group][t + stride];
    __syncthreads();
  }
#if CLUSTER > 1
  cluster_sync();
  v = 0;
#pragma unroll
  for (int rank = 0; rank < CLUSTER; ++rank) v += *static_cast<const float*>(__cluster_map_shared_rank(&partials[group][0], rank));
  return v;
#else
  return partials[group][0];
#endif
#endif
}


extern "C" __global__ void __launch_bounds__(BLOCK * ROWS_PER_BLOCK) CLUSTER_DIMS
add_rmsnorm_rows(const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* __restrict__ residual, const __nv_bfloat16* __restrict__ weight,
                 const float* __restrict__ eps, __nv_bfloat16* __restrict__ out, __nv_bfloat16* __restrict__ new_residual, long long tokens,
                 long long hidden) {
  const int group = threadIdx.x / BLOCK;
#if CLUSTER > 1
  const int rank = static_cast<int>(__clusterRelativeBlockRank());
#else
  const int rank = 0;
#endif
  const long long token = static_cast<long long>(blockIdx.x / CLUSTER) * ROWS_PER_BLOCK + group;
  // A group past the last token has no elements but still takes part in the reduction.
  const long long n = token < tokens ? hidden : 0;
  const long long base = (token < tokens ? token : 0) * hidden;
  const int lane = rank * BLOCK + static_cast<int>(threadIdx.x % BLOCK);  // this thread's place among the token's threads
  // The same for every token: with hidden_size a multiple of VEC and aligned pointers, every pack is aligned.
  const bool vectorised = VEC == 1 || (hidden % VEC == 0 && aligned_to<2 * VEC>(x, residual, weight, out, new_residual));
  const bool keep = KEEP_ROW > 0 && vectorised && n / VEC <= static_cast<long long>(KEEP_ROW) * kRowThreads;
  Pack<VEC> kept[kKept];

  const float squares = vectorised ? add_row<VEC>(x + base, residual + base, new_residual + base, n / VEC, lane, keep, kept)
                                   : add_row<1>(x + base, residual + base, new_residual + base, n, lane, false, kept);
  const float scale = rsqrtf(row_sum(squares) / static_cast<float>(hidden) + *eps);
#if CLUSTER > 1
  // The other blocks of the cluster may still read this block's partial sums: it stays until they are done.
  __cluster_barrier_arrive();
#endif
  if (vectorised)
    normalise_row<VEC>(new_residual + base, weight, out + base, n / VEC, lane, scale, keep, kept);
  else
    normalise_row<1>(new_residual + base, weight, out + base, n, lane, scale, false, kept);
#if CLUSTER > 1
  __cluster_barrier_wait();
#endif
}
