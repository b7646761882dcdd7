// Kernel-only softmax template for bf16 rows on CUDA (sm_90): y = softmax(x.float(), dim=-1).to(bf16), float32 math.
// Each row goes to the blockDim.x threads of one row group (threadIdx.y) of a block, or of each block of a thread-block
// cluster. A row of at most KEEP_ROW vectors per thread is read once and held in registers (its max, its sum and its output
// all come from there: 2 bytes read and 2 written per element); a longer row streams from memory, twice (ONLINE) or
// three times, the later reads mostly from L2. Knobs:
//   BLOCK           threads per row in one block, a power of two from 32 (a warp per row: shuffles only) to 1024, or 0:
//                   fit to the row at launch (below), the count read at run time (tiling)
//   ROWS_PER_BLOCK  rows per block, one group of threads each (BLOCK 0: as many as fit in 1024 threads, at most this)
//                   (tiling)
//   CLUSTER         blocks of a thread-block cluster sharing each row, partials exchanged through distributed shared
//                   memory: a long row at a small batch spread over several SMs (tiling)
//   VEC             bf16 per load and store, 1, 2, 4 or 8 (16 bytes); a row's unaligned head and its tail go one element
//                   per thread, so rows of any length stay vectorised (memory)
//   KEEP_ROW        vectors per thread held in registers, 0 for none; a row longer than KEEP_ROW * VEC * BLOCK * CLUSTER
//                   elements streams instead (fusion)
//   DECODE_KEEP     0: off; N < KEEP_ROW: a row that fits N vectors per thread runs code compiled for N (a shorter chain
//                   per thread), and with BLOCK 0 at up to 132 rows (fewer rows than SMs: a row's latency is the
//                   kernel's time) the launch fits the threads to N vectors each (tiling)
//   DECODE_THREADS  BLOCK 0 at up to 132 rows: at least this many threads per row (tiling)
//   ONLINE          1: one reduction per row of (max, sum of exp(x - max)) pairs, a sum rescaled when its max grows (a
//                   held row: each thread's own max first, then its sum; a streamed row: one read for both, one to
//                   write); 0: a max reduction, then a sum reduction (a streamed row: three reads) (algorithmic)
//   EXP_ONCE        held rows: 1 keeps exp(x - max) in float registers from the sum to the write and scales it there,
//                   one exponential per element for twice the registers; 0 computes it again for the write (fusion)
//   SHUFFLE_REDUCE  warp shuffles, then one partial per warp through shared memory, instead of a shared-memory tree
//                   with a barrier per level (algorithmic)
//   EXP_MODE        0: ex2.approx of fma(x, log2(e), -max * log2(e)), one FFMA and one MUFU per element; 1: __expf(x -
//                   max); 2: expf(x - max), the accurate one (precision)
//   UNROLL          loads a thread issues before it uses the first, where a row streams (pipelining)
//   WAVES           0: one block per ROWS_PER_BLOCK rows; N: a persistent grid of N blocks per SM (num_sms SMs) striding
//                   over the rows (tiling)
//   PREFETCH        held rows in a persistent grid: the block's next row is loaded before this row's reductions and
//                   stores, so its DRAM trip overlaps them (pipelining)
//   OCCUPANCY       0: registers at the compiler's choice; N: __launch_bounds__ asks for N resident threads per SM (as
//                   whole blocks, at least one), capping the registers per thread at about 65536 / N: more rows in
//                   flight per SM, or spills (pipelining)
//   STREAMING       evict-first hints on the last read of x and on the stores of y (memory)
// Starting point (the first values): BLOCK 0, KEEP_ROW 4, DECODE_KEEP 4, DECODE_THREADS 256, VEC 8, OCCUPANCY 1024.
// Past 132 rows the fewest whole warps of 4 vectors per lane hold a row (2048: 64 threads, 3001: 96, 8192: 256), a longer
// one streams with 256; at up to 132 rows at least 256 threads of at most 4 vectors (1x4096: 256 threads of 2 vectors;
// 1x32000: 1024 of 4). 64 registers per thread (OCCUPANCY 1024 over blocks of up to 1024 threads). On the H200 that beat
// BLOCK 128 by 1.1-2x at up to 132 rows and 1.5x at 32768x2048; 4 vectors per lane against 8 took 8192x16384 from 149 to
// 138 us and 4096x3001 from 19.1 to 16.4 (bench/results/h200-2026-12-04h-sweeps/, -04j-sweeps/).
// Launch: block [X, Y]: X threads per row, Y rows. BLOCK > 0: X = BLOCK, Y = ROWS_PER_BLOCK. BLOCK 0, past 132 rows:
//         X = the fewest whole warps whose KEEP_ROW vectors each hold the row (over the cluster), at most 256; at up to
//         132 rows: the fewest threads, a power of two from DECODE_THREADS to 1024, whose K vectors each hold the row
//         (over the cluster), K = min(DECODE_KEEP, KEEP_ROW), or KEEP_ROW when DECODE_KEEP is 0;
//         Y = min(ROWS_PER_BLOCK, 1024 // X).
//         Grid [CLUSTER * min(ceil_div(num_rows, Y), num_sms * WAVES // CLUSTER, or all of them if WAVES == 0)], no dynamic
//         shared memory.
// Arguments: x, y, then the var axes num_rows and row_length.
#include <cuda_bf16.h>
#include <kernelarc/device.cuh>

// Knobs: defined by the judge from definition.json, the one place their values are written.

static_assert(BLOCK == 0 || (BLOCK >= 32 && BLOCK <= 1024 && (BLOCK & (BLOCK - 1)) == 0), "BLOCK: 0, or a power of two, 32 to 1024");
static_assert(BLOCK > 0 || KEEP_ROW >= 1, "BLOCK 0 fits the threads to KEEP_ROW vectors each: KEEP_ROW >= 1");
static_assert(BLOCK > 0 || SHUFFLE_REDUCE == 1, "BLOCK 0 needs SHUFFLE_REDUCE 1 (the shared-memory tree is sized by BLOCK)");
static_assert(ROWS_PER_BLOCK >= 1 && BLOCK * ROWS_PER_BLOCK <= 1024, "BLOCK * ROWS_PER_BLOCK: at most 1024 threads");
static_assert(CLUSTER >= 1 && CLUSTER <= 8, "CLUSTER: 1 to 8 blocks (the portable cluster size)");
static_assert(VEC == 1 || VEC == 2 || VEC == 4 || VEC == 8, "VEC: 1, 2, 4 or 8 bf16");
static_assert(KEEP_ROW >= 0, "KEEP_ROW: 0 or more vectors");
static_assert(DECODE_KEEP >= 0, "DECODE_KEEP: 0 (off) or vectors per thread");
static_assert(ONLINE == 0 || ONLINE == 1, "ONLINE: 0 or 1");
static_assert(EXP_ONCE == 0 || EXP_ONCE == 1, "EXP_ONCE: 0 or 1");
static_assert(SHUFFLE_REDUCE == 0 || SHUFFLE_REDUCE == 1, "SHUFFLE_REDUCE: 0 or 1");
static_assert(EXP_MODE >= 0 && EXP_MODE <= 2, "EXP_MODE: 0 (ex2.approx), 1 (__expf) or 2 (expf)");
static_assert(UNROLL >= 1, "UNROLL: 1 or more loads");
static_assert(WAVES >= 0, "WAVES: 0 or more blocks per SM");
static_assert(PREFETCH == 0 || PREFETCH == 1, "PREFETCH: 0 or 1");
static_assert(OCCUPANCY >= 0 && OCCUPANCY <= 2048, "OCCUPANCY: 0 or up to 2048 threads per SM");
static_assert(STREAMING == 0 || STREAMING == 1, "STREAMING: 0 or 1");

#if CLUSTER > 1
#define CLUSTER_DIMS __cluster_dims__(CLUSTER, 1, 1)
#else
#define CLUSTER_DIMS
#endif
// Threads per block at most: BLOCK 0 launches blocks of up to 1024.
#define LAUNCH_THREADS (BLOCK > 0 ? BLOCK * ROWS_PER_BLOCK : 1024)
#if OCCUPANCY > 0
// At least one block, at most the 32 an SM can hold.
#define MIN_BLOCKS_PER_SM (OCCUPANCY / LAUNCH_THREADS < 1 ? 1 : OCCUPANCY / LAUNCH_THREADS > 32 ? 32 : OCCUPANCY / LAUNCH_THREADS)
#define LAUNCH_BOUNDS __launch_bounds__(LAUNCH_THREADS, MIN_BLOCKS_PER_SM)
#else
#define LAUNCH_BOUNDS __launch_bounds__(LAUNCH_THREADS)
#endif

// Threads of a row: BLOCK, a compile-time constant, or with BLOCK 0 blockDim.x read at run time. Compiling BLOCK 0 for
// the counts its launch makes was slower on the H200 (three or more compiled counts spilled at 64 registers, 25% slower
// at 4096x4096; 128 compiled beside the run-time count, no spill, cost 3% over all workloads and 5% at 1x4096 in twice
// the code, bench/results/h200-2026-12-04j-sweeps/ call 8).
__device__ __forceinline__ int block_row_threads() { return BLOCK > 0 ? BLOCK : static_cast<int>(blockDim.x); }  // in one block
__device__ __forceinline__ int row_warps() { return block_row_threads() / 32; }  // in one block
__device__ __forceinline__ int row_threads() { return block_row_threads() * CLUSTER; }  // over the cluster
constexpr int kKeep = KEEP_ROW > 0 ? KEEP_ROW : 1;
constexpr int kShortKeep = DECODE_KEEP > 0 && DECODE_KEEP < kKeep ? DECODE_KEEP : kKeep;  // vectors held for short rows
constexpr float kLog2e = 1.4426950408889634f;

__device__ __forceinline__ float neg_inf() { return __int_as_float(0xff800000); }

// VEC bf16 as one load or store of 2 * VEC bytes moves them, kept as 32-bit words (element 2k in the low half of word k):
// 16-bit pieces would each take a 32-bit register of their own.
#if VEC == 1
struct Chunk {
  unsigned short bits;
};
#else
struct alignas(2 * VEC) Chunk {
  unsigned words[VEC / 2];
};
#endif
using Bits = kernelarc::device::Pack<VEC>;  // the integer or vector type of 2 * VEC bytes
static_assert(sizeof(Chunk) == sizeof(Bits), "a chunk is what one load moves");

// bf16 to float is exact: the bits move to the top half.
__device__ __forceinline__ float bf16_to_float(unsigned short bits) { return __uint_as_float(static_cast<unsigned>(bits) << 16); }

__device__ __forceinline__ float element(const Chunk& chunk, int i) {
#if VEC == 1
  (void)i;
  return bf16_to_float(chunk.bits);
#else
  const unsigned word = chunk.words[i / 2];
  return __uint_as_float(i % 2 ? word & 0xffff0000u : word << 16);
#endif
}

// The same value through an instruction the compiler cannot match with element()'s: a held row's write converts its
// bf16 again instead of keeping VEC floats per vector alive across the reductions (twice the registers of the bf16).
__device__ __forceinline__ float element_again(const Chunk& chunk, int i) {
  float value;
#if VEC == 1
  (void)i;
  asm("prmt.b32 %0, %1, 0, 0x1044;" : "=f"(value) : "r"(static_cast<unsigned>(chunk.bits)));
#else
  if (i % 2)
    asm("prmt.b32 %0, %1, 0, 0x3244;" : "=f"(value) : "r"(chunk.words[i / 2]));
  else
    asm("prmt.b32 %0, %1, 0, 0x1044;" : "=f"(value) : "r"(chunk.words[i / 2]));
#endif
  return value;
}

// A running max of bf16 values kept in bf16 pairs: a max rounds nothing, and one HMNMX2 covers two elements unconverted.
#if VEC == 1
using MaxPairs = float;
__device__ __forceinline__ MaxPairs max_pairs_identity() { return neg_inf(); }
__device__ __forceinline__ MaxPairs max_pairs(MaxPairs m, const Chunk& chunk) { return fmaxf(m, element(chunk, 0)); }
__device__ __forceinline__ float max_of(MaxPairs m) { return m; }
#else
using MaxPairs = __nv_bfloat162;
__device__ __forceinline__ MaxPairs as_pair(unsigned word) { return *reinterpret_cast<const __nv_bfloat162*>(&word); }
__device__ __forceinline__ MaxPairs max_pairs_identity() { return as_pair(0xff80ff80u); }  // -inf, -inf
__device__ __forceinline__ MaxPairs max_pairs(MaxPairs m, const Chunk& chunk) {
#pragma unroll
  for (int k = 0; k < VEC / 2; ++k) m = __hmax2(m, as_pair(chunk.words[k]));
  return m;
}
__device__ __forceinline__ float max_of(MaxPairs m) { return fmaxf(__low2float(m), __high2float(m)); }
#endif

// Rounds VEC floats to bf16 (to nearest even, as .to(torch.bfloat16)), two at a time where it can (cvt.rn.bf16x2.f32).
__device__ __forceinline__ Chunk to_chunk(const float (&values)[VEC]) {
  Chunk chunk;
#if VEC == 1
  chunk.bits = __bfloat16_as_ushort(__float2bfloat16_rn(values[0]));
#else
#pragma unroll
  for (int k = 0; k < VEC / 2; ++k) {
    const __nv_bfloat162 pair = __floats2bfloat162_rn(values[2 * k], values[2 * k + 1]);
    chunk.words[k] = *reinterpret_cast<const unsigned*>(&pair);
  }
#endif
  return chunk;
}

__device__ __forceinline__ Chunk load_chunk(const __nv_bfloat16* at, bool last_use) {
  Bits bits;
#if STREAMING
  if (last_use)
    bits = __ldcs(reinterpret_cast<const Bits*>(at));
  else
#endif
    bits = __ldg(reinterpret_cast<const Bits*>(at));
  (void)last_use;
  return *reinterpret_cast<const Chunk*>(&bits);
}

__device__ __forceinline__ float load_element(const __nv_bfloat16* at) {
#if STREAMING
  return bf16_to_float(__ldcs(reinterpret_cast<const unsigned short*>(at)));
#else
  return bf16_to_float(__ldg(reinterpret_cast<const unsigned short*>(at)));
#endif
}

__device__ __forceinline__ void store_bits(unsigned short* at, unsigned short bits) {
#if STREAMING
  __stcs(at, bits);
#else
  *at = bits;
#endif
}

__device__ __forceinline__ void store_element(__nv_bfloat16* at, float value) {
  store_bits(reinterpret_cast<unsigned short*>(at), __bfloat16_as_ushort(__float2bfloat16_rn(value)));
}

// One vector store where `at` is aligned for it (y at the same offset from a 16-byte boundary as x), else VEC stores.
__device__ __forceinline__ void store_chunk(__nv_bfloat16* at, const Chunk& chunk, bool aligned) {
  if (aligned) {
#if STREAMING
    __stcs(reinterpret_cast<Bits*>(at), *reinterpret_cast<const Bits*>(&chunk));
#else
    *reinterpret_cast<Bits*>(at) = *reinterpret_cast<const Bits*>(&chunk);
#endif
  } else {
#if VEC == 1
    store_bits(reinterpret_cast<unsigned short*>(at), chunk.bits);
#else
#pragma unroll
    for (int k = 0; k < VEC / 2; ++k) {
      store_bits(reinterpret_cast<unsigned short*>(at) + 2 * k, static_cast<unsigned short>(chunk.words[k] & 0xffffu));
      store_bits(reinterpret_cast<unsigned short*>(at) + 2 * k + 1, static_cast<unsigned short>(chunk.words[k] >> 16));
    }
#endif
  }
}

__device__ __forceinline__ float ex2(float v) {
  float result;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(result) : "f"(v));
  return result;
}

// exp(d) for the difference d of two logits.
__device__ __forceinline__ float exp_of(float d) {
#if EXP_MODE == 0
  return ex2(d * kLog2e);
#elif EXP_MODE == 1
  return __expf(d);
#else
  return expf(d);
#endif
}

// A reference point for exp(v - ref) over many v, with -ref * log2(e) ready for EXP_MODE 0's single FFMA. A reference at
// -inf (nothing but -inf seen) becomes 0, so that exp(-inf - ref) is 0 and not NaN.
struct ExpBase {
  float ref, neg_ref_log2e;
};

__device__ __forceinline__ ExpBase exp_base(float ref) {
  ref = ref == neg_inf() ? 0.0f : ref;
  return {ref, -ref * kLog2e};
}

__device__ __forceinline__ float exp_from(float v, ExpBase base) {
#if EXP_MODE == 0
  return ex2(fmaf(v, kLog2e, base.neg_ref_log2e));
#elif EXP_MODE == 1
  return __expf(v - base.ref);
#else
  return expf(v - base.ref);
#endif
}

// A maximum and the sum of exp(x - max) over the elements seen.
struct Stats {
  float max, sum;
};

struct MaxOp {
  using T = float;
  static __device__ __forceinline__ T identity() { return neg_inf(); }
  static __device__ __forceinline__ T combine(T a, T b) { return fmaxf(a, b); }
};

struct SumOp {
  using T = float;
  static __device__ __forceinline__ T identity() { return 0.0f; }
  static __device__ __forceinline__ T combine(T a, T b) { return a + b; }
};

// Symmetric (combine(a, b) == combine(b, a) bit for bit), so every lane of a butterfly ends with the same value.
struct StatsOp {
  using T = Stats;
  static __device__ __forceinline__ T identity() { return {neg_inf(), 0.0f}; }
  static __device__ __forceinline__ T combine(T a, T b) {
    const bool a_high = a.max >= b.max;
    const float high = a_high ? a.max : b.max, low = a_high ? b.max : a.max;
    const float weight = low == neg_inf() ? 0.0f : exp_of(low - high);
    return {high, (a_high ? a.sum : b.sum) + (a_high ? b.sum : a.sum) * weight};
  }
};

using kernelarc::device::shuffle_xor;  // of a float; the Stats overload is this file's
__device__ __forceinline__ Stats shuffle_xor(Stats v, int mask) { return {shuffle_xor(v.max, mask), shuffle_xor(v.sum, mask)}; }

template <class Op>
__device__ __forceinline__ typename Op::T warp_reduce(typename Op::T v) {
#pragma unroll
  for (int mask = 16; mask > 0; mask /= 2) v = Op::combine(v, shuffle_xor(v, mask));
  return v;
}

// A barrier over every thread that shares a row: the block, or the cluster.
__device__ __forceinline__ void sync_row_threads() {
#if CLUSTER > 1
  __cluster_barrier_arrive();
  __cluster_barrier_wait();
#else
  __syncthreads();
#endif
}

// Reduces v over the row_threads() threads of this thread's row; every one of them gets the same result. Every thread
// of the block (and of the cluster) calls it at the same point: the control flow around it is uniform. Calls alternate
// between two buffers (`phase`), so a buffer is written again only after the barrier of the call in between, which
// every thread reaches after its reads of the call before: no barrier after the reads.
template <class Op>
__device__ __forceinline__ typename Op::T row_reduce(typename Op::T v, int phase) {
  using T = typename Op::T;
  const int group = static_cast<int>(threadIdx.y), t = static_cast<int>(threadIdx.x);
#if SHUFFLE_REDUCE
  v = warp_reduce<Op>(v);
  if (row_warps() > 1 || CLUSTER > 1) {  // the same in every block of the launch: all threads reach the barrier or none
    __shared__ T partials[2][LAUNCH_THREADS / 32];  // a partial per warp of the block, each row's row_warps() together
    T* const mine = partials[phase] + group * row_warps();
    const int lane = t % 32;
    if (lane == 0) mine[t / 32] = v;
    sync_row_threads();
    v = Op::identity();
    for (int i = lane; i < row_warps() * CLUSTER; i += 32) {
      const T* from = &mine[i % row_warps()];
#if CLUSTER > 1
      from = static_cast<const T*>(__cluster_map_shared_rank(from, static_cast<unsigned>(i / row_warps())));
#endif
      v = Op::combine(v, *from);
    }
    v = warp_reduce<Op>(v);
  }
  return v;
#else
  __shared__ T partials[2][ROWS_PER_BLOCK][BLOCK];
  T* mine = partials[phase][group];
  mine[t] = v;
  __syncthreads();
#pragma unroll
  for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
    if (t < stride) mine[t] = Op::combine(mine[t], mine[t + stride]);
    __syncthreads();
  }
#if CLUSTER > 1
  sync_row_threads();
  v = Op::identity();
#pragma unroll
  for (int rank = 0; rank < CLUSTER; ++rank)
    v = Op::combine(v, *static_cast<const T*>(__cluster_map_shared_rank(mine, static_cast<unsigned>(rank))));
  return v;
#else
  return mine[0];
#endif
#endif
}

// Where one row lies: `head` elements up to the first 2 * VEC-byte boundary of x's row, `vectors` aligned vectors, then
// the tail from `tail`. The head and the tail (`edges` elements, fewer than 2 * VEC and so than a row's threads) go one
// element per thread. A row past the last one is empty: its threads still take part in the reductions.
struct RowView {
  const __nv_bfloat16* in;
  __nv_bfloat16* out;
  long long vectors, tail;
  int head, edges;
};

__device__ __forceinline__ RowView row_view(const __nv_bfloat16* x, __nv_bfloat16* y, long long row, long long rows, long long cols) {
  const long long n = row < rows ? cols : 0;
  const long long offset = (row < rows ? row : 0) * cols;
  RowView view;
  view.in = x + offset;
  view.out = y + offset;
  const int misaligned = static_cast<int>(reinterpret_cast<unsigned long long>(view.in) / 2 % VEC);
  const long long head = (VEC - misaligned) % VEC < n ? (VEC - misaligned) % VEC : n;
  view.vectors = (n - head) / VEC;
  view.tail = head + view.vectors * VEC;
  view.head = static_cast<int>(head);
  view.edges = static_cast<int>(head + (n - view.tail));
  return view;
}

__device__ __forceinline__ long long edge_index(const RowView& view, int lane) {
  return lane < view.head ? lane : view.tail + (lane - view.head);
}

// A row held in registers: this thread's vectors lane, lane + row_threads(), ... (kK of them at most) and its edge
// element (-inf if none).
template <int kK>
struct Held {
  Chunk v[kK];
  float edge;
};

template <int kK>
__device__ __forceinline__ Held<kK> load_held(const RowView& view, int lane) {
  Held<kK> held;
#pragma unroll
  for (int j = 0; j < kK; ++j) {
    const int v = lane + j * row_threads();
    if (v < view.vectors) held.v[j] = load_chunk(view.in + view.head + static_cast<long long>(v) * VEC, true);
  }
  held.edge = lane < view.edges ? load_element(view.in + edge_index(view, lane)) : neg_inf();
  return held;
}

template <int kK>
__device__ __forceinline__ void softmax_held(const RowView& view, const Held<kK>& held, int lane, bool aligned_out, int& phase) {
  const bool has_edge = lane < view.edges;
  MaxPairs pairs = max_pairs_identity();
#pragma unroll
  for (int j = 0; j < kK; ++j)
    if (lane + j * row_threads() < view.vectors) pairs = max_pairs(pairs, held.v[j]);
  const float max = fmaxf(held.edge, max_of(pairs));
#if EXP_ONCE
  float exps[kK][VEC];
  float edge_exp = 0.0f;
#endif
#if ONLINE
  // exp(x - this thread's max) and their sum; one reduction of the pairs gives the row's max and sum.
  const ExpBase own = exp_base(max);
#else
  const ExpBase own = exp_base(row_reduce<MaxOp>(max, phase));
  phase ^= 1;
#endif
  float sum = 0.0f;
  if (has_edge) {
    const float e = exp_from(held.edge, own);
    sum += e;
#if EXP_ONCE
    edge_exp = e;
#endif
  }
#pragma unroll
  for (int j = 0; j < kK; ++j)
    if (lane + j * row_threads() < view.vectors) {
#pragma unroll
      for (int i = 0; i < VEC; ++i) {
        const float e = exp_from(element(held.v[j], i), own);
        sum += e;
#if EXP_ONCE
        exps[j][i] = e;
#endif
      }
    }
#if ONLINE
  const Stats row = row_reduce<StatsOp>({max, sum}, phase);
  phase ^= 1;
  const ExpBase base = exp_base(row.max);
  const float inverse = 1.0f / row.sum;
#if EXP_ONCE
  const float scale = inverse * exp_from(own.ref, base);  // exp(own max - row max) / sum
#endif
#else
  const float inverse = 1.0f / row_reduce<SumOp>(sum, phase);
  phase ^= 1;
#if EXP_ONCE
  const float scale = inverse;
#else
  const ExpBase base = own;
#endif
#endif

#if EXP_ONCE
  if (has_edge) store_element(view.out + edge_index(view, lane), edge_exp * scale);
#else
  if (has_edge) store_element(view.out + edge_index(view, lane), exp_from(held.edge, base) * inverse);
#endif
#pragma unroll
  for (int j = 0; j < kK; ++j) {
    const int v = lane + j * row_threads();
    if (v < view.vectors) {
      float out[VEC];
#pragma unroll
      for (int i = 0; i < VEC; ++i) {
#if EXP_ONCE
        out[i] = exps[j][i] * scale;
#else
        out[i] = exp_from(element_again(held.v[j], i), base) * inverse;
#endif
      }
      store_chunk(view.out + view.head + static_cast<long long>(v) * VEC, to_chunk(out), aligned_out);
    }
  }
}

// Calls visit(chunks, first) for each step of this thread's vectors of a streamed row: chunks[u] is vector
// first + u * row_threads() where that is below view.vectors (in_row), all UNROLL loaded before the first is used.
template <class Visit>
__device__ __forceinline__ void stream_row(const RowView& view, int lane, bool last_use, Visit&& visit) {
  const __nv_bfloat16* in = view.in + view.head;
  for (long long first = lane; first < view.vectors; first += static_cast<long long>(row_threads()) * UNROLL) {
    Chunk chunks[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      const long long v = first + static_cast<long long>(u) * row_threads();
      if (v < view.vectors) chunks[u] = load_chunk(in + v * VEC, last_use);
    }
    visit(chunks, first);
  }
}

__device__ __forceinline__ bool in_row(const RowView& view, long long first, int u) {
  return first + static_cast<long long>(u) * row_threads() < view.vectors;
}

__device__ __forceinline__ void softmax_streamed(const RowView& view, int lane, bool aligned_out, int& phase) {
  const bool has_edge = lane < view.edges;
  const float edge = has_edge ? load_element(view.in + edge_index(view, lane)) : neg_inf();
#if ONLINE
  // One read: per step, the step's max, the running sum rescaled to it once, then the step's exponentials.
  Stats mine = {edge, has_edge ? 1.0f : 0.0f};
  stream_row(view, lane, false, [&](const Chunk (&chunks)[UNROLL], long long first) {
    MaxPairs pairs = max_pairs_identity();
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
      if (in_row(view, first, u)) pairs = max_pairs(pairs, chunks[u]);
    const float max = fmaxf(mine.max, max_of(pairs));
    const ExpBase step = exp_base(max);
    float sum = mine.sum * exp_from(mine.max, step);
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
      if (in_row(view, first, u)) {
#pragma unroll
        for (int i = 0; i < VEC; ++i) sum += exp_from(element(chunks[u], i), step);
      }
    mine = {max, sum};
  });
  const Stats row = row_reduce<StatsOp>(mine, phase);
  phase ^= 1;
  const ExpBase base = exp_base(row.max);
  const float inverse = 1.0f / row.sum;
#else
  MaxPairs pairs = max_pairs_identity();
  stream_row(view, lane, false, [&](const Chunk (&chunks)[UNROLL], long long first) {
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
      if (in_row(view, first, u)) pairs = max_pairs(pairs, chunks[u]);
  });
  const ExpBase base = exp_base(row_reduce<MaxOp>(fmaxf(edge, max_of(pairs)), phase));
  phase ^= 1;
  float sum = has_edge ? exp_from(edge, base) : 0.0f;
  stream_row(view, lane, false, [&](const Chunk (&chunks)[UNROLL], long long first) {
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
      if (in_row(view, first, u)) {
#pragma unroll
        for (int i = 0; i < VEC; ++i) sum += exp_from(element(chunks[u], i), base);
      }
  });
  const float inverse = 1.0f / row_reduce<SumOp>(sum, phase);
  phase ^= 1;
#endif
  if (has_edge) store_element(view.out + edge_index(view, lane), exp_from(edge, base) * inverse);
  __nv_bfloat16* out = view.out + view.head;
  stream_row(view, lane, true, [&](const Chunk (&chunks)[UNROLL], long long first) {
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
      if (in_row(view, first, u)) {
        float values[VEC];
#pragma unroll
        for (int i = 0; i < VEC; ++i) values[i] = exp_from(element(chunks[u], i), base) * inverse;
        store_chunk(out + (first + static_cast<long long>(u) * row_threads()) * VEC, to_chunk(values), aligned_out);
      }
  });
}

// Rows held in registers, kK vectors per thread at most: the groups first, first + stride, ... below `groups` of
// blockDim.y rows each.
template <int kK>
__device__ __forceinline__ void held_rows(const __nv_bfloat16* x, __nv_bfloat16* y, long long rows, long long cols, long long first,
                                          long long stride, long long groups, int group, int lane, bool aligned_out) {
  const long long per_group = blockDim.y;
  int phase = 0;
#if PREFETCH
  Held<kK> next = load_held<kK>(row_view(x, y, first * per_group + group, rows, cols), lane);
#endif
  for (long long g = first; g < groups; g += stride) {
    const RowView view = row_view(x, y, g * per_group + group, rows, cols);
#if PREFETCH
    const Held<kK> held_row = next;
    if (g + stride < groups) next = load_held<kK>(row_view(x, y, (g + stride) * per_group + group, rows, cols), lane);
#else
    const Held<kK> held_row = load_held<kK>(view, lane);
#endif
    softmax_held<kK>(view, held_row, lane, aligned_out, phase);
  }
}

extern "C" __global__ void LAUNCH_BOUNDS CLUSTER_DIMS
softmax_bf16_rows(const __nv_bfloat16* __restrict__ x, __nv_bfloat16* __restrict__ y, long long rows, long long cols) {
  const int group = static_cast<int>(threadIdx.y);
#if CLUSTER > 1
  const int rank = static_cast<int>(__clusterRelativeBlockRank());
#else
  const int rank = 0;
#endif
  const int lane = rank * block_row_threads() + static_cast<int>(threadIdx.x);  // this thread's place among its row's threads
  // Groups of blockDim.y rows, one per cluster at a time; the blocks of a cluster walk the same groups.
  const long long first = blockIdx.x / CLUSTER, stride = gridDim.x / CLUSTER;
  const long long groups = (rows + blockDim.y - 1) / blockDim.y;
  const bool aligned_out = (reinterpret_cast<unsigned long long>(x) ^ reinterpret_cast<unsigned long long>(y)) % (2 * VEC) == 0;
  // The same for every row (no row has more than cols / VEC whole vectors), so the whole grid takes one path.
  const long long vectors = cols / VEC;
  if (KEEP_ROW > 0 && vectors <= static_cast<long long>(kShortKeep) * row_threads()) {
    held_rows<kShortKeep>(x, y, rows, cols, first, stride, groups, group, lane, aligned_out);
  } else if (KEEP_ROW > 0 && vectors <= static_cast<long long>(kKeep) * row_threads()) {
    held_rows<kKeep>(x, y, rows, cols, first, stride, groups, group, lane, aligned_out);
  } else {
    int phase = 0;
    for (long long g = first; g < groups; g += stride)
      softmax_streamed(row_view(x, y, g * blockDim.y + group, rows, cols), lane, aligned_out, phase);
  }
#if CLUSTER > 1
  // The other blocks of the cluster may still read this block's partials: it stays until they are done.
  __cluster_barrier_arrive();
  __cluster_barrier_wait();
#endif
}
