// Kernel-only fused residual add + RMSNorm template for CUDA (sm_90). Each token goes to the blockDim.x threads of one
// row group (threadIdx.y) of a block, or of each block of a thread-block cluster; a grid that does not cover the tokens
// strides over them. Knobs:
//   BLOCK            threads per token in one block: 0 fits them to hidden_size at launch (below; needs SHUFFLE_REDUCE 1 and
//                    KEEP_ROW 1 or more); else a power of two from 32 (a warp per token: no barrier) to 1024 (tiling)
//   ROWS_PER_BLOCK   tokens per block, one group of threads each (at most 512 threads in all when BLOCK is 0) (tiling)
//   CLUSTER          blocks of a cluster sharing each token, partial sums exchanged through distributed shared memory
//                    (tiling)
//   VEC              bf16 per load and store, 1, 2, 4 or 8 (16 bytes); one at a time unless hidden_size is a multiple of
//                    VEC and every pointer is aligned for it (memory)
//   KEEP_ROW         vectors per thread of h kept in registers between the reduction and the normalisation, all loaded
//                    before the first is used; the part of a token past them streams and is re-read from new_residual
//                    (this thread's own writes, from L2) (fusion)
//   PREFETCH_WEIGHT  1: the weight of the kept vectors is loaded into registers before the first token, once per block, so
//                    it is never a dependent memory trip after the reduction; 0: loaded after each reduction (memory)
//   WAVES            0: a block (cluster) per Y tokens (below); N: a persistent grid of N blocks per SM (num_sms SMs)
//                    striding over the tokens, the prefetched weight reused for every token (tiling)
//   MIN_BLOCKS       0: the compiler's register budget; N: __launch_bounds__ asks for N resident blocks per SM, trading
//                    registers (and some spills) for warps in flight (pipelining)
//   MAX_REGS         0: as MIN_BLOCKS has it; N: at most N registers per thread (__maxnreg__; MIN_BLOCKS 0), e.g. 80
//                    for three resident blocks of 256 threads instead of two, maybe at the cost of spills (pipelining)
//   SHUFFLE_REDUCE   1: warp shuffles, one barrier, then the warps' partials summed by shuffles; 0: a shared-memory tree
//                    with a barrier per level (algorithmic)
//   UNROLL           vectors of each input a thread loads before it uses the first, where a token streams past KEEP_ROW
//                    (pipelining)
//   STREAMING        1: evict-first loads of x and residual and stores of what is not read again (memory)
// h = bf16(x + residual) is rounded exactly as the reference rounds new_residual, and the norm is taken of that rounded
// value: out = bf16(h * rsqrt(mean(h^2) + eps) * weight), float32 math throughout.
// Launch: block [X, Y]: X threads per token, Y tokens. BLOCK > 0: X = BLOCK, Y = ROWS_PER_BLOCK. BLOCK 0 fits X to the
//         token, the fewest whole warps whose KEEP_ROW packs each hold it, X = min(512, 32 * ceil_div(ceil_div(hidden_size,
//         VEC), 32 * KEEP_ROW * CLUSTER)), and Y = min(ROWS_PER_BLOCK, 512 // X): short tokens get a warp and no barrier,
//         long ones enough threads to stay in registers (past 512 * KEEP_ROW * CLUSTER packs the rest streams), whatever
//         the workload. Grid [CLUSTER * min(G, (num_sms * WAVES) // CLUSTER, or G when WAVES == 0)], G = ceil_div(num_tokens, Y);
//         no dynamic shared memory.
// Arguments: x, residual, weight, eps (a device pointer), out, new_residual, then the var axes num_tokens and hidden_size.
// Rows are indexed in 32 bits (hidden_size < 2^31), tokens in 64.
#include <cuda_bf16.h>
#include <kernelarc/device.cuh>

// Knobs: defined by the judge from definition.json, the one place their values are written.

static_assert(BLOCK == 0 || (BLOCK >= 32 && BLOCK <= 1024 && (BLOCK & (BLOCK - 1)) == 0), "BLOCK: 0, or a power of two, 32 to 1024");
static_assert(ROWS_PER_BLOCK >= 1 && BLOCK * ROWS_PER_BLOCK <= 1024, "BLOCK * ROWS_PER_BLOCK: at most 1024 threads");
static_assert(CLUSTER == 1 || CLUSTER == 2 || CLUSTER == 4 || CLUSTER == 8, "CLUSTER: 1, 2, 4 or 8 blocks (portable sizes)");
static_assert(VEC == 1 || VEC == 2 || VEC == 4 || VEC == 8, "VEC: 1, 2, 4 or 8 bf16");
static_assert(KEEP_ROW >= 0 && KEEP_ROW * VEC <= 128, "KEEP_ROW: 0 or more vectors, at most 128 bf16 per thread");
static_assert(PREFETCH_WEIGHT == 0 || PREFETCH_WEIGHT == 1, "PREFETCH_WEIGHT: 0 or 1");
static_assert(WAVES >= 0 && WAVES <= 32, "WAVES: 0 (a grid over the tokens) or blocks per SM");
static_assert(SHUFFLE_REDUCE == 0 || SHUFFLE_REDUCE == 1, "SHUFFLE_REDUCE: 0 or 1");
static_assert(BLOCK > 0 || SHUFFLE_REDUCE == 1, "BLOCK 0 needs SHUFFLE_REDUCE 1 (the shared-memory tree needs a power of two)");
static_assert(BLOCK > 0 || KEEP_ROW >= 1, "BLOCK 0 needs KEEP_ROW 1 or more (it fits the threads to the kept packs)");
static_assert(UNROLL >= 1 && UNROLL <= 16, "UNROLL: 1 to 16 vectors");
static_assert(STREAMING == 0 || STREAMING == 1, "STREAMING: 0 or 1");

#if CLUSTER > 1
#define CLUSTER_DIMS __cluster_dims__(CLUSTER, 1, 1)
#else
#define CLUSTER_DIMS
#endif

// The most threads of a block: BLOCK 0 launches at most 512 (a multiple of 32 per token, as many tokens as fit).
#define MAX_THREADS (BLOCK > 0 ? BLOCK * ROWS_PER_BLOCK : 512)
static_assert(MIN_BLOCKS >= 0 && MAX_THREADS * MIN_BLOCKS <= 2048, "MIN_BLOCKS: at most 2048 threads per SM");
static_assert(MAX_REGS == 0 || (MIN_BLOCKS == 0 && MAX_REGS >= 24 && MAX_REGS <= 255 && MAX_REGS * MAX_THREADS <= 65536),
              "MAX_REGS: 0, or 24 to 255 registers that a whole block can have, with MIN_BLOCKS 0");
#if MAX_REGS > 0
#define LAUNCH_BOUNDS __maxnreg__(MAX_REGS)  // cannot be combined with __launch_bounds__
#elif MIN_BLOCKS > 0
#define LAUNCH_BOUNDS __launch_bounds__(MAX_THREADS, MIN_BLOCKS)
#else
#define LAUNCH_BOUNDS __launch_bounds__(MAX_THREADS)
#endif

constexpr int kKept = KEEP_ROW > 0 ? KEEP_ROW : 1;

// Threads of a token in this block (blockDim.x): a compile-time constant unless BLOCK is 0.
__device__ __forceinline__ int block_row_threads() { return BLOCK > 0 ? BLOCK : static_cast<int>(blockDim.x); }
// Threads of a token over the cluster: the stride between a thread's packs.
__device__ __forceinline__ int row_threads() { return block_row_threads() * CLUSTER; }

// Pack<V>: V bf16 in one load or store of 2 * V bytes; elements<V>(pack) and warp_sum<kWidth> (kernelarc/device.cuh).
using kernelarc::device::Pack;
using kernelarc::device::elements;
using kernelarc::device::warp_sum;
using kernelarc::device::aligned_to;

// x and residual: read once.
template <int V>
__device__ __forceinline__ Pack<V> load_once(const __nv_bfloat16* at) {
#if STREAMING
  return __ldcs(reinterpret_cast<const Pack<V>*>(at));
#else
  return __ldg(reinterpret_cast<const Pack<V>*>(at));
#endif
}

// The weight: read for every token, kept in cache.
template <int V>
__device__ __forceinline__ Pack<V> load_weight(const __nv_bfloat16* at) { return __ldg(reinterpret_cast<const Pack<V>*>(at)); }

// new_residual as this thread wrote it (a coherent load: the read-only path need not see this kernel's writes).
template <int V>
__device__ __forceinline__ Pack<V> load_written(const __nv_bfloat16* at) { return *reinterpret_cast<const Pack<V>*>(at); }

// A store no thread reads again (out; new_residual where h stays in registers).
template <int V>
__device__ __forceinline__ void store_final(__nv_bfloat16* at, Pack<V> value) {
#if STREAMING
  __stcs(reinterpret_cast<Pack<V>*>(at), value);
#else
  *reinterpret_cast<Pack<V>*>(at) = value;
#endif
}

// A store this thread reads back in the second pass.
template <int V>
__device__ __forceinline__ void store_reread(__nv_bfloat16* at, Pack<V> value) { *reinterpret_cast<Pack<V>*>(at) = value; }

// An empty asm that the compiler must assume rewrites the pack once `after` (the token's scale) is known. Applied to the
// packs held across the reduction (h and the prefetched weight): without it the compiler keeps their float conversions
// alive in their place (93 registers instead of 78 in the default configuration; 98 instead of 75 with BLOCK 256: two
// blocks per SM, not three).
template <int V> __device__ __forceinline__ void pin(Pack<V>& pack, float after);
template <> __device__ __forceinline__ void pin<1>(Pack<1>& pack, float after) { asm volatile("" : "+h"(pack) : "f"(after)); }
template <> __device__ __forceinline__ void pin<2>(Pack<2>& pack, float after) { asm volatile("" : "+r"(pack) : "f"(after)); }
template <> __device__ __forceinline__ void pin<4>(Pack<4>& pack, float after) {
  asm volatile("" : "+r"(pack.x), "+r"(pack.y) : "f"(after));
}
template <> __device__ __forceinline__ void pin<8>(Pack<8>& pack, float after) {
  asm volatile("" : "+r"(pack.x), "+r"(pack.y), "+r"(pack.z), "+r"(pack.w) : "f"(after));
}

// h = bf16(x + residual) for the V elements of a pack: stored to new_residual at `at`, returned, its squares (of the
// rounded values) added to `squares`.
template <int V, bool kFinal>
__device__ __forceinline__ Pack<V> add_pack(Pack<V> a, Pack<V> b, __nv_bfloat16* at, float& squares) {
  Pack<V> h;
#pragma unroll
  for (int i = 0; i < V; ++i) {
    elements<V>(h)[i] = __float2bfloat16(__bfloat162float(elements<V>(a)[i]) + __bfloat162float(elements<V>(b)[i]));
    const float value = __bfloat162float(elements<V>(h)[i]);
    squares += value * value;
  }
  if constexpr (kFinal) store_final<V>(at, h);
  else store_reread<V>(at, h);
  return h;
}

// out = bf16(h * scale * weight), the reference's order of operations.
template <int V>
__device__ __forceinline__ void normalise_pack(Pack<V> h, Pack<V> w, __nv_bfloat16* at, float scale) {
  Pack<V> o;
#pragma unroll
  for (int i = 0; i < V; ++i)
    elements<V>(o)[i] = __float2bfloat16(__bfloat162float(elements<V>(h)[i]) * scale * __bfloat162float(elements<V>(w)[i]));
  store_final<V>(at, o);
}

// First pass over packs begin, begin + row_threads(), ... below `packs` of a token, UNROLL loads of each input in flight:
// h to new_residual, read back in the second pass. Returns the sum of squares.
template <int V>
__device__ __forceinline__ float add_streamed(const __nv_bfloat16* x, const __nv_bfloat16* residual, __nv_bfloat16* new_residual,
                                              int begin, int packs) {
  float squares = 0;
  for (int first = begin; first < packs; first += row_threads() * UNROLL) {
    Pack<V> a[UNROLL] = {}, b[UNROLL] = {};
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      const int p = first + u * row_threads();
      if (p < packs) a[u] = load_once<V>(x + p * V), b[u] = load_once<V>(residual + p * V);
    }
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      const int p = first + u * row_threads();
      if (p < packs) add_pack<V, false>(a[u], b[u], new_residual + p * V, squares);
    }
  }
  return squares;
}

// Second pass over the same packs: h read back from new_residual, the weight loaded beside it.
template <int V>
__device__ __forceinline__ void normalise_streamed(const __nv_bfloat16* new_residual, const __nv_bfloat16* weight, __nv_bfloat16* out,
                                                   int begin, int packs, float scale) {
  for (int first = begin; first < packs; first += row_threads() * UNROLL) {
    Pack<V> h[UNROLL] = {}, w[UNROLL] = {};
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      const int p = first + u * row_threads();
      if (p < packs) h[u] = load_written<V>(new_residual + p * V), w[u] = load_weight<V>(weight + p * V);
    }
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      const int p = first + u * row_threads();
      if (p < packs) normalise_pack<V>(h[u], w[u], out + p * V, scale);
    }
  }
}

// The kept part of a token: this thread's packs lane + j * row_threads() for j < KEEP_ROW, addressed from the thread's own
// pointers (pack j at element offset j * kept_stride(), an immediate unless BLOCK is 0) and present while j * row_threads() <
// limit = packs - lane.
// Every array of packs is zero-initialised: one assigned only under a condition inside the token loop stays live across
// iterations (the compiler may keep the previous token's registers for the undefined value), 110 registers instead of 74.
__device__ __forceinline__ int kept_stride() { return row_threads() * VEC; }

__device__ __forceinline__ void load_kept_weight(const __nv_bfloat16* wt, int limit, Pack<VEC> (&w)[kKept]) {
#pragma unroll
  for (int j = 0; j < KEEP_ROW; ++j)
    if (j * row_threads() < limit) w[j] = load_weight<VEC>(wt + j * kept_stride());
}

// First pass over the kept part, every load issued before the first is used. Returns this thread's sum of squares.
__device__ __forceinline__ float add_kept(const __nv_bfloat16* xt, const __nv_bfloat16* rt, __nv_bfloat16* nt, int limit,
                                          Pack<VEC> (&kept)[kKept]) {
  Pack<VEC> a[kKept] = {}, b[kKept] = {};
#pragma unroll
  for (int j = 0; j < KEEP_ROW; ++j)
    if (j * row_threads() < limit) a[j] = load_once<VEC>(xt + j * kept_stride()), b[j] = load_once<VEC>(rt + j * kept_stride());
  float squares = 0;
#pragma unroll
  for (int j = 0; j < KEEP_ROW; ++j)
    if (j * row_threads() < limit) kept[j] = add_pack<VEC, true>(a[j], b[j], nt + j * kept_stride(), squares);
  return squares;
}

// Second pass over the kept part, from registers: h and the weight (prefetched, or loaded now).
__device__ __forceinline__ void normalise_kept(const __nv_bfloat16* wt, __nv_bfloat16* ot, int limit, float scale,
                                               const Pack<VEC> (&kept)[kKept], const Pack<VEC> (&prefetched)[kKept]) {
  Pack<VEC> w[kKept] = {};
#if PREFETCH_WEIGHT
#pragma unroll
  for (int j = 0; j < KEEP_ROW; ++j) w[j] = prefetched[j];
#else
  (void)prefetched;
  load_kept_weight(wt, limit, w);
#endif
#pragma unroll
  for (int j = 0; j < KEEP_ROW; ++j) {
    if (j * row_threads() < limit) {
      Pack<VEC> h = kept[j];
      pin<VEC>(h, scale);
#if PREFETCH_WEIGHT
      pin<VEC>(w[j], scale);
#endif
      normalise_pack<VEC>(h, w[j], ot + j * kept_stride(), scale);
    }
  }
}

#if CLUSTER > 1
__device__ __forceinline__ void cluster_sync() {
  __cluster_barrier_arrive();
  __cluster_barrier_wait();
}
#endif

// The sum of v over the row_threads() threads of this thread's token, in every one of them. Every thread of the block
// (of the cluster) calls it once per token, at the same point: the control flow around it is uniform. `parity` alternates
// between consecutive tokens of a persistent block, so a fast thread writing the next token's partials never overwrites
// ones a slow thread (or block of the cluster) is still reading: a buffer is reused only after the barrier of the token
// between, which every reader passes after its reads.
__device__ __forceinline__ float row_sum(float v, int parity) {
  const int group = static_cast<int>(threadIdx.y), t = static_cast<int>(threadIdx.x);
#if SHUFFLE_REDUCE
  // Lanes that merge the warps' partials: as many as a fixed BLOCK makes when fewer than 32 (a power of two), else 32.
  constexpr int kSpan = BLOCK > 0 && BLOCK / 32 * CLUSTER < 32 ? BLOCK / 32 * CLUSTER : 32;
  const int warps = block_row_threads() / 32;  // warps per token in one block
  const int parts = warps * CLUSTER;           // warp partial sums per token, over the cluster
  __shared__ float partials[2][MAX_THREADS / 32];
  v = warp_sum<32>(v);
  if (parts > 1) {  // the same in every block of the launch: the barrier below is reached by all threads or none
    const int lane = t % 32;
    float* mine = partials[parity] + group * warps;
    if (lane == 0) mine[t / 32] = v;
#if CLUSTER > 1
    cluster_sync();
#else
    __syncthreads();
#endif
    // Lane i sums partials i, i + kSpan, ... (0 past the last); each group of kSpan lanes then holds them all.
    v = 0;
    for (int i = lane % kSpan; i < parts; i += kSpan) {
      const float* from = &mine[i % warps];
#if CLUSTER > 1
      from = static_cast<const float*>(__cluster_map_shared_rank(from, i / warps));
#endif
      v += *from;
    }
    v = warp_sum<kSpan>(v);
  }
  return v;
#else
  __shared__ float partials[2][ROWS_PER_BLOCK][BLOCK];
  float* mine = partials[parity][group];
  mine[t] = v;
  __syncthreads();
#pragma unroll
  for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
    if (t < stride) mine[t] += mine[t + stride];
    __syncthreads();
  }
#if CLUSTER > 1
  cluster_sync();
  v = 0;
#pragma unroll
  for (int rank = 0; rank < CLUSTER; ++rank) v += *static_cast<const float*>(__cluster_map_shared_rank(&mine[0], rank));
  return v;
#else
  return mine[0];
#endif
#endif
}


extern "C" __global__ void LAUNCH_BOUNDS CLUSTER_DIMS
fused_add_rmsnorm_rows(const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* __restrict__ residual,
                       const __nv_bfloat16* __restrict__ weight, const float* __restrict__ eps, __nv_bfloat16* __restrict__ out,
                       __nv_bfloat16* __restrict__ new_residual, long long tokens, long long hidden) {
  const float epsilon = __ldg(eps);  // issued first: it is needed only after the reduction
  const int group = static_cast<int>(threadIdx.y);
#if CLUSTER > 1
  const int rank = static_cast<int>(__clusterRelativeBlockRank());
#else
  const int rank = 0;
#endif
  const int lane = rank * block_row_threads() + static_cast<int>(threadIdx.x);  // this thread's place among the token's threads
  // The same for every token: with hidden_size a multiple of VEC and aligned pointers, every pack is aligned.
  const bool vectorised = VEC == 1 || (hidden % VEC == 0 && aligned_to<2 * VEC>(x, residual, weight, out, new_residual));
  const int packs = static_cast<int>(vectorised ? hidden / VEC : hidden);  // a row is indexed in 32 bits
  const int rest = lane + KEEP_ROW * row_threads();  // this thread's first pack past the kept ones
  Pack<VEC> w[kKept] = {};
#if PREFETCH_WEIGHT
  if (vectorised) load_kept_weight(weight + lane * VEC, packs - lane, w);
#endif
  // Blocks of one cluster share a token group, and so run the same number of iterations, as the cluster barrier needs.
  const long long step = static_cast<long long>(gridDim.x / CLUSTER) * blockDim.y;
  int parity = 0;
  for (long long first = static_cast<long long>(blockIdx.x / CLUSTER) * blockDim.y; first < tokens; first += step, parity ^= 1) {
    // A group past the last token has no elements but still takes part in the reduction.
    const long long token = first + group;
    const int n = token < tokens ? packs : 0;
    const long long base = token < tokens ? token * hidden : 0;
    const __nv_bfloat16 *xr = x + base, *rr = residual + base;
    __nv_bfloat16 *nr = new_residual + base, *orow = out + base;
    Pack<VEC> kept[kKept] = {};
    float squares;
    if (vectorised) {
      squares = KEEP_ROW > 0 ? add_kept(xr + lane * VEC, rr + lane * VEC, nr + lane * VEC, n - lane, kept) : 0.0f;
      squares += add_streamed<VEC>(xr, rr, nr, rest, n);
    } else {
      squares = add_streamed<1>(xr, rr, nr, lane, n);
    }
    const float scale = rsqrtf(row_sum(squares, parity) / static_cast<float>(hidden) + epsilon);
    if (vectorised) {
      if (KEEP_ROW > 0) normalise_kept(weight + lane * VEC, orow + lane * VEC, n - lane, scale, kept, w);
      normalise_streamed<VEC>(nr, weight, orow, rest, n, scale);
    } else {
      normalise_streamed<1>(nr, weight, orow, lane, n, scale);
    }
  }
#if CLUSTER > 1
  // The other blocks of the cluster may still read this block's partial sums: its shared memory stays until they are done.
  cluster_sync();
#endif
}
