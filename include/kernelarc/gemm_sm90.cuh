// Hopper (sm_90a) GEMM pieces the wgmma templates share: mbarriers, cp.async into a 128-byte-swizzled shared-memory ring,
// wgmma shared-memory descriptors and the m64nNk16 bf16 instructions, and one warp-specialised tile of y = x @ w^T
// (x: M x K, w: N x K, both K-contiguous, bf16 in, fp32 accumulation) with its epilogues. Travels inside the kernelarc
// binary as device.cuh does, so kernel-only templates built through NVRTC include it as kernelarc/gemm_sm90.cuh.
//
// Everything is templates or __forceinline__: including it adds nothing to a kernel that does not call it, and the
// sm_90a-only instructions are emitted only where a kernel uses them. A B200 (sm_100a) builds the same tile with its
// consumers on mma.sync from ldmatrix (gemm_tile's kWgmma false): wgmma is Hopper's alone, and a tcgen05 tile is to come.
#ifndef KERNELARC_GEMM_SM90_CUH
#define KERNELARC_GEMM_SM90_CUH

#include <cuda_bf16.h>
#include <cuda_fp8.h>

// setmaxnreg, TMA and the cluster's barriers exist on sm_90a and sm_100a; wgmma only on sm_90a.
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL) && !defined(__CUDA_ARCH_FEAT_SM100_ALL)
#error "kernelarc/gemm_sm90.cuh needs sm_90a (Hopper) or sm_100a (a B200); this build targets another architecture"
#endif

// 1 where gemm_tile may multiply with wgmma (Hopper's sm_90a, and the host's pass), 0 on a B200 (sm_100a): a template
// passes it (and its own choice) as kWgmma.
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define KERNELARC_WGMMA 0
#else
#define KERNELARC_WGMMA 1
#endif

// The cluster attribute of a template kernel, KERNELARC_CLUSTERS(MULTICAST, SPLIT_K) (1 for a knob it lacks): MULTICAST
// blocks that share each weight slice (gemm_tile's kMulticast), SPLIT_K blocks that split K (kSplitK), none for 1 and 1.
// Chosen where the kernel is declared, from the knob values there: a composed candidate includes this header once above
// parts of different knobs (engine/composition.h), so nothing here may read a knob when it is included.
#define KERNELARC_CLUSTERS(multicast, split_k) KERNELARC_CLUSTER_OF(multicast, split_k)
#define KERNELARC_CLUSTER_OF(multicast, split_k) KERNELARC_CLUSTER_##multicast##_##split_k
#define KERNELARC_CLUSTER_1_1
#define KERNELARC_CLUSTER_2_1 __cluster_dims__(2, 1, 1)
#define KERNELARC_CLUSTER_4_1 __cluster_dims__(4, 1, 1)
#define KERNELARC_CLUSTER_1_2 __cluster_dims__(2, 1, 1)
#define KERNELARC_CLUSTER_1_4 __cluster_dims__(4, 1, 1)
#define KERNELARC_CLUSTER_1_8 __cluster_dims__(8, 1, 1)

namespace kernelarc::sm90 {

__device__ __forceinline__ unsigned shared_address(const void* pointer) {
  return static_cast<unsigned>(__cvta_generic_to_shared(pointer));
}

// ---- mbarriers (one 8-byte word of shared memory each) ----

__device__ __forceinline__ void barrier_init(unsigned barrier, unsigned arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(barrier), "r"(arrivals) : "memory");
}

// Until the phase of the given parity has completed (the barrier's n-th phase has parity n & 1).
__device__ __forceinline__ void barrier_wait(unsigned barrier, unsigned parity) {
  unsigned done = 0;
  do {
    asm volatile(
        "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(barrier), "r"(parity)
        : "memory");
  } while (!done);
}

__device__ __forceinline__ void barrier_arrive(unsigned barrier) {
  asm volatile("{\n.reg .b64 state;\nmbarrier.arrive.shared::cta.b64 state, [%0];\n}\n" ::"r"(barrier) : "memory");
}

// One arrival on the barrier at this block's `barrier` offset in the shared memory of the cluster's block `rank`.
// Release at the block's scope, the default, as for a local arrival: `.release.cluster` puts a MEMBAR.ALL.GPU before
// every arrival, which serialised the multicast tile's k loop (2.2x slower on an H100, 2026-12-07). The arrival
// follows the reads of the stage it releases (wgmma's wait, or ldmatrix's registers used), which is what it orders.
__device__ __forceinline__ void barrier_arrive_cluster(unsigned barrier, unsigned rank) {
  unsigned remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(barrier), "r"(rank));
  asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];" ::"r"(remote) : "memory");
}

// ---- cp.async ----

// 16 bytes from global to shared memory; `bytes` 0 fills the 16 with zeros (the source is then not read).
__device__ __forceinline__ void copy_16(unsigned destination, const void* source, unsigned bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(destination), "l"(source), "r"(bytes) : "memory");
}

// The barrier counts one arrival of this thread once every cp.async it issued before has landed (.noinc: the arrival is
// one of those the barrier was initialised to expect).
__device__ __forceinline__ void copies_arrive(unsigned barrier) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(barrier) : "memory");
}

__device__ __forceinline__ void copies_wait_all() { asm volatile("cp.async.wait_all;" ::: "memory"); }

// ---- TMA (cp.async.bulk.tensor) ----

// A tensor map the judge encodes on the host (definition.json's launch.tensor_maps): CUtensorMap's size and alignment,
// received as a `const __grid_constant__` kernel parameter and read by the copy engine through its address.
struct alignas(64) TensorMap {
  unsigned long long opaque[16];
};

// The barrier's current phase also waits for `bytes` more to land through TMA (this thread's arrival counts too).
__device__ __forceinline__ void barrier_expect_bytes(unsigned barrier, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(barrier), "r"(bytes) : "memory");
}

// The box of `map` at (column, row) into shared memory at `destination`, swizzled as the map says, zeros past the
// tensor's edges; its bytes complete on `barrier`. The destination is this block's own (a shared::cta address).
__device__ __forceinline__ void tma_load_2d(unsigned destination, const TensorMap& map, int column, int row, unsigned barrier) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
               " [%0], [%1, {%2, %3}], [%4];"
               :
               : "r"(destination), "l"(reinterpret_cast<unsigned long long>(&map)), "r"(column), "r"(row), "r"(barrier)
               : "memory");
}

// As tma_load_2d, into the same offset of the shared memory of every block of the cluster whose bit is set in `blocks`,
// the bytes completing on the barrier at `barrier`'s offset in each.
__device__ __forceinline__ void tma_load_2d_multicast(unsigned destination, const TensorMap& map, int column, int row, unsigned barrier,
                                                      unsigned short blocks) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
               " [%0], [%1, {%2, %3}], [%4], %5;"
               :
               : "r"(destination), "l"(reinterpret_cast<unsigned long long>(&map)), "r"(column), "r"(row), "r"(barrier), "h"(blocks)
               : "memory");
}

// Barrier initialisations are seen by the copy engine (the async proxy) and by the cluster's blocks.
__device__ __forceinline__ void fence_barrier_init() { asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }

// Shared memory written through the generic proxy (cp.async) is read next by wgmma through the async proxy.
__device__ __forceinline__ void fence_async_shared() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }

// Every thread of the cluster: writes to shared memory before it are seen by the cluster's blocks after it.
__device__ __forceinline__ void cluster_sync() {
  __cluster_barrier_arrive();
  __cluster_barrier_wait();
}

// A named barrier among `threads` threads (a multiple of 32); 0 is __syncthreads's.
__device__ __forceinline__ void named_barrier(unsigned id, unsigned threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}
// Arrives at named barrier `id` of `threads` threads without waiting: lets the threads waiting there go on.
__device__ __forceinline__ void named_barrier_arrive(unsigned id, unsigned threads) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

// ---- registers per warpgroup (setmaxnreg: the kernel needs a register cap, __launch_bounds__(threads, 1)) ----

template <int kRegisters> __device__ __forceinline__ void registers_increase() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(kRegisters));
}
template <int kRegisters> __device__ __forceinline__ void registers_decrease() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(kRegisters));
}

// ---- mma.sync (the decode path; the tile's consumers where there is no wgmma) ----

namespace detail {

// c (16 x 8, fp32) += a (16 rows x 32 bytes of K, row-major) * b (32 bytes of K x 8 columns, column-major): the warp-wide
// mma.sync, m16n8k16 for bf16, m16n8k32 for fp8 e4m3 (HMMA both: sm_90a converts e4m3 to fp16 exactly and multiplies
// twice). A thread holds 4 bytes of K in each 32-bit register:
// a0 (row g, bytes 4t to 4t + 3 of K), a1 (row g + 8), a2 (bytes 16 + 4t ...), a3 (row g + 8, bytes 16 + 4t ...); b0
// (bytes 4t ..., column g), b1 (bytes 16 + 4t ...); c0, c1 (row g, columns 2t, 2t + 1), c2, c3 (row g + 8); g = lane / 4,
// t = lane % 4.
template <typename Input>
__device__ __forceinline__ void mma_32_bytes(float (&c)[4], unsigned a0, unsigned a1, unsigned a2, unsigned a3, unsigned b0, unsigned b1) {
  if constexpr (sizeof(Input) == 1)
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  else
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

// Four 8 x 16-byte matrices of shared memory into a warp's registers (ldmatrix.x4): lane l gives the address of row
// l % 8 of matrix l / 8 and receives, in register q, the 4 bytes at row l / 4, bytes 4 (l % 4) of matrix q.
__device__ __forceinline__ void load_matrices(unsigned (&r)[4], unsigned address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address));
}

// The address of 16-byte chunk `chunk` of row `row` of a block of 128-byte rows stored in the 128-byte swizzle from
// `block` (1024-byte aligned): the chunk's place in its row is XORed with the row's place in its 8-row atom.
__device__ __forceinline__ unsigned swizzled_chunk(unsigned block, int row, int chunk) {
  return block + row * 128 + ((chunk ^ (row & 7)) << 4);
}

}  // namespace detail

// ---- wgmma ----

// The descriptor of a K-major operand in the 128-byte swizzle: rows of 128 bytes (64 bf16, 128 fp8), eight rows a 1024-byte atom
// (stride byte offset 1024; the leading byte offset is unused in this layout), atoms 1024-byte aligned.
__device__ __forceinline__ unsigned long long swizzled_descriptor(unsigned address) {
  return static_cast<unsigned long long>((address & 0x3FFFF) >> 4) | (1ull << 16) | (static_cast<unsigned long long>(1024 >> 4) << 32) |
         (1ull << 62);
}

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int kPending> __device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(kPending) : "memory");
}

// d (64 x N, fp32, the warpgroup's fragment: N / 2 a thread) = a (64 x K) * b (N x K)^T + (scale_d ? d : 0), both from
// shared memory: one instruction covers 32 bytes of K, k16 for bf16 and k32 for fp8 e4m3. KERNELARC_WGMMA_N(N,
// INSTRUCTION, TAIL) writes the instruction with N / 2 accumulators; TAIL is what follows the scale-d predicate (bf16
// takes the two operands' transposes too, fp8 has none).
// The operand list of the instruction: the accumulators 16 at a time, then a, b and the scale-d flag (numbered A, B, SCALE).
#define KERNELARC_OPERANDS_0 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15"
#define KERNELARC_OPERANDS_16 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
#define KERNELARC_OPERANDS_32 "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47"
#define KERNELARC_OPERANDS_48 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define KERNELARC_OPERANDS_64 "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79"
#define KERNELARC_OPERANDS_80 "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95"
#define KERNELARC_OPERANDS_96 "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111"
#define KERNELARC_OPERANDS_112 "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
#define KERNELARC_ACCUMULATORS_16(B) \
  "+f"(d[B + 0]), "+f"(d[B + 1]), "+f"(d[B + 2]), "+f"(d[B + 3]), "+f"(d[B + 4]), "+f"(d[B + 5]), "+f"(d[B + 6]), "+f"(d[B + 7]), \
  "+f"(d[B + 8]), "+f"(d[B + 9]), "+f"(d[B + 10]), "+f"(d[B + 11]), "+f"(d[B + 12]), "+f"(d[B + 13]), "+f"(d[B + 14]), "+f"(d[B + 15])
#define KERNELARC_WGMMA_ASM(INSTRUCTION, TAIL, OPERANDS, A, B, SCALE, ...) \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" SCALE ", 0;\n" INSTRUCTION " {" OPERANDS "}, %" A ", %" B ", p" TAIL ";\n}\n" \
               : __VA_ARGS__ \
               : "l"(a), "l"(b), "r"(scale_d) \
               : "memory")
#define KERNELARC_WGMMA_64(INSTRUCTION, TAIL) \
  KERNELARC_WGMMA_ASM(INSTRUCTION, TAIL, \
                      KERNELARC_OPERANDS_0 "," KERNELARC_OPERANDS_16, "32", "33", "34", \
                      KERNELARC_ACCUMULATORS_16(0), KERNELARC_ACCUMULATORS_16(16))
#define KERNELARC_WGMMA_128(INSTRUCTION, TAIL) \
  KERNELARC_WGMMA_ASM(INSTRUCTION, TAIL, \
                      KERNELARC_OPERANDS_0 "," KERNELARC_OPERANDS_16 "," KERNELARC_OPERANDS_32 "," KERNELARC_OPERANDS_48, "64", "65", "66", \
                      KERNELARC_ACCUMULATORS_16(0), KERNELARC_ACCUMULATORS_16(16), KERNELARC_ACCUMULATORS_16(32), KERNELARC_ACCUMULATORS_16(48))
#define KERNELARC_WGMMA_160(INSTRUCTION, TAIL) \
  KERNELARC_WGMMA_ASM(INSTRUCTION, TAIL, \
                      KERNELARC_OPERANDS_0 "," KERNELARC_OPERANDS_16 "," KERNELARC_OPERANDS_32 "," KERNELARC_OPERANDS_48 "," \
                      KERNELARC_OPERANDS_64, "80", "81", "82", \
                      KERNELARC_ACCUMULATORS_16(0), KERNELARC_ACCUMULATORS_16(16), KERNELARC_ACCUMULATORS_16(32), KERNELARC_ACCUMULATORS_16(48), \
                      KERNELARC_ACCUMULATORS_16(64))
#define KERNELARC_WGMMA_256(INSTRUCTION, TAIL) \
  KERNELARC_WGMMA_ASM(INSTRUCTION, TAIL, \
                      KERNELARC_OPERANDS_0 "," KERNELARC_OPERANDS_16 "," KERNELARC_OPERANDS_32 "," KERNELARC_OPERANDS_48 "," \
                      KERNELARC_OPERANDS_64 "," KERNELARC_OPERANDS_80 "," KERNELARC_OPERANDS_96 "," KERNELARC_OPERANDS_112, "128", "129", "130", \
                      KERNELARC_ACCUMULATORS_16(0), KERNELARC_ACCUMULATORS_16(16), KERNELARC_ACCUMULATORS_16(32), KERNELARC_ACCUMULATORS_16(48), \
                      KERNELARC_ACCUMULATORS_16(64), KERNELARC_ACCUMULATORS_16(80), KERNELARC_ACCUMULATORS_16(96), KERNELARC_ACCUMULATORS_16(112))

template <int N, typename Input = __nv_bfloat16> struct Wgmma;

template <> struct Wgmma<64, __nv_bfloat16> {
  static __device__ __forceinline__ void mma(float (&d)[32], unsigned long long a, unsigned long long b, int scale_d = 1) {
    KERNELARC_WGMMA_64("wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16", ", 1, 1, 0, 0");
  }
};
template <> struct Wgmma<64, __nv_fp8_e4m3> {
  static __device__ __forceinline__ void mma(float (&d)[32], unsigned long long a, unsigned long long b, int scale_d = 1) {
    KERNELARC_WGMMA_64("wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3", ", 1, 1");
  }
};

template <> struct Wgmma<128, __nv_bfloat16> {
  static __device__ __forceinline__ void mma(float (&d)[64], unsigned long long a, unsigned long long b, int scale_d = 1) {
    KERNELARC_WGMMA_128("wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16", ", 1, 1, 0, 0");
  }
};
template <> struct Wgmma<128, __nv_fp8_e4m3> {
  static __device__ __forceinline__ void mma(float (&d)[64], unsigned long long a, unsigned long long b, int scale_d = 1) {
    KERNELARC_WGMMA_128("wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3", ", 1, 1");
  }
};

template <> struct Wgmma<160, __nv_bfloat16> {  // bf16 only: fp8's promoted sums allow 64 accumulators, BN 128 at most
  static __device__ __forceinline__ void mma(float (&d)[80], unsigned long long a, unsigned long long b, int scale_d = 1) {
    KERNELARC_WGMMA_160("wgmma.mma_async.sync.aligned.m64n160k16.f32.bf16.bf16", ", 1, 1, 0, 0");
  }
};

template <> struct Wgmma<256, __nv_bfloat16> {
  static __device__ __forceinline__ void mma(float (&d)[128], unsigned long long a, unsigned long long b, int scale_d = 1) {
    KERNELARC_WGMMA_256("wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16", ", 1, 1, 0, 0");
  }
};
template <> struct Wgmma<256, __nv_fp8_e4m3> {
  static __device__ __forceinline__ void mma(float (&d)[128], unsigned long long a, unsigned long long b, int scale_d = 1) {
    KERNELARC_WGMMA_256("wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3", ", 1, 1");
  }
};

#undef KERNELARC_WGMMA_64
#undef KERNELARC_WGMMA_128
#undef KERNELARC_WGMMA_160
#undef KERNELARC_WGMMA_256
#undef KERNELARC_WGMMA_ASM
#undef KERNELARC_ACCUMULATORS_16
#undef KERNELARC_OPERANDS_0
#undef KERNELARC_OPERANDS_16
#undef KERNELARC_OPERANDS_32
#undef KERNELARC_OPERANDS_48
#undef KERNELARC_OPERANDS_64
#undef KERNELARC_OPERANDS_80
#undef KERNELARC_OPERANDS_96
#undef KERNELARC_OPERANDS_112

// ---- one tile of y = act(x @ w^T + bias) + residual ----

// A tile's shape and the shared memory it needs, from the template's knobs. The ring: kStages stages, each the
// kBlockM x kBlockK slice of x then the kBlockN x kBlockK slice of w, each as column blocks of 128-byte swizzled rows
// (64 bf16 or 128 fp8 a row: kInputBytes a value).
template <int kBlockM, int kBlockN, int kBlockK, int kStages, int kConsumers, bool kStaged, int kSplitK = 1, int kInputBytes = 2,
          bool kPersistent = false, bool kPingpong = false, bool kSlabbed = false>
struct TileShape {
  static constexpr int kThreads = 128 * (kConsumers + 1);  // warpgroup 0 loads, warpgroups 1.. multiply
  // Rows of a tile one consumer warpgroup owns: its share, or, taking turns (kPingpong), every row of its own tiles.
  static constexpr int kConsumerRows = kPingpong ? kBlockM : kBlockM / kConsumers;
  static constexpr int kConsumerOffset = kPingpong ? 0 : kConsumerRows;  // consumer warpgroup c's first row is c times this
  static constexpr int kMmas = kConsumerRows / 64;         // m64 instructions per k16 step and warpgroup
  static constexpr int kAccumulators = kMmas * kBlockN / 2;     // fp32 registers a consumer thread holds
  static constexpr int kStageBytes = (kBlockM + kBlockN) * kBlockK * kInputBytes;
  static constexpr int kColumnBlocks = kBlockK * kInputBytes / 128;  // 128-byte rows a slice's row spans
  // Columns the epilogue stages at a time: the whole tile, or (kSlabbed) slabs of 64, so that a persistent block's
  // staging beside the ring is small.
  static constexpr int kStagingColumns = kSlabbed ? 64 : kBlockN;
  static constexpr int kStagingPitch = kStagingColumns + 8;  // bf16 a row of the epilogue's staging: conflict-free writes
  // Taking turns, a warpgroup stores its tile while the other multiplies the next: a staging area each.
  static constexpr int kStagingBytes = kStaged ? (kPingpong ? kConsumers : 1) * kBlockM * kStagingPitch * 2 : 0;
  static constexpr int kPartialBytes = kSplitK > 1 ? kBlockM * kBlockN * 4 : 0;  // a split's fp32 sums, for the cluster's first block
  static constexpr int kRingBytes = kStages * kStageBytes;
  // The epilogue's tile reuses the ring, unless the block is persistent: then the producer is filling the ring with the
  // next tile's slices meanwhile, and the staging follows the ring.
  static constexpr int kDataBytes = kPersistent ? kRingBytes + kStagingBytes
                                    : kRingBytes > kStagingBytes ? (kRingBytes > kPartialBytes ? kRingBytes : kPartialBytes)
                                                                 : (kStagingBytes > kPartialBytes ? kStagingBytes : kPartialBytes);
  // What the launch rule must give: the data, its 1024-byte alignment, and the barriers after it.
  static constexpr int kSharedBytes = kDataBytes + 1024 + 16 * kStages;

  static_assert(kBlockM % 64 == 0 && kBlockN % 32 == 0, "kBlockM: a multiple of 64; kBlockN: of 32");
  static_assert(kBlockK * kInputBytes % 128 == 0, "kBlockK: whole 128-byte rows (a multiple of 64 bf16 or 128 fp8)");
  static_assert(kConsumers == 1 || kConsumers == 2, "one or two consumer warpgroups");
  static_assert(kConsumerRows % 64 == 0, "each consumer warpgroup owns a multiple of 64 rows");
  static_assert(kBlockN == 64 || kBlockN == 128 || kBlockN == 160 || kBlockN == 256,
                "kBlockN: 64, 128, 160 (a hidden size of 2560 in whole tiles) or 256 (one wgmma spans the tile's columns)");
  static_assert(kAccumulators <= 128, "at most 128 accumulators a thread");
  // fp8's wgmma keeps only about 14 bits of its running sum, so each k tile's sums start from zero in a second set of
  // registers and are added to the fp32 totals by the consumer threads (as torch._scaled_mm's default does).
  static constexpr bool kPromoted = kInputBytes == 1;
  static_assert(!kPromoted || kAccumulators <= 64, "fp8: at most 64 accumulators a thread (twice that in registers, promoted)");
  static_assert(kStages >= 2, "two stages at least: one filling while one is multiplied");
  static_assert(kSplitK == 1 || kSplitK == 2 || kSplitK == 4 || kSplitK == 8, "kSplitK: 1, 2, 4 or 8 blocks of a cluster (portable)");
  static_assert(!kPersistent || kSplitK == 1, "a persistent block walks whole tiles (split-K's clusters end with their tile)");
  static_assert(!kPingpong || (kPersistent && kConsumers == 2), "taking turns: two consumer warpgroups of a persistent block");
  static_assert(!kSlabbed || (kStaged && kBlockN % 64 == 0), "slabs of 64 columns of a staged epilogue");
  static_assert(kSharedBytes <= 227 * 1024, "at most 227 KiB of shared memory a block");
};

namespace detail {

// kRows x kBlockK of a K-contiguous matrix, from `corner` (its element at the slice's first row and column), into its
// swizzled place, by the 128 producer threads; zeros past `rows` rows and `columns` columns. Whole 16-byte chunks: K is a
// multiple of 16 bytes (8 bf16, 16 fp8). Each 128-byte column block of the slice holds kBlockRows rows in shared memory
// (kRows, or more where two matrices share the block: the gate-up tile). The producer runs on 56 registers.
template <int kRows, int kBlockK, int kBlockRows = kRows, typename Input>
__device__ __forceinline__ void load_slice(unsigned destination, const Input* corner, int rows, int columns, long long k, int thread) {
  constexpr int kPerChunk = 16 / sizeof(Input);  // values a 16-byte copy moves
  constexpr int kChunksPerRow = kBlockK / kPerChunk;
  constexpr int kRowsPerPass = 128 / kChunksPerRow;  // a multiple of 8: a thread's rows share their swizzle
  static_assert(kRows % kRowsPerPass == 0 && kRowsPerPass % 8 == 0, "whole passes of the producer warpgroup");
  const int column = thread % kChunksPerRow, first_row = thread / kChunksPerRow;
  const unsigned to = destination + (column / 8) * (kBlockRows * 128) + first_row * 128 + (((column % 8) ^ (first_row % 8)) << 4);
  const bool column_inside = column * kPerChunk < columns;
  // One pointer stepped pass by pass, so that the compiler keeps no per-pass addresses alive across k tiles.
  const Input* from = corner + first_row * k + column * kPerChunk;
  const long long step = kRowsPerPass * k;
#pragma unroll
  for (int pass = 0; pass < kRows / kRowsPerPass; ++pass, from += step) {
    const bool inside = column_inside && first_row + pass * kRowsPerPass < rows;
    copy_16(to + pass * kRowsPerPass * 128, inside ? from : corner, inside ? 16 : 0);
  }
}

// The epilogue's activation of a bf16 value, in fp32 as PyTorch computes it on bf16 tensors.
template <int kActivation>
__device__ __forceinline__ float activation(float v) {
  static_assert(kActivation >= 0 && kActivation <= 2, "kActivation: 0 none, 1 GELU (tanh), 2 SiLU");
  if constexpr (kActivation == 1) return 0.5f * v * (1.0f + tanhf(0.7978845608028654f * (v + 0.044715f * v * v * v)));
  if constexpr (kActivation == 2) return v / (1.0f + expf(-v));
  return v;
}

// The rounded product (the bias in it already) through the activation, then plus the residual where there is one: each
// step rounded to bf16 as PyTorch rounds between its operations.
template <int kActivation>
__device__ __forceinline__ __nv_bfloat16 after_rounding(__nv_bfloat16 rounded, const __nv_bfloat16* residual, long long at) {
  if constexpr (kActivation != 0) rounded = __float2bfloat16(activation<kActivation>(__bfloat162float(rounded)));
  if (!residual) return rounded;
  return __float2bfloat16(__bfloat162float(rounded) + __bfloat162float(residual[at]));
}

// `value`: the fp32 product plus the bias of its column where there is one.
template <int kActivation>
__device__ __forceinline__ __nv_bfloat16 finish(float value, const __nv_bfloat16* residual, long long at) {
  return after_rounding<kActivation>(__float2bfloat16(value), residual, at);
}

// The staged epilogue's store of 8 products of a row of y from `column` (its element `at`), through the activation and
// plus the residual where there are: 16 bytes at once where `vectors` (y and the residual 16-byte aligned, N a multiple
// of 8) and the 8 lie inside N, else one at a time up to N.
template <int kActivation>
__device__ __forceinline__ void store_staged(const uint4 packed, __nv_bfloat16* y, const __nv_bfloat16* residual,
                                             long long at, long long column, long long n, bool vectors) {
  const __nv_bfloat16* const product = reinterpret_cast<const __nv_bfloat16*>(&packed);
  if (vectors && column + 8 <= n) {
    uint4 out = packed;
    if (residual || kActivation != 0) {
      const uint4 added = residual ? *reinterpret_cast<const uint4*>(residual + at) : uint4{};
      __nv_bfloat16* const o = reinterpret_cast<__nv_bfloat16*>(&out);
      const __nv_bfloat16* const a = reinterpret_cast<const __nv_bfloat16*>(&added);
#pragma unroll
      for (int e = 0; e < 8; ++e) o[e] = after_rounding<kActivation>(product[e], residual ? a : nullptr, e);
    }
    *reinterpret_cast<uint4*>(y + at) = out;
  } else {
#pragma unroll
    for (int e = 0; e < 8; ++e)
      if (column + e < n) y[at + e] = after_rounding<kActivation>(product[e], residual, at + e);
  }
}

// The bias of `column`, 0 without a bias or past the last column.
__device__ __forceinline__ float bias_of(const __nv_bfloat16* bias, long long column, long long n) {
  return bias && column < n ? __bfloat162float(bias[column]) : 0.0f;
}

// silu(gate) * up from the two fp32 sums, rounded as PyTorch rounds F.silu(F.linear(x, g)) * F.linear(x, u): each sum to
// bf16, the SiLU in fp32 to bf16, the product in fp32 to bf16.
__device__ __forceinline__ __nv_bfloat16 swiglu(float gate, float up) {
  const float g = __bfloat162float(__float2bfloat16(gate));
  const float silu = __bfloat162float(__float2bfloat16(activation<2>(g)));
  return __float2bfloat16(silu * __bfloat162float(__float2bfloat16(up)));
}

// Split-K's reduction, by the consumer threads of each block of the cluster: every block but the first leaves its fp32
// sums in its shared memory (kWidth consecutive registers of m64 fragment i of consumer thread t as one vector at
// (i * kVectors + v) * threads + t, so that a warp moves 256 or 512 bytes an instruction), and the first adds them to its
// own through distributed shared memory, kBatch loads issued before their sums, as a remote load takes hundreds of
// cycles; only the fragments with a row y has (a decode tile's others would be most of the traffic). True for the first
// block, which goes on to the epilogue; the others are done once the first has read them (the second barrier).
template <int kWidth> struct SumVector;
template <> struct SumVector<2> { using type = float2; };
template <> struct SumVector<4> { using type = float4; };

template <typename Shape, int kBlockN, int kConsumers, int kSplitK, typename Accumulators>
__device__ __forceinline__ bool add_the_splits(Accumulators& acc, unsigned char* data, unsigned rank, long long rows) {
  // float4s, but float2s beside a BN 256 tile's 128 sums: four-register loads there left the gate-up tile spilling.
  constexpr int kThreads = 128 * kConsumers, kWidth = kBlockN >= 256 ? 2 : 4, kVectors = kBlockN / 2 / kWidth;
  using Vector = typename SumVector<kWidth>::type;
  constexpr int kBatch = kVectors < 8 ? kVectors : 8;
  const int me = threadIdx.x - 128, t = me % 128;
  // Register 4j + 2h + c of an m64 fragment is row 16 * warp + lane / 4 + 8h of it (gemm_tile's epilogue says the same):
  // fragment i has a row of y when its first one, h = 0, is one.
  const int first_row = me / 128 * Shape::kConsumerRows + 16 * (t / 32) + t % 32 / 4;
  Vector* const partial = reinterpret_cast<Vector*>(data);
  named_barrier(1, kThreads);  // every consumer warpgroup is done with the ring before it is overwritten
  if (rank != 0) {
#pragma unroll
    for (int i = 0; i < Shape::kMmas; ++i)
      if (first_row + i * 64 < rows) {
#pragma unroll
        for (int v = 0; v < kVectors; ++v) {
          Vector sums;
          float* const lanes = reinterpret_cast<float*>(&sums);
#pragma unroll
          for (int c = 0; c < kWidth; ++c) lanes[c] = acc[i][kWidth * v + c];
          partial[(i * kVectors + v) * kThreads + me] = sums;
        }
      }
  }
  cluster_sync();
  if (rank == 0) {
    for (unsigned other = 1; other < kSplitK; ++other) {
      const Vector* const theirs = static_cast<const Vector*>(__cluster_map_shared_rank(static_cast<void*>(partial), other));
#pragma unroll
      for (int i = 0; i < Shape::kMmas; ++i)
        if (first_row + i * 64 < rows) {
#pragma unroll
          for (int v0 = 0; v0 < kVectors; v0 += kBatch) {
            Vector sums[kBatch];
#pragma unroll
            for (int b = 0; b < kBatch; ++b)
              if (v0 + b < kVectors) sums[b] = theirs[(i * kVectors + v0 + b) * kThreads + me];
#pragma unroll
            for (int b = 0; b < kBatch; ++b)
#pragma unroll
              for (int c = 0; c < kWidth; ++c)
                if (v0 + b < kVectors) acc[i][kWidth * (v0 + b) + c] += reinterpret_cast<const float*>(&sums[b])[c];
          }
        }
    }
  }
  cluster_sync();
  return rank == 0;
}

// fp8's dequantisation, in place on a consumer thread's fp32 sums (register 4j + 2h + c of m64 fragment i is row
// first_row + 64 i + 8 h, column first_column + 8 j + c): kScale 1 multiplies each by row_scale[0] * column_scale[0] (per
// tensor), 2 the sum of row r and column c by column_scale[c], then by row_scale[r] (per row of x and of w), as
// torch._scaled_mm does before its one rounding to bf16.
template <int kMmas, int kBlockN, int kScale, typename Accumulators>
__device__ __forceinline__ void scale_sums(Accumulators& acc, const float* row_scale, const float* column_scale, long long first_row,
                                           long long first_column, long long m, long long n) {
  static_assert(kScale >= 0 && kScale <= 2, "kScale: 0 none, 1 per tensor, 2 per row");
  if constexpr (kScale == 1) {
    const float both = row_scale[0] * column_scale[0];
#pragma unroll
    for (int i = 0; i < kMmas; ++i)
#pragma unroll
      for (int j = 0; j < kBlockN / 2; ++j) acc[i][j] *= both;
  } else if constexpr (kScale == 2) {
    float columns[kBlockN / 4];  // the two columns of each of the thread's kBlockN / 8 column groups
#pragma unroll
    for (int j = 0; j < kBlockN / 4; ++j) {
      const long long column = first_column + 8 * (j / 2) + j % 2;
      columns[j] = column < n ? column_scale[column] : 0.0f;
    }
#pragma unroll
    for (int i = 0; i < kMmas; ++i)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const long long row = first_row + 64 * i + 8 * h;
        const float by_row = row < m ? row_scale[row] : 0.0f;
#pragma unroll
        for (int j = 0; j < kBlockN / 8; ++j)
#pragma unroll
          for (int c = 0; c < 2; ++c) acc[i][4 * j + 2 * h + c] = acc[i][4 * j + 2 * h + c] * columns[2 * j + c] * by_row;
      }
  }
}

// One stage's product by a consumer warpgroup's warp on mma.sync, for targets without wgmma: `sums` (kMmas x kBlockN / 2
// fp32 registers) += rows 16 warp to 16 warp + 15 of each m64 of the consumer's slice of x at `a_stage` times the stage's
// kBlockN rows of w at `b_stage` (both in 128-byte column blocks, 128-byte swizzled), all of K. Register 4j + 2h + c is
// row lane / 4 + 8h, column 8j + 2 (lane % 4) + c: where wgmma's m64 fragment keeps it, so the epilogues are shared.
template <typename Shape, int kBlockM, int kBlockN, typename Input, typename Sums>
__device__ __forceinline__ void multiply_stage(Sums& sums, unsigned a_stage, unsigned b_stage, int warp, int lane) {
  const int matrix = lane / 8, row_in_matrix = lane % 8;
  // Not unrolled (only the registers' indices need to be constants): unrolled, ptxas loads matrices ahead and spills.
#pragma unroll 1
  for (int block = 0; block < Shape::kColumnBlocks; ++block)
#pragma unroll 1
    for (int step = 0; step < 4; ++step) {  // 32 bytes of K: two 16-byte chunks of the 128-byte rows
      unsigned a[Shape::kMmas][4];
#pragma unroll
      for (int i = 0; i < Shape::kMmas; ++i)  // matrices: rows 0-7, then 8-15, of the first chunk, then of the second
        load_matrices(a[i], swizzled_chunk(a_stage + block * kBlockM * 128, 64 * i + 16 * warp + 8 * (matrix % 2) + row_in_matrix,
                                           2 * step + matrix / 2));
#pragma unroll
      for (int j = 0; j < kBlockN / 8; j += 2) {  // matrices: w rows 8j to 8j + 7 in both chunks, then the next 8 rows
        unsigned b[4];
        load_matrices(b, swizzled_chunk(b_stage + block * kBlockN * 128, 8 * j + 8 * (matrix / 2) + row_in_matrix, 2 * step + matrix % 2));
#pragma unroll
        for (int i = 0; i < Shape::kMmas; ++i) {
          mma_32_bytes<Input>(*reinterpret_cast<float(*)[4]>(&sums[i][4 * j]), a[i][0], a[i][1], a[i][2], a[i][3], b[0], b[1]);
          mma_32_bytes<Input>(*reinterpret_cast<float(*)[4]>(&sums[i][4 * j + 4]), a[i][0], a[i][1], a[i][2], a[i][3], b[2], b[3]);
        }
      }
    }
}

}  // namespace detail

// The tile of blockIdx.x / kSplitK (kGroupM tile rows walked column by column, so that blocks running together share x
// and w in L2) of y = act(x @ w^T + bias) + residual: the bias (one per column) added in fp32 where it is not null, the sum
// rounded to bf16, the activation kActivation (0 none, 1 GELU tanh, 2 SiLU) applied and rounded, the residual added where
// it is not null. kSplitK > 1: the kSplitK blocks of a cluster (the kernel declares __cluster_dims__(kSplitK, 1, 1)) each
// multiply a kSplitK-th of K, and the first adds the others' fp32 sums through distributed shared memory and writes the
// tile: more blocks where a few tiles would leave most SMs idle (decode). kGateUp: y = silu(x @ w^T) * (x @ w_up^T), a
// block's kBlockN product columns being kBlockN / 2 rows of w then the same rows of w_up, so that a consumer thread holds
// each gate sum with its up sum; kBlockN / 2 columns of y a tile, stored from registers. Launch: grid [ceil_div(M,
// kBlockM) * ceil_div(N, kBlockN, or kBlockN / 2 with kGateUp) * kSplitK], block [128 * (kConsumers + 1)],
// TileShape::kSharedBytes of dynamic shared memory; K a multiple of 16 bytes. kStaged: the epilogue goes through shared
// memory (16-byte coalesced stores) rather than straight from registers; kSlabbed, 64 columns at a time through a staging
// area that small (a persistent 128 x 256 tile then keeps a 4-stage ring beside it). Input __nv_fp8_e4m3: x and w in fp8 e4m3 (QGMMA),
// the sums dequantised by kScale (detail::scale_sums) from row_scale (x's) and column_scale (w's) before the epilogue.
// kMulticast > 1 (TMA, kSplitK 1; the kernel declares __cluster_dims__(kMulticast, 1, 1)): the cluster's blocks take
// kMulticast consecutive tiles down M that share their weight slices; each block loads a kMulticast-th of every slice (the
// weight's tensor map has boxes of kBlockN / kMulticast rows) into all of them, so the weight crosses L2 once for the
// cluster; grid [ceil_div(M, kBlockM kMulticast) kMulticast * ceil_div(N, kBlockN)], or a multiple of kMulticast when persistent.
// kTma: map_x boxes kBlockM rows, map_w kBlockN / kMulticast; with kGateUp, map_w (gate) and map_w_up each kBlockN / 2 / kMulticast.
// kPingpong (persistent, two consumer warpgroups, TMA, no multicast): the warpgroups take the block's tiles in turn, each
// multiplying all kBlockM rows of its own tile while the other stores its last (a staging area each), instead of both
// sharing every tile and both storing it while the tensor cores wait.
template <int kBlockM, int kBlockN, int kBlockK, int kStages, int kConsumers, int kGroupM, bool kStaged, int kActivation = 0,
          int kSplitK = 1, bool kGateUp = false, typename Input = __nv_bfloat16, int kScale = 0, bool kTma = false,
          bool kPersistent = false, int kMulticast = 1, bool kWgmma = KERNELARC_WGMMA == 1, bool kPingpong = false,
          bool kSlabbed = false>
__device__ __forceinline__ void gemm_tile(const Input* __restrict__ x, const Input* __restrict__ w,
                                          const __nv_bfloat16* __restrict__ residual, __nv_bfloat16* __restrict__ y, long long m,
                                          long long n, long long k, const __nv_bfloat16* __restrict__ bias = nullptr,
                                          const Input* __restrict__ w_up = nullptr, const float* __restrict__ row_scale = nullptr,
                                          const float* __restrict__ column_scale = nullptr, const TensorMap* map_x = nullptr,
                                          const TensorMap* map_w = nullptr, const TensorMap* map_w_up = nullptr) {
  using Shape = TileShape<kBlockM, kBlockN, kBlockK, kStages, kConsumers, kStaged, kSplitK, sizeof(Input), kPersistent, kPingpong, kSlabbed>;
  static_assert(kGroupM >= 1, "kGroupM: tile rows per raster group");
  static_assert(!kGateUp || (!kStaged && kActivation == 0 && kScale == 0), "the gate-up epilogue is its own, from registers");
  static_assert(!kTma || (kBlockM <= 256 && kBlockN <= 256), "a TMA box has at most 256 rows");
  static_assert(kMulticast == 1 || ((kMulticast == 2 || kMulticast == 4) && kTma && kSplitK == 1),
                "kMulticast: 2 or 4 blocks of a cluster share each weight slice, loaded by TMA, K not split");
  static_assert(!kPingpong || (kTma && kMulticast == 1), "taking turns: TMA loads, no multicast");
  constexpr int kOutColumns = kGateUp ? kBlockN / 2 : kBlockN;  // columns of y a tile
  extern __shared__ unsigned char shared_raw[];
  const unsigned raw = shared_address(shared_raw);
  const unsigned base = (raw + 1023u) & ~1023u;  // the swizzle's atoms are 1024-byte aligned
  unsigned char* const data = shared_raw + (base - raw);
  const unsigned full = base + Shape::kDataBytes;  // kStages barriers: a stage has landed
  const unsigned empty = full + 8 * kStages;        // kStages barriers: a stage has been multiplied

  // The cluster's rank of this block: its split of K (kSplitK), or its rows of the cluster's tile (kMulticast).
  unsigned rank = 0;
  if constexpr (kSplitK > 1 || kMulticast > 1) rank = __clusterRelativeBlockRank();
  // A tile here is the kMulticast blocks' kBlockM x kMulticast rows that share one weight slice (one block's, without multicast).
  constexpr int kTileRows = kBlockM * kMulticast;
  const long long tiles_m = (m + kTileRows - 1) / kTileRows, tiles_n = (n + kOutColumns - 1) / kOutColumns;
  const long long tiles = tiles_m * tiles_n, group_tiles = kGroupM * tiles_n;
  // The first row and column of y in this block's part of tile `tile`.
  const auto origin = [&](long long tile, long long& m0, long long& n0) {
    const long long first_m = tile / group_tiles * kGroupM;
    const long long group_rows = tiles_m - first_m < kGroupM ? tiles_m - first_m : kGroupM;
    m0 = (first_m + tile % group_tiles % group_rows) * kTileRows + (kMulticast > 1 ? rank * kBlockM : 0);
    n0 = tile % group_tiles / group_rows * kOutColumns;
  };
  // A block's tiles: its cluster's, blockIdx.x / (kSplitK kMulticast); persistent, that one and every (gridDim.x /
  // kMulticast)-th after it, the cluster's blocks in step.
  const long long first_tile = blockIdx.x / (kSplitK * kMulticast);
  long long first_m0, first_n0;
  origin(first_tile, first_m0, first_n0);
  // Moves to the block's next tile (its origin into m0 and n0); false when there is none, always unless persistent.
  const auto next_tile = [&](long long& tile, long long& m0, long long& n0) {
    if constexpr (!kPersistent) return false;
    tile += gridDim.x / kMulticast;
    if (tile >= tiles) return false;
    origin(tile, m0, n0);
    return true;
  };
  // This block's share of K: k tiles [kt_begin, kt_begin + k_tiles) of its split.
  const unsigned split = kSplitK > 1 ? rank : 0;
  const long long all_k_tiles = (k + kBlockK - 1) / kBlockK, per_split = (all_k_tiles + kSplitK - 1) / kSplitK;
  const long long kt_begin = split * per_split < all_k_tiles ? split * per_split : all_k_tiles;
  const long long k_tiles = all_k_tiles - kt_begin < per_split ? all_k_tiles - kt_begin : per_split;
  const int warpgroup = threadIdx.x / 128, thread = threadIdx.x % 128;

  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      barrier_init(full + 8 * s, kTma ? 1 : 128);  // TMA: the one thread that issues; cp.async: every producer thread's copies
      // Every consumer warp of every block the stage is loaded into; taking turns, only the one warpgroup whose tile it is.
      barrier_init(empty + 8 * s, 4 * (kPingpong ? 1 : kConsumers) * kMulticast);
    }
    if constexpr (kTma) fence_barrier_init();
  }
  if constexpr (kMulticast > 1)
    cluster_sync();  // the cluster's barriers are ready before any block loads into them or arrives at them
  else
    __syncthreads();
  // A consumer warp is done with stage s: with multicast, in every block of the cluster, whose producers all load into it.
  const auto release = [&](int s) {
    if constexpr (kMulticast > 1) {
#pragma unroll
      for (unsigned r = 0; r < kMulticast; ++r) barrier_arrive_cluster(empty + 8 * s, r);
    } else {
      barrier_arrive(empty + 8 * s);
    }
  };

  if (warpgroup == 0 && kTma) {
    if constexpr (kConsumers == 2) registers_decrease<56>();
    // One thread issues every stage's boxes: each 128-byte column block of a slice is one box of 128 bytes by its rows.
    constexpr int kBoxColumns = 128 / static_cast<int>(sizeof(Input));
    // Weight rows of a box: each block of the cluster loads its share for all; with kGateUp, of the gate rows and of the up rows.
    constexpr int kSliceRows = kOutColumns / kMulticast;
    // A column block of the weight slice from `column`, rows from `row` (its part of the gate rows, then the same of up).
    const auto load_weights = [&](unsigned destination, int column, int row, unsigned barrier) {
      if constexpr (kMulticast > 1) {
        tma_load_2d_multicast(destination, *map_w, column, row, barrier, (1u << kMulticast) - 1);
        if constexpr (kGateUp)
          tma_load_2d_multicast(destination + kBlockN / 2 * 128, *map_w_up, column, row, barrier, (1u << kMulticast) - 1);
      } else {
        tma_load_2d(destination, *map_w, column, row, barrier);
        if constexpr (kGateUp) tma_load_2d(destination + kBlockN / 2 * 128, *map_w_up, column, row, barrier);
      }
    };
    if (thread == 0) {
      for (long long tile = first_tile, ring = 0, m0 = first_m0, n0 = first_n0;; ring += k_tiles) {
        for (long long kt = 0; kt < k_tiles; ++kt) {
          const long long it = ring + kt;
          const int s = static_cast<int>(it % kStages);
          if (it >= kStages) barrier_wait(empty + 8 * s, static_cast<unsigned>((it / kStages - 1) & 1));
          const unsigned stage = base + s * Shape::kStageBytes, weights = stage + kBlockM * kBlockK * sizeof(Input);
          const int k0 = static_cast<int>((kt_begin + kt) * kBlockK);
          if constexpr (kMulticast > 1) {
            // A block whose rows all lie past M loads no x (its tile's weight is still the cluster's) and expects none.
            const bool rows = m0 < m;
            barrier_expect_bytes(full + 8 * s, rows ? Shape::kStageBytes : kBlockN * kBlockK * sizeof(Input));
#pragma unroll
            for (int block = 0; block < Shape::kColumnBlocks; ++block) {
              if (rows) tma_load_2d(stage + block * kBlockM * 128, *map_x, k0 + block * kBoxColumns, static_cast<int>(m0), full + 8 * s);
              load_weights(weights + block * kBlockN * 128 + rank * kSliceRows * 128, k0 + block * kBoxColumns,
                           static_cast<int>(n0) + rank * kSliceRows, full + 8 * s);
            }
          } else {
            barrier_expect_bytes(full + 8 * s, Shape::kStageBytes);  // zeros past the edges count as bytes landed
#pragma unroll
            for (int block = 0; block < Shape::kColumnBlocks; ++block) {
              tma_load_2d(stage + block * kBlockM * 128, *map_x, k0 + block * kBoxColumns, static_cast<int>(m0), full + 8 * s);
              load_weights(weights + block * kBlockN * 128, k0 + block * kBoxColumns, static_cast<int>(n0), full + 8 * s);
            }
          }
        }
        if (!next_tile(tile, m0, n0)) break;
      }
    }
    if constexpr (kSplitK > 1) {  // the consumers' two cluster barriers: every thread of the cluster arrives at each
      cluster_sync();
      cluster_sync();
    }
  } else if (warpgroup == 0) {
    if constexpr (kConsumers == 2) registers_decrease<56>();
    for (long long tile = first_tile, ring = 0, m0 = first_m0, n0 = first_n0;; ring += k_tiles) {
      const int rows_x = static_cast<int>(m - m0 < kBlockM ? m - m0 : kBlockM);
      const int rows_w = static_cast<int>(n - n0 < kOutColumns ? n - n0 : kOutColumns);
      for (long long kt = 0; kt < k_tiles; ++kt) {
        const long long it = ring + kt;
        const int s = static_cast<int>(it % kStages);
        if (it >= kStages) barrier_wait(empty + 8 * s, static_cast<unsigned>((it / kStages - 1) & 1));
        const unsigned stage = base + s * Shape::kStageBytes;
        const long long k0 = (kt_begin + kt) * kBlockK;
        const int columns = static_cast<int>(k - k0 < kBlockK ? k - k0 : kBlockK);
        detail::load_slice<kBlockM, kBlockK>(stage, x + m0 * k + k0, rows_x, columns, k, thread);
        if constexpr (kGateUp) {  // gate rows, then the same rows of up, in each 128-byte column block of the weight slice
          const unsigned weights = stage + kBlockM * kBlockK * sizeof(Input);
          detail::load_slice<kBlockN / 2, kBlockK, kBlockN>(weights, w + n0 * k + k0, rows_w, columns, k, thread);
          detail::load_slice<kBlockN / 2, kBlockK, kBlockN>(weights + kBlockN / 2 * 128, w_up + n0 * k + k0, rows_w, columns, k,
                                                            thread);
        } else {
          detail::load_slice<kBlockN, kBlockK>(stage + kBlockM * kBlockK * sizeof(Input), w + n0 * k + k0, rows_w, columns, k,
                                               thread);
        }
        copies_arrive(full + 8 * s);
      }
      if (!next_tile(tile, m0, n0)) break;
    }
    copies_wait_all();
    if constexpr (kSplitK > 1) {  // the consumers' two cluster barriers: every thread of the cluster arrives at each
      cluster_sync();
      cluster_sync();
    }
  } else {
    if constexpr (kConsumers == 2) registers_increase<224>();
    const int consumer = warpgroup - 1, warp = thread / 32, lane = thread % 32;
    float acc[Shape::kMmas][kBlockN / 2];
    [[maybe_unused]] float tile_sums[Shape::kPromoted ? Shape::kMmas : 1][kBlockN / 2];  // one k tile's, when promoted
    // Taking turns (kPingpong): warpgroup c takes the block's tiles c, c + 2, ..., multiplying while the other stores its
    // last, so the tensor cores are busy through the epilogues. Their k loops alternate, each waiting for its turn on
    // named barrier 4 + c: the stages' full barriers are then never waited on more than one phase ahead.
    for (long long tile = first_tile, ring = 0, m0 = first_m0, n0 = first_n0;; ring += k_tiles * (kPingpong ? 2 : 1)) {
      if constexpr (kPingpong) {
        if (consumer == 1 && ring == 0) {  // its first tile is the block's second
          if (!next_tile(tile, m0, n0)) return;
          ring = k_tiles;
        }
        if (consumer == 1 || ring != 0) named_barrier(4 + consumer, 256);  // warpgroup 0 starts the block's first tile at once
      }
#pragma unroll
      for (int i = 0; i < Shape::kMmas; ++i)
#pragma unroll
        for (int j = 0; j < kBlockN / 2; ++j) acc[i][j] = 0.0f;

      for (long long kt = 0; kt < k_tiles; ++kt) {
        const long long it = ring + kt;
        const int s = static_cast<int>(it % kStages);
        barrier_wait(full + 8 * s, static_cast<unsigned>((it / kStages) & 1));
        const unsigned stage = base + s * Shape::kStageBytes;
        const unsigned a_stage = stage + consumer * Shape::kConsumerOffset * 128;
        const unsigned b_stage = stage + kBlockM * kBlockK * sizeof(Input);
        if constexpr (!kWgmma) {
          // mma.sync (a B200): the stage is read into registers, then released at once. Its fp8 sums are fp32 (HMMA after
          // an exact conversion to fp16), so they need no promotion.
          detail::multiply_stage<Shape, kBlockM, kBlockN, Input>(acc, a_stage, b_stage, warp, lane);
          __syncwarp();  // every lane's matrices are in registers: the stage may be refilled
          if (lane == 0) release(s);
        } else {
          fence_async_shared();
          wgmma_fence();
#pragma unroll
          for (int block = 0; block < Shape::kColumnBlocks; ++block)
#pragma unroll
            for (int step = 0; step < 4; ++step) {  // 32 bytes of K an instruction
              const unsigned long long b = swizzled_descriptor(b_stage + block * kBlockN * 128 + step * 32);
#pragma unroll
              for (int i = 0; i < Shape::kMmas; ++i) {
                const unsigned long long a = swizzled_descriptor(a_stage + block * kBlockM * 128 + i * 64 * 128 + step * 32);
                if constexpr (Shape::kPromoted)
                  Wgmma<kBlockN, Input>::mma(tile_sums[i], a, b, block + step > 0);
                else
                  Wgmma<kBlockN, Input>::mma(acc[i], a, b);
              }
            }
          wgmma_commit();
          if constexpr (Shape::kPromoted) {
            wgmma_wait<0>();  // this k tile's sums are whole, and its stage may be refilled
            if (lane == 0) release(s);
#pragma unroll
            for (int i = 0; i < Shape::kMmas; ++i)
#pragma unroll
              for (int j = 0; j < kBlockN / 2; ++j) acc[i][j] += tile_sums[i][j];
          } else {
            wgmma_wait<1>();  // the previous k tile's instructions are done: its stage may be refilled
            if (kt > 0 && lane == 0) release(static_cast<int>((it - 1) % kStages));
          }
        }
      }
      if constexpr (kWgmma) {
        wgmma_wait<0>();
        if constexpr (kPersistent && !Shape::kPromoted) {  // the tile's last stage, which the next tile's slices need
          if (k_tiles > 0 && lane == 0) release(static_cast<int>((ring + k_tiles - 1) % kStages));
        }
      }
      if constexpr (kPingpong) {  // the other warpgroup's turn, if the block has a next tile (its)
        if (tile + gridDim.x < tiles) named_barrier_arrive(4 + (1 - consumer), 256);
      }
      if constexpr (kSplitK > 1) {
        if (!detail::add_the_splits<Shape, kBlockN, kConsumers, kSplitK>(acc, data, rank, m - m0)) return;
      }

      // Fragment of m64nNk16: register 4j + 2h + c of a thread is row 16 * warp + lane / 4 + 8h, column 8j + 2 (lane % 4) + c.
      const int row_in_mma = 16 * warp + lane / 4, column_in_8 = 2 * (lane % 4);
      if constexpr (kScale != 0)
        detail::scale_sums<Shape::kMmas, kBlockN, kScale>(acc, row_scale, column_scale, m0 + consumer * Shape::kConsumerOffset + row_in_mma,
                                                          n0 + column_in_8, m, n);
      if constexpr (kGateUp) {
        const bool pairs = n % 2 == 0;
        constexpr int kUp = kBlockN / 16;  // the up sum of a gate sum in register 4j + 2h + c is in register 4 (j + kUp) + 2h + c
#pragma unroll
        for (int i = 0; i < Shape::kMmas; ++i)
#pragma unroll
          for (int j = 0; j < kUp; ++j)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
              const long long row = m0 + consumer * Shape::kConsumerOffset + i * 64 + row_in_mma + 8 * h, column = n0 + 8 * j + column_in_8;
              if (row >= m) continue;
              const long long at = row * n + column;
              const __nv_bfloat16 out0 = detail::swiglu(acc[i][4 * j + 2 * h], acc[i][4 * (j + kUp) + 2 * h]);
              const __nv_bfloat16 out1 = detail::swiglu(acc[i][4 * j + 2 * h + 1], acc[i][4 * (j + kUp) + 2 * h + 1]);
              if (pairs && column + 1 < n) {
                *reinterpret_cast<__nv_bfloat162*>(y + at) = __halves2bfloat162(out0, out1);
              } else {
                if (column < n) y[at] = out0;
                if (column + 1 < n) y[at + 1] = out1;
              }
            }
      } else if constexpr (!kStaged) {
        const bool pairs = n % 2 == 0;
#pragma unroll
        for (int i = 0; i < Shape::kMmas; ++i)
#pragma unroll
          for (int j = 0; j < kBlockN / 8; ++j)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
              const long long row = m0 + consumer * Shape::kConsumerOffset + i * 64 + row_in_mma + 8 * h, column = n0 + 8 * j + column_in_8;
              if (row >= m) continue;
              const long long at = row * n + column;
              // Only with a bias: an add of 0.0f, which the compiler must keep (-0 becomes +0), made ptxas serialise the wgmma.
              const float v0 = bias ? acc[i][4 * j + 2 * h] + detail::bias_of(bias, column, n) : acc[i][4 * j + 2 * h];
              const float v1 = bias ? acc[i][4 * j + 2 * h + 1] + detail::bias_of(bias, column + 1, n) : acc[i][4 * j + 2 * h + 1];
              if (pairs && column + 1 < n) {
                __nv_bfloat162 out;
                out.x = detail::finish<kActivation>(v0, residual, at);
                out.y = detail::finish<kActivation>(v1, residual, at + 1);
                *reinterpret_cast<__nv_bfloat162*>(y + at) = out;
              } else {
                if (column < n) y[at] = detail::finish<kActivation>(v0, residual, at);
                if (column + 1 < n) y[at + 1] = detail::finish<kActivation>(v1, residual, at + 1);
              }
            }
      } else {
        // The threads that store the tile: both consumer warpgroups, or, taking turns, the one whose tile it is.
        constexpr unsigned kStoreThreads = kPingpong ? 128 : 128 * kConsumers;
        const unsigned store_barrier = kPingpong ? 2 + consumer : 1;
        __nv_bfloat16* const staging = reinterpret_cast<__nv_bfloat16*>(
            data + (kPersistent ? Shape::kRingBytes : 0) + (kPingpong ? consumer * kBlockM * Shape::kStagingPitch * 2 : 0));
        if constexpr (kSlabbed) {  // the tile kSlab columns at a time through a staging area of that width
          constexpr int kSlab = Shape::kStagingColumns;
          const bool vectors = n % 8 == 0 && reinterpret_cast<unsigned long long>(y) % 16 == 0 &&
                               reinterpret_cast<unsigned long long>(residual) % 16 == 0;
          const int first = kPingpong ? thread : threadIdx.x - 128;
#pragma unroll 1
          for (int slab = 0; slab < kBlockN / kSlab; ++slab) {
            named_barrier(store_barrier, kStoreThreads);  // the ring, the last tile's staging or the last slab is read
#pragma unroll
            for (int i = 0; i < Shape::kMmas; ++i)
#pragma unroll
              for (int j = 0; j < kBlockN / 8; ++j)  // every j, so that each register's index is known at compile time
#pragma unroll
                for (int h = 0; h < 2; ++h) {
                  if (j / (kSlab / 8) != slab) continue;
                  const int row = consumer * Shape::kConsumerOffset + i * 64 + row_in_mma + 8 * h, column = 8 * j + column_in_8;
                  const float v0 = acc[i][4 * j + 2 * h], v1 = acc[i][4 * j + 2 * h + 1];
                  *reinterpret_cast<__nv_bfloat162*>(staging + row * Shape::kStagingPitch + column - slab * kSlab) =
                      bias ? __floats2bfloat162_rn(v0 + detail::bias_of(bias, n0 + column, n), v1 + detail::bias_of(bias, n0 + column + 1, n))
                           : __floats2bfloat162_rn(v0, v1);
                }
            named_barrier(store_barrier, kStoreThreads);
            for (int chunk = first; chunk < kBlockM * kSlab / 8; chunk += kStoreThreads) {
              const int row = chunk / (kSlab / 8), column = chunk % (kSlab / 8) * 8;
              const long long r = m0 + row, c = n0 + slab * kSlab + column;
              if (r >= m) continue;
              detail::store_staged<kActivation>(*reinterpret_cast<const uint4*>(staging + row * Shape::kStagingPitch + column), y,
                                                residual, r * n + c, c, n, vectors);
            }
          }
        } else {  // the whole tile at once (written out, not through store_staged: its SASS is what was measured)
          named_barrier(store_barrier, kStoreThreads);  // every warpgroup is done with the ring (persistent: the last tile's staging) first
#pragma unroll
          for (int i = 0; i < Shape::kMmas; ++i)
#pragma unroll
            for (int j = 0; j < kBlockN / 8; ++j)
#pragma unroll
              for (int h = 0; h < 2; ++h) {
                const int row = consumer * Shape::kConsumerOffset + i * 64 + row_in_mma + 8 * h, column = 8 * j + column_in_8;
                const float v0 = acc[i][4 * j + 2 * h], v1 = acc[i][4 * j + 2 * h + 1];  // the bias only where there is one, as above
                *reinterpret_cast<__nv_bfloat162*>(staging + row * Shape::kStagingPitch + column) =
                    bias ? __floats2bfloat162_rn(v0 + detail::bias_of(bias, n0 + column, n), v1 + detail::bias_of(bias, n0 + column + 1, n))
                         : __floats2bfloat162_rn(v0, v1);
              }
          named_barrier(store_barrier, kStoreThreads);
          const bool vectors = n % 8 == 0 && reinterpret_cast<unsigned long long>(y) % 16 == 0 &&
                               reinterpret_cast<unsigned long long>(residual) % 16 == 0;
          const int first = kPingpong ? thread : threadIdx.x - 128;
          for (int chunk = first; chunk < kBlockM * kBlockN / 8; chunk += kStoreThreads) {
            const int row = chunk / (kBlockN / 8), column = chunk % (kBlockN / 8) * 8;
            const long long r = m0 + row, c = n0 + column;
            if (r >= m) continue;
            const uint4 packed = *reinterpret_cast<const uint4*>(staging + row * Shape::kStagingPitch + column);
            const __nv_bfloat16* const product = reinterpret_cast<const __nv_bfloat16*>(&packed);
            const long long at = r * n + c;
            if (vectors && c + 8 <= n) {
              uint4 out = packed;
              if (residual || kActivation != 0) {
                const uint4 added = residual ? *reinterpret_cast<const uint4*>(residual + at) : uint4{};
                __nv_bfloat16* const o = reinterpret_cast<__nv_bfloat16*>(&out);
                const __nv_bfloat16* const a = reinterpret_cast<const __nv_bfloat16*>(&added);
#pragma unroll
                for (int e = 0; e < 8; ++e) o[e] = detail::after_rounding<kActivation>(product[e], residual ? a : nullptr, e);
              }
              *reinterpret_cast<uint4*>(y + at) = out;
            } else {
#pragma unroll
              for (int e = 0; e < 8; ++e)
                if (c + e < n) y[at + e] = detail::after_rounding<kActivation>(product[e], residual, at + e);
            }
          }
        }
      }
      if (!next_tile(tile, m0, n0)) break;
      if constexpr (kPingpong) {
        if (!next_tile(tile, m0, n0)) break;  // that one was the other warpgroup's
      }
    }
  }
  // With multicast no block leaves while the cluster's others may still arrive at its barriers.
  if constexpr (kMulticast > 1) cluster_sync();
}

// ---- decode: few rows of x, the weight streamed once ----

namespace detail {

// 16 bytes the kernel reads once (the weight): not kept in L1, where x's rows are read again by every warp.
__device__ __forceinline__ uint4 load_streamed(const void* from) {
  uint4 v;
  asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(from));
  return v;
}

}  // namespace detail

// y = act(x @ w^T + bias) + residual (Input bf16), or (x @ w^T) dequantised by kScale as detail::scale_sums does (fp8
// e4m3), for M of at most 16 kMTiles (decode), where the weight's bytes decide the time. A block of any number of warps
// takes 8 kNTiles rows of w at a time (the blockIdx.x-th slice, then every gridDim.x-th after it), its warps splitting K
// in 64-byte chunks, each warp keeping kDepth 8 / (kNTiles kMTiles) chunks of every row in flight (ld.global.nc) and
// multiplying them on the tensor cores (mma.sync: x's rows 16 a tile, padded with zeros; fp8's sums added to fp32 totals
// after each instruction, as gemm_tile promotes them); the warps' sums are added through shared memory (512 bytes a warp
// for each of the kMTiles x kNTiles fragments), then stored, rounded as gemm_tile's register epilogue rounds. Each thread reads 16 consecutive bytes of K from a row of x
// and of w: a permutation of K that both operands share, which a dot product does not see. K a multiple of 16 bytes.
// Launch: grid [ceil_div(N, 8 kNTiles)] (a slice a block), fewer (a block walks several), or more (the others return); any
// block of whole warps.
template <int kMTiles, int kNTiles, int kDepth = 1, int kActivation = 0, typename Input = __nv_bfloat16, int kScale = 0>
__device__ __forceinline__ void decode_rows(const Input* __restrict__ x, const Input* __restrict__ w,
                                            const __nv_bfloat16* __restrict__ residual, __nv_bfloat16* __restrict__ y, long long m,
                                            long long n, long long k, const __nv_bfloat16* __restrict__ bias = nullptr,
                                            const float* __restrict__ row_scale = nullptr,
                                            const float* __restrict__ column_scale = nullptr) {
  static_assert(kMTiles == 1 || kMTiles == 2, "16 or 32 rows of x at most");
  static_assert(kNTiles == 1 || kNTiles == 2 || kNTiles == 4, "8, 16 or 32 rows of w a block");
  static_assert(kScale >= 0 && kScale <= 2, "kScale: 0 none, 1 per tensor, 2 per row");
  static_assert(kDepth == 1 || kDepth == 2 || kDepth == 4, "kDepth: 1, 2 or 4 times the chunks in flight");
  // 64-byte chunks a warp loads before it multiplies: kDepth 8 x 16 bytes of w in flight a thread, half for 32 rows of x.
  constexpr int kUnroll = (8 / kNTiles / kMTiles > 0 ? 8 / kNTiles / kMTiles : 1) * kDepth;
  constexpr bool kPromoted = sizeof(Input) == 1;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  const int g = lane / 4, t = lane % 4;
  const long long row_bytes = k * static_cast<long long>(sizeof(Input)), chunks = (row_bytes + 63) / 64;
  const unsigned char* const x_bytes = reinterpret_cast<const unsigned char*>(x);
  // Fragment value e of (i, j) of lane l at sums[(warp, (i kNTiles + j) 4 + e) * 32 + l]: a warp writes 128 bytes at a time.
  extern __shared__ unsigned char shared_raw[];
  float* const sums = reinterpret_cast<float*>(shared_raw);
  constexpr int kValues = kMTiles * kNTiles * 4;
  // A block past the last slice returns at once: a grid rounded up to a multiple of the cluster.
  for (long long n0 = blockIdx.x * 8ll * kNTiles; n0 < n; n0 += gridDim.x * 8ll * kNTiles) {
    float c[kMTiles][kNTiles][4] = {};
    const unsigned char* w_row[kNTiles];
    bool w_inside[kNTiles];
#pragma unroll
    for (int j = 0; j < kNTiles; ++j) {
      const long long row = n0 + 8 * j + g;
      w_inside[j] = row < n;
      w_row[j] = reinterpret_cast<const unsigned char*>(w) + (w_inside[j] ? row : 0) * row_bytes + 16 * t;
    }
    for (long long first = warp; first < chunks; first += static_cast<long long>(warps) * kUnroll) {
      uint4 b[kUnroll][kNTiles];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const long long at = (first + static_cast<long long>(u) * warps) * 64;  // this thread's 16 bytes: at + 16t ...
        const bool inside = at + 16 * t < row_bytes;
#pragma unroll
        for (int j = 0; j < kNTiles; ++j) b[u][j] = inside && w_inside[j] ? detail::load_streamed(w_row[j] + at) : uint4{};
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const long long at = (first + static_cast<long long>(u) * warps) * 64 + 16 * t;
#pragma unroll
        for (int i = 0; i < kMTiles; ++i) {
          const long long low = 16 * i + g, high = low + 8;
          const uint4 a_low = at < row_bytes && low < m ? *reinterpret_cast<const uint4*>(x_bytes + low * row_bytes + at) : uint4{};
          const uint4 a_high = at < row_bytes && high < m ? *reinterpret_cast<const uint4*>(x_bytes + high * row_bytes + at) : uint4{};
#pragma unroll
          for (int j = 0; j < kNTiles; ++j) {
            float part[2][4] = {};
            float (&first_half)[4] = kPromoted ? part[0] : c[i][j];
            float (&second_half)[4] = kPromoted ? part[1] : c[i][j];
            detail::mma_32_bytes<Input>(first_half, a_low.x, a_high.x, a_low.y, a_high.y, b[u][j].x, b[u][j].y);  // bytes 0-7 of the 16
            detail::mma_32_bytes<Input>(second_half, a_low.z, a_high.z, a_low.w, a_high.w, b[u][j].z, b[u][j].w);  // bytes 8-15
            if constexpr (kPromoted) {
#pragma unroll
              for (int e = 0; e < 4; ++e) c[i][j][e] += part[0][e] + part[1][e];
            }
          }
        }
      }
    }
#pragma unroll
    for (int i = 0; i < kMTiles; ++i)
#pragma unroll
      for (int j = 0; j < kNTiles; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) sums[(warp * kValues + (i * kNTiles + j) * 4 + e) * 32 + lane] = c[i][j][e];
    __syncthreads();
    for (int value = threadIdx.x; value < kValues * 32; value += blockDim.x) {
      const int l = value % 32, e = value / 32 % 4, j = value / 128 % kNTiles, i = value / (128 * kNTiles);
      const long long row = 16 * i + l / 4 + 8 * (e / 2), column = n0 + 8 * j + 2 * (l % 4) + e % 2;
      if (row >= m || column >= n) continue;
      float sum = 0.0f;
      for (int from = 0; from < warps; ++from) sum += sums[from * kValues * 32 + value];
      if constexpr (kScale == 1) sum *= row_scale[0] * column_scale[0];
      if constexpr (kScale == 2) sum = sum * column_scale[column] * row_scale[row];
      const long long at = row * n + column;
      y[at] = detail::finish<kActivation>(bias ? sum + detail::bias_of(bias, column, n) : sum, residual, at);
    }
    __syncthreads();  // every sum read before the next slice's are written
  }
}

}  // namespace kernelarc::sm90

#endif  // KERNELARC_GEMM_SM90_CUH
