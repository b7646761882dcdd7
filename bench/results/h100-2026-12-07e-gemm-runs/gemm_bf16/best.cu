// KernelArc export of task gemm_bf16, run 1 (run on cuda:0), candidate 4: gemm_bf16.tma_cuda.composed.BM128_BN128_CONSUMERS2_DECODE_M16_DECODE_TILES2_DECODE_WARPS4_EPILOGUE1_GROUP_M8_PERSISTENT1_STAGES5_upto373293056.BM64_BN64_CONSUMERS1_DECODE_M32_DECODE_TILES4_DECODE_WARPS8_EPILOGUE0_GROUP_M1_PERSISTENT1_STAGES5_upto1426063360.BM128_BN128_CONSUMERS2_DECODE_M32_DECODE_TILES1_DECODE_WARPS4_EPILOGUE1_GROUP_M8_PERSISTENT1_STAGES5_upto28486926336.BM128_BN256_CONSUMERS2_DECODE_M0_DECODE_TILES2_DECODE_WARPS4_EPILOGUE1_GROUP_M8_PERSISTENT0_STAGES4
// Template tma_cuda (kernel-only form); proposed by specialise: composed by shape class: BK=64 BM=128 BN=128 CONSUMERS=2 DECODE_DEPTH=1 DECODE_M=16 DECODE_PREFETCH=0 DECODE_SM_BLOCKS=0 DECODE_TILES=2 DECODE_WARPS=4 EPILOGUE=1 GROUP_M=8 MMA=0 MULTICAST=1 PERSISTENT=1 SPLIT_K=1 STAGES=5 (5 workloads, sizes up to 373293056); BK=64 BM=64 BN=64 CONSUMERS=1 DECODE_DEPTH=1 DECODE_M=32 DECODE_PREFETCH=0 DECODE_SM_BLOCKS=0 DECODE_TILES=4 DECODE_WARPS=8 EPILOGUE=0 GROUP_M=1 MMA=0 MULTICAST=1 PERSISTENT=1 SPLIT_K=1 STAGES=5 (3 workloads, sizes up to 1426063360); BK=64 BM=128 BN=128 CONSUMERS=2 DECODE_DEPTH=1 DECODE_M=32 DECODE_PREFETCH=0 DECODE_SM_BLOCKS=0 DECODE_TILES=1 DECODE_WARPS=4 EPILOGUE=1 GROUP_M=8 MMA=0 MULTICAST=1 PERSISTENT=1 SPLIT_K=1 STAGES=5 (6 workloads, sizes up to 28486926336); BK=64 BM=128 BN=256 CONSUMERS=2 DECODE_DEPTH=1 DECODE_M=0 DECODE_PREFETCH=0 DECODE_SM_BLOCKS=0 DECODE_TILES=2 DECODE_WARPS=4 EPILOGUE=1 GROUP_M=8 MMA=0 MULTICAST=1 PERSISTENT=0 SPLIT_K=1 STAGES=4 (13 workloads, the rest); measured apart, 116.36 us against the best single configuration's 122.70 us.
// Judged 2026-12-07T11:43:11.983Z; exported 2026-12-07T11:43:52Z.
// Measured: 116.228 us, the geometric mean of the median times of 27 visible workloads; all 28 workloads judged PASSED (1 held out).
//   gemm_bf16-1x4096x4096               17.249 us
//   gemm_bf16-1x14336x4096              50.913 us
//   gemm_bf16-1x4096x14336              50.193 us
//   gemm_bf16-4x2560x2560               10.209 us
//   gemm_bf16-8x5120x5120               24.209 us
//   gemm_bf16-16x8192x8192              56.913 us
//   gemm_bf16-16x14336x5120             64.498 us
//   gemm_bf16-32x4096x4096              21.793 us
//   gemm_bf16-64x18944x3584             71.234 us
//   gemm_bf16-128x3584x18944           100.834 us
//   gemm_bf16-128x4096x4096             29.632 us
//   gemm_bf16-256x2560x2560             16.784 us
//   gemm_bf16-512x14336x4096            97.266 us
//   gemm_bf16-586x2560x2560             18.097 us
//   gemm_bf16-1024x4096x14336          152.067 us
//   gemm_bf16-1571x5120x5120           116.818 us
//   gemm_bf16-2048x8192x8192           349.383 us
//   gemm_bf16-2048x5120x14336          437.272 us
//   gemm_bf16-4096x4096x4096           187.523 us
//   gemm_bf16-4096x14336x4096          642.940 us
//   gemm_bf16-4106x2560x2560            84.353 us
//   gemm_bf16-7976x2560x2560           153.603 us
//   gemm_bf16-8192x8192x8192             1.422 ms
//   gemm_bf16-8192x3584x18944            1.398 ms
//   gemm_bf16-8192x18944x3584            1.482 ms
//   gemm_bf16-16384x4096x4096          740.622 us
//   gemm_bf16-16384x5120x5120            1.144 ms
// Part 0 of 4: BK=64 BM=128 BN=128 CONSUMERS=2 DECODE_DEPTH=1 DECODE_M=16 DECODE_PREFETCH=0 DECODE_SM_BLOCKS=0 DECODE_TILES=2 DECODE_WARPS=4 EPILOGUE=1 GROUP_M=8 MMA=0 MULTICAST=1 PERSISTENT=1 SPLIT_K=1 STAGES=5; calls whose size (the product of the var axes) is at most 373293056.
// Part 1 of 4: BK=64 BM=64 BN=64 CONSUMERS=1 DECODE_DEPTH=1 DECODE_M=32 DECODE_PREFETCH=0 DECODE_SM_BLOCKS=0 DECODE_TILES=4 DECODE_WARPS=8 EPILOGUE=0 GROUP_M=1 MMA=0 MULTICAST=1 PERSISTENT=1 SPLIT_K=1 STAGES=5; calls whose size (the product of the var axes) is at most 1426063360.
// Part 2 of 4: BK=64 BM=128 BN=128 CONSUMERS=2 DECODE_DEPTH=1 DECODE_M=32 DECODE_PREFETCH=0 DECODE_SM_BLOCKS=0 DECODE_TILES=1 DECODE_WARPS=4 EPILOGUE=1 GROUP_M=8 MMA=0 MULTICAST=1 PERSISTENT=1 SPLIT_K=1 STAGES=5; calls whose size (the product of the var axes) is at most 28486926336.
// Part 3 of 4: BK=64 BM=128 BN=256 CONSUMERS=2 DECODE_DEPTH=1 DECODE_M=0 DECODE_PREFETCH=0 DECODE_SM_BLOCKS=0 DECODE_TILES=2 DECODE_WARPS=4 EPILOGUE=1 GROUP_M=8 MMA=0 MULTICAST=1 PERSISTENT=0 SPLIT_K=1 STAGES=4; calls whose size (the product of the var axes) is above the other parts'.
// Build: nvcc -std=c++17 -O3 -shared -Xcompiler -fPIC -arch=sm_90a FILE.cu -o candidate.so (the judge's flags; needs dlpack/dlpack.h).
// Entry point kernelarc_run (candidate ABI, inlined below): inputs x, weight; outputs y; the CUDA stream to launch on.
// Kernel-only candidate: the host launcher at the end was generated from template tma_cuda's launch geometry.

// 4 configurations of template tma_cuda of task gemm_bf16, composed by KernelArc: each takes the workloads whose size
// (the product of the var axes) is at most its bound.
/* ---- include/kernelarc/gemm_sm90.cuh (inlined by kernelarc export) ---- */
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
#define KERNELARC_WGMMA_64(INSTRUCTION, TAIL) \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n" INSTRUCTION " {" \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15," \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31" \
  "}, %32, %33, p" TAIL ";\n}\n" \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]) \
      : "l"(a), "l"(b), "r"(scale_d) \
      : "memory")
#define KERNELARC_WGMMA_128(INSTRUCTION, TAIL) \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n" INSTRUCTION " {" \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15," \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31," \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47," \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63" \
  "}, %64, %65, p" TAIL ";\n}\n" \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]) \
      : "l"(a), "l"(b), "r"(scale_d) \
      : "memory")
#define KERNELARC_WGMMA_256(INSTRUCTION, TAIL) \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n" INSTRUCTION " {" \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15," \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31," \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47," \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63," \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79," \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95," \
  "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111," \
  "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127" \
  "}, %128, %129, p" TAIL ";\n}\n" \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), \
  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
  "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), \
  "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), \
  "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), \
  "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), \
  "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), \
  "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127]) \
      : "l"(a), "l"(b), "r"(scale_d) \
      : "memory")

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
#undef KERNELARC_WGMMA_256

// ---- one tile of y = act(x @ w^T + bias) + residual ----

// A tile's shape and the shared memory it needs, from the template's knobs. The ring: kStages stages, each the
// kBlockM x kBlockK slice of x then the kBlockN x kBlockK slice of w, each as column blocks of 128-byte swizzled rows
// (64 bf16 or 128 fp8 a row: kInputBytes a value).
template <int kBlockM, int kBlockN, int kBlockK, int kStages, int kConsumers, bool kStaged, int kSplitK = 1, int kInputBytes = 2,
          bool kPersistent = false>
struct TileShape {
  static constexpr int kThreads = 128 * (kConsumers + 1);  // warpgroup 0 loads, warpgroups 1.. multiply
  static constexpr int kConsumerRows = kBlockM / kConsumers;    // rows of the tile one consumer warpgroup owns
  static constexpr int kMmas = kConsumerRows / 64;         // m64 instructions per k16 step and warpgroup
  static constexpr int kAccumulators = kMmas * kBlockN / 2;     // fp32 registers a consumer thread holds
  static constexpr int kStageBytes = (kBlockM + kBlockN) * kBlockK * kInputBytes;
  static constexpr int kColumnBlocks = kBlockK * kInputBytes / 128;  // 128-byte rows a slice's row spans
  static constexpr int kStagingPitch = kBlockN + 8;             // bf16 a row of the epilogue's tile: conflict-free writes
  static constexpr int kStagingBytes = kStaged ? kBlockM * kStagingPitch * 2 : 0;
  static constexpr int kPartialBytes = kSplitK > 1 ? kBlockM * kBlockN * 4 : 0;  // a split's fp32 sums, for the cluster's first block
  static constexpr int kRingBytes = kStages * kStageBytes;
  // The epilogue's tile reuses the ring, unless the block is persistent: then the producer is filling the ring with the
  // next tile's slices meanwhile, and the staging follows the ring.
  static constexpr int kDataBytes = kPersistent ? kRingBytes + kStagingBytes
                                    : kRingBytes > kStagingBytes ? (kRingBytes > kPartialBytes ? kRingBytes : kPartialBytes)
                                                                 : (kStagingBytes > kPartialBytes ? kStagingBytes : kPartialBytes);
  // What the launch rule must give: the data, its 1024-byte alignment, and the barriers after it.
  static constexpr int kSharedBytes = kDataBytes + 1024 + 16 * kStages;

  static_assert(kBlockM % 64 == 0 && kBlockN % 64 == 0, "kBlockM, kBlockN: multiples of 64");
  static_assert(kBlockK * kInputBytes % 128 == 0, "kBlockK: whole 128-byte rows (a multiple of 64 bf16 or 128 fp8)");
  static_assert(kConsumers == 1 || kConsumers == 2, "one or two consumer warpgroups");
  static_assert(kConsumerRows % 64 == 0, "each consumer warpgroup owns a multiple of 64 rows");
  static_assert(kBlockN == 64 || kBlockN == 128 || kBlockN == 256, "kBlockN: 64, 128 or 256 (one wgmma spans the tile's columns)");
  static_assert(kAccumulators <= 128, "at most 128 accumulators a thread");
  // fp8's wgmma keeps only about 14 bits of its running sum, so each k tile's sums start from zero in a second set of
  // registers and are added to the fp32 totals by the consumer threads (as torch._scaled_mm's default does).
  static constexpr bool kPromoted = kInputBytes == 1;
  static_assert(!kPromoted || kAccumulators <= 64, "fp8: at most 64 accumulators a thread (twice that in registers, promoted)");
  static_assert(kStages >= 2, "two stages at least: one filling while one is multiplied");
  static_assert(kSplitK == 1 || kSplitK == 2 || kSplitK == 4 || kSplitK == 8, "kSplitK: 1, 2, 4 or 8 blocks of a cluster (portable)");
  static_assert(!kPersistent || kSplitK == 1, "a persistent block walks whole tiles (split-K's clusters end with their tile)");
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
// sums in its shared memory (register r of consumer thread t at r * threads + t, so that a warp reads 128 bytes at a
// time), and the first adds them to its own through distributed shared memory; only the sums of the tile's first `rows`
// rows, the ones y has (a decode tile's other rows would be most of the traffic). True for the first block, which goes
// on to the epilogue; the others are done once the first has read them (the second barrier).
template <typename Shape, int kBlockN, int kConsumers, int kSplitK, typename Accumulators>
__device__ __forceinline__ bool add_the_splits(Accumulators& acc, unsigned char* data, unsigned rank, long long rows) {
  constexpr int kThreads = 128 * kConsumers, kColumns = kBlockN / 2;
  const int me = threadIdx.x - 128, t = me % 128;
  // Register 4j + 2h + c of an m64 fragment is row 16 * warp + lane / 4 + 8h of it (gemm_tile's epilogue says the same).
  const int first_row = me / 128 * Shape::kConsumerRows + 16 * (t / 32) + t % 32 / 4;
  const auto used = [&](int i, int j) { return first_row + i * 64 + 8 * (j / 2 % 2) < rows; };
  float* const partial = reinterpret_cast<float*>(data);
  named_barrier(1, kThreads);  // every consumer warpgroup is done with the ring before it is overwritten
  if (rank != 0) {
#pragma unroll
    for (int i = 0; i < Shape::kMmas; ++i)
#pragma unroll
      for (int j = 0; j < kColumns; ++j)
        if (used(i, j)) partial[(i * kColumns + j) * kThreads + me] = acc[i][j];
  }
  cluster_sync();
  if (rank == 0) {
    for (unsigned other = 1; other < kSplitK; ++other) {
      const float* const theirs = static_cast<const float*>(__cluster_map_shared_rank(static_cast<void*>(partial), other));
#pragma unroll
      for (int i = 0; i < Shape::kMmas; ++i)
#pragma unroll
        for (int j = 0; j < kColumns; ++j)
          if (used(i, j)) acc[i][j] += theirs[(i * kColumns + j) * kThreads + me];
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
// memory (16-byte coalesced stores) rather than straight from registers. Input __nv_fp8_e4m3: x and w in fp8 e4m3 (QGMMA),
// the sums dequantised by kScale (detail::scale_sums) from row_scale (x's) and column_scale (w's) before the epilogue.
// kMulticast > 1 (TMA, kSplitK 1; the kernel declares __cluster_dims__(kMulticast, 1, 1)): the cluster's blocks take
// kMulticast consecutive tiles down M that share their weight slices; each block loads a kMulticast-th of every slice (the
// weight's tensor map has boxes of kBlockN / kMulticast rows) into all of them, so the weight crosses L2 once for the
// cluster; grid [ceil_div(M, kBlockM kMulticast) kMulticast * ceil_div(N, kBlockN)], or a multiple of kMulticast when persistent.
// kTma: map_x boxes kBlockM rows, map_w kBlockN / kMulticast; with kGateUp, map_w (gate) and map_w_up each kBlockN / 2 / kMulticast.
template <int kBlockM, int kBlockN, int kBlockK, int kStages, int kConsumers, int kGroupM, bool kStaged, int kActivation = 0,
          int kSplitK = 1, bool kGateUp = false, typename Input = __nv_bfloat16, int kScale = 0, bool kTma = false,
          bool kPersistent = false, int kMulticast = 1, bool kWgmma = KERNELARC_WGMMA == 1>
__device__ __forceinline__ void gemm_tile(const Input* __restrict__ x, const Input* __restrict__ w,
                                          const __nv_bfloat16* __restrict__ residual, __nv_bfloat16* __restrict__ y, long long m,
                                          long long n, long long k, const __nv_bfloat16* __restrict__ bias = nullptr,
                                          const Input* __restrict__ w_up = nullptr, const float* __restrict__ row_scale = nullptr,
                                          const float* __restrict__ column_scale = nullptr, const TensorMap* map_x = nullptr,
                                          const TensorMap* map_w = nullptr, const TensorMap* map_w_up = nullptr) {
  using Shape = TileShape<kBlockM, kBlockN, kBlockK, kStages, kConsumers, kStaged, kSplitK, sizeof(Input), kPersistent>;
  static_assert(kGroupM >= 1, "kGroupM: tile rows per raster group");
  static_assert(!kGateUp || (!kStaged && kActivation == 0 && kScale == 0), "the gate-up epilogue is its own, from registers");
  static_assert(!kTma || (kBlockM <= 256 && kBlockN <= 256), "a TMA box has at most 256 rows");
  static_assert(kMulticast == 1 || ((kMulticast == 2 || kMulticast == 4) && kTma && kSplitK == 1),
                "kMulticast: 2 or 4 blocks of a cluster share each weight slice, loaded by TMA, K not split");
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
      barrier_init(empty + 8 * s, 4 * kConsumers * kMulticast);  // every consumer warp of every block the stage is loaded into
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
    for (long long tile = first_tile, ring = 0, m0 = first_m0, n0 = first_n0;; ring += k_tiles) {
#pragma unroll
      for (int i = 0; i < Shape::kMmas; ++i)
#pragma unroll
        for (int j = 0; j < kBlockN / 2; ++j) acc[i][j] = 0.0f;

      for (long long kt = 0; kt < k_tiles; ++kt) {
        const long long it = ring + kt;
        const int s = static_cast<int>(it % kStages);
        barrier_wait(full + 8 * s, static_cast<unsigned>((it / kStages) & 1));
        const unsigned stage = base + s * Shape::kStageBytes;
        const unsigned a_stage = stage + consumer * Shape::kConsumerRows * 128, b_stage = stage + kBlockM * kBlockK * sizeof(Input);
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
      if constexpr (kSplitK > 1) {
        if (!detail::add_the_splits<Shape, kBlockN, kConsumers, kSplitK>(acc, data, rank, m - m0)) return;
      }

      // Fragment of m64nNk16: register 4j + 2h + c of a thread is row 16 * warp + lane / 4 + 8h, column 8j + 2 (lane % 4) + c.
      const int row_in_mma = 16 * warp + lane / 4, column_in_8 = 2 * (lane % 4);
      if constexpr (kScale != 0)
        detail::scale_sums<Shape::kMmas, kBlockN, kScale>(acc, row_scale, column_scale, m0 + consumer * Shape::kConsumerRows + row_in_mma,
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
              const long long row = m0 + consumer * Shape::kConsumerRows + i * 64 + row_in_mma + 8 * h, column = n0 + 8 * j + column_in_8;
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
              const long long row = m0 + consumer * Shape::kConsumerRows + i * 64 + row_in_mma + 8 * h, column = n0 + 8 * j + column_in_8;
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
        constexpr unsigned kConsumerThreads = 128 * kConsumers;
        __nv_bfloat16* const staging = reinterpret_cast<__nv_bfloat16*>(data + (kPersistent ? Shape::kRingBytes : 0));
        named_barrier(1, kConsumerThreads);  // every warpgroup is done with the ring (persistent: the last tile's staging) first
#pragma unroll
        for (int i = 0; i < Shape::kMmas; ++i)
#pragma unroll
          for (int j = 0; j < kBlockN / 8; ++j)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
              const int row = consumer * Shape::kConsumerRows + i * 64 + row_in_mma + 8 * h, column = 8 * j + column_in_8;
              const float v0 = acc[i][4 * j + 2 * h], v1 = acc[i][4 * j + 2 * h + 1];  // the bias only where there is one, as above
              *reinterpret_cast<__nv_bfloat162*>(staging + row * Shape::kStagingPitch + column) =
                  bias ? __floats2bfloat162_rn(v0 + detail::bias_of(bias, n0 + column, n), v1 + detail::bias_of(bias, n0 + column + 1, n))
                       : __floats2bfloat162_rn(v0, v1);
            }
        named_barrier(1, kConsumerThreads);
        const bool vectors = n % 8 == 0 && reinterpret_cast<unsigned long long>(y) % 16 == 0 &&
                             reinterpret_cast<unsigned long long>(residual) % 16 == 0;
        const int first = threadIdx.x - 128;
        for (int chunk = first; chunk < kBlockM * kBlockN / 8; chunk += kConsumerThreads) {
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
      if (!next_tile(tile, m0, n0)) break;
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
// in 64-byte chunks, each warp keeping kDepth 8 / (kNTiles kMTiles) chunks of every row in flight (ld.global.nc; with
// kPrefetch the next round's too, while it multiplies this one's) and multiplying them on the tensor cores (mma.sync: x's rows 16 a tile, padded with zeros; fp8's sums added to fp32 totals
// after each instruction, as gemm_tile promotes them); the warps' sums are added through shared memory (512 bytes a warp
// for each of the kMTiles x kNTiles fragments), then stored, rounded as gemm_tile's register epilogue rounds. Each thread reads 16 consecutive bytes of K from a row of x
// and of w: a permutation of K that both operands share, which a dot product does not see. K a multiple of 16 bytes.
// Launch: grid [ceil_div(N, 8 kNTiles)] (a slice a block), fewer (a block walks several), or more (the others return); any
// block of whole warps.
template <int kMTiles, int kNTiles, int kDepth = 1, int kActivation = 0, typename Input = __nv_bfloat16, int kScale = 0,
          int kPrefetch = 0>
__device__ __forceinline__ void decode_rows(const Input* __restrict__ x, const Input* __restrict__ w,
                                            const __nv_bfloat16* __restrict__ residual, __nv_bfloat16* __restrict__ y, long long m,
                                            long long n, long long k, const __nv_bfloat16* __restrict__ bias = nullptr,
                                            const float* __restrict__ row_scale = nullptr,
                                            const float* __restrict__ column_scale = nullptr) {
  static_assert(kMTiles == 1 || kMTiles == 2, "16 or 32 rows of x at most");
  static_assert(kNTiles == 1 || kNTiles == 2 || kNTiles == 4, "8, 16 or 32 rows of w a block");
  static_assert(kScale >= 0 && kScale <= 2, "kScale: 0 none, 1 per tensor, 2 per row");
  static_assert(kDepth == 1 || kDepth == 2 || kDepth == 4, "kDepth: 1, 2 or 4 times the chunks in flight");
  static_assert(kPrefetch == 0 || kPrefetch == 1, "kPrefetch: 0 load then multiply, 1 the next round loaded meanwhile");
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
    // With kPrefetch each round multiplies the chunks the round before loaded (next), having asked for its own: the loop
    // starts a round early, a round that only loads.
    uint4 next[kUnroll][kNTiles];
    for (long long first = kPrefetch ? warp - warps * kUnroll : warp; first < chunks; first += static_cast<long long>(warps) * kUnroll) {
      uint4 b[kUnroll][kNTiles];
      if constexpr (kPrefetch) {
#pragma unroll
        for (int u = 0; u < kUnroll; ++u)
#pragma unroll
          for (int j = 0; j < kNTiles; ++j) b[u][j] = next[u][j];
      }
      auto& into = kPrefetch ? next : b;
      const long long loaded = kPrefetch ? first + warps * kUnroll : first;
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const long long at = (loaded + static_cast<long long>(u) * warps) * 64;  // this thread's 16 bytes: at + 16t ...
        const bool inside = at + 16 * t < row_bytes;
#pragma unroll
        for (int j = 0; j < kNTiles; ++j) into[u][j] = inside && w_inside[j] ? detail::load_streamed(w_row[j] + at) : uint4{};
      }
      if (kPrefetch && first < warp) continue;
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
/* ---- end of include/kernelarc/gemm_sm90.cuh ---- */

// ---- part 0: BK=64 BM=128 BN=128 CONSUMERS=2 DECODE_DEPTH=1 DECODE_M=16 DECODE_PREFETCH=0 DECODE_SM_BLOCKS=0 DECODE_TILES=2 DECODE_WARPS=4 EPILOGUE=1 GROUP_M=8 MMA=0 MULTICAST=1 PERSISTENT=1 SPLIT_K=1 STAGES=5; sizes up to 373293056 ----
#define BK 64
#define BM 128
#define BN 128
#define CONSUMERS 2
#define DECODE_DEPTH 1
#define DECODE_M 16
#define DECODE_PREFETCH 0
#define DECODE_SM_BLOCKS 0
#define DECODE_TILES 2
#define DECODE_WARPS 4
#define EPILOGUE 1
#define GROUP_M 8
#define MMA 0
#define MULTICAST 1
#define PERSISTENT 1
#define SPLIT_K 1
#define STAGES 5
#define gemm_tma gemm_tma_kernelarc_part0
namespace kernelarc_part0 {
// Kernel-only bf16 GEMM template for Hopper (sm_90a), wgmma_cuda's tile with its slices loaded by TMA: y = x @ weight^T
// with fp32 accumulation, one BM x BN tile of y a block. One producer thread asks the copy engine for each stage's
// boxes (cp.async.bulk.tensor through the tensor maps the judge encodes, launch.tensor_maps: x and weight in boxes of
// 64 values by BM or BN rows, 128-byte swizzle, zeros past the edges) into a STAGES-deep shared-memory ring guarded by
// mbarriers that count the bytes landed; CONSUMERS warpgroups multiply them with wgmma (HGMMA in SASS). Knobs as
// wgmma_cuda's: BM, BN, BK (tiling), STAGES, CONSUMERS (pipelining), GROUP_M (tiling), EPILOGUE (memory), SPLIT_K (tiling),
// PERSISTENT (tiling: one block an SM walks the tiles, loading the next tile's slices while it stores the last), and
// DECODE_M (algorithmic: M up to which the weight is streamed once by kernelarc::sm90::decode_rows instead, with
// DECODE_TILES, tiling, 8-row slices of it a block).
// MULTICAST (memory): the blocks of a cluster take consecutive tiles down M and share each weight slice, each loading
// BN / MULTICAST of its rows into all of them (TMA multicast; the weight's boxes are that many rows).
// MMA (algorithmic): 0 wgmma, 1 mma.sync on matrices read by ldmatrix, the tile a B200 (sm_100a) builds whatever MMA says.
// The decode path's DECODE_DEPTH (pipelining: times its 16-byte loads in flight a thread), DECODE_PREFETCH (pipelining:
// 1 loads the next round while it multiplies this one), DECODE_WARPS (tiling: a block's warps, splitting K) and
// DECODE_SM_BLOCKS (tiling: 0 a block a slice; N, N blocks an SM walking the slices).
// Launch: grid [tiles * SPLIT_K, or min(tiles, num_sms rounded down to whole clusters) when PERSISTENT; tiles =
// ceil_div(M, BM * MULTICAST) * MULTICAST * ceil_div(N, BN)],
// block [128 * (CONSUMERS + 1)], dynamic shared memory as kernelarc::sm90::TileShape::kSharedBytes; for M <= DECODE_M,
// grid [ceil_div(N, 8 * DECODE_TILES), at most DECODE_SM_BLOCKS * num_sms unless that is 0] (rounded up to whole
// clusters), block [32 * DECODE_WARPS], 512 DECODE_WARPS DECODE_TILES ceil_div(DECODE_M, 16) bytes of shared memory. K must be a multiple of 8 (a tensor map's rows are 16-byte aligned).
// Arguments: x, weight, y, the var axes M, N and K, then the tensor maps of x and weight.

// Said here, in the candidate's own file: Hopper (sm_90a) multiplies with wgmma, a B200 (sm_100a) with mma.sync (wgmma is
// Hopper's alone; kernelarc/gemm_sm90.cuh's KERNELARC_WGMMA), and no other target has the pieces the tile needs.
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL) && !defined(__CUDA_ARCH_FEAT_SM100_ALL)
#error "this template needs sm_90a (Hopper) or sm_100a (a B200)"
#endif


// Knobs: defined by the judge from definition.json, the one place their values are written.

// KERNELARC_CLUSTERS: with SPLIT_K > 1 the blocks of a tile's cluster share its K, with MULTICAST > 1 its weight slices
// (kernelarc/gemm_sm90.cuh).
extern "C" __global__ void __launch_bounds__(128 * (CONSUMERS + 1), 1) KERNELARC_CLUSTERS(MULTICAST, SPLIT_K)
gemm_tma(const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* __restrict__ weight, __nv_bfloat16* __restrict__ y, long long m,
         long long n, long long k, const __grid_constant__ kernelarc::sm90::TensorMap map_x,
         const __grid_constant__ kernelarc::sm90::TensorMap map_w) {
#if DECODE_M > 0  // few rows of x: the weight streamed once, as the launch rule's `decode` says
  if (m <= DECODE_M)
    return kernelarc::sm90::decode_rows<(DECODE_M + 15) / 16, DECODE_TILES, DECODE_DEPTH, 0, __nv_bfloat16, 0, DECODE_PREFETCH>(x, weight, nullptr, y, m, n, k);
#endif
  kernelarc::sm90::gemm_tile<BM, BN, BK, STAGES, CONSUMERS, GROUP_M, EPILOGUE == 1, 0, SPLIT_K, false, __nv_bfloat16, 0, true,
                             PERSISTENT == 1, MULTICAST, MMA == 0 && KERNELARC_WGMMA>(
      x, weight, nullptr, y, m, n, k, nullptr, nullptr, nullptr, nullptr, &map_x, &map_w);
}
}  // namespace kernelarc_part0
#undef gemm_tma
#undef BK
#undef BM
#undef BN
#undef CONSUMERS
#undef DECODE_DEPTH
#undef DECODE_M
#undef DECODE_PREFETCH
#undef DECODE_SM_BLOCKS
#undef DECODE_TILES
#undef DECODE_WARPS
#undef EPILOGUE
#undef GROUP_M
#undef MMA
#undef MULTICAST
#undef PERSISTENT
#undef SPLIT_K
#undef STAGES

// ---- part 1: BK=64 BM=64 BN=64 CONSUMERS=1 DECODE_DEPTH=1 DECODE_M=32 DECODE_PREFETCH=0 DECODE_SM_BLOCKS=0 DECODE_TILES=4 DECODE_WARPS=8 EPILOGUE=0 GROUP_M=1 MMA=0 MULTICAST=1 PERSISTENT=1 SPLIT_K=1 STAGES=5; sizes up to 1426063360 ----
#define BK 64
#define BM 64
#define BN 64
#define CONSUMERS 1
#define DECODE_DEPTH 1
#define DECODE_M 32
#define DECODE_PREFETCH 0
#define DECODE_SM_BLOCKS 0
#define DECODE_TILES 4
#define DECODE_WARPS 8
#define EPILOGUE 0
#define GROUP_M 1
#define MMA 0
#define MULTICAST 1
#define PERSISTENT 1
#define SPLIT_K 1
#define STAGES 5
#define gemm_tma gemm_tma_kernelarc_part1
namespace kernelarc_part1 {
// Kernel-only bf16 GEMM template for Hopper (sm_90a), wgmma_cuda's tile with its slices loaded by TMA: y = x @ weight^T
// with fp32 accumulation, one BM x BN tile of y a block. One producer thread asks the copy engine for each stage's
// boxes (cp.async.bulk.tensor through the tensor maps the judge encodes, launch.tensor_maps: x and weight in boxes of
// 64 values by BM or BN rows, 128-byte swizzle, zeros past the edges) into a STAGES-deep shared-memory ring guarded by
// mbarriers that count the bytes landed; CONSUMERS warpgroups multiply them with wgmma (HGMMA in SASS). Knobs as
// wgmma_cuda's: BM, BN, BK (tiling), STAGES, CONSUMERS (pipelining), GROUP_M (tiling), EPILOGUE (memory), SPLIT_K (tiling),
// PERSISTENT (tiling: one block an SM walks the tiles, loading the next tile's slices while it stores the last), and
// DECODE_M (algorithmic: M up to which the weight is streamed once by kernelarc::sm90::decode_rows instead, with
// DECODE_TILES, tiling, 8-row slices of it a block).
// MULTICAST (memory): the blocks of a cluster take consecutive tiles down M and share each weight slice, each loading
// BN / MULTICAST of its rows into all of them (TMA multicast; the weight's boxes are that many rows).
// MMA (algorithmic): 0 wgmma, 1 mma.sync on matrices read by ldmatrix, the tile a B200 (sm_100a) builds whatever MMA says.
// The decode path's DECODE_DEPTH (pipelining: times its 16-byte loads in flight a thread), DECODE_PREFETCH (pipelining:
// 1 loads the next round while it multiplies this one), DECODE_WARPS (tiling: a block's warps, splitting K) and
// DECODE_SM_BLOCKS (tiling: 0 a block a slice; N, N blocks an SM walking the slices).
// Launch: grid [tiles * SPLIT_K, or min(tiles, num_sms rounded down to whole clusters) when PERSISTENT; tiles =
// ceil_div(M, BM * MULTICAST) * MULTICAST * ceil_div(N, BN)],
// block [128 * (CONSUMERS + 1)], dynamic shared memory as kernelarc::sm90::TileShape::kSharedBytes; for M <= DECODE_M,
// grid [ceil_div(N, 8 * DECODE_TILES), at most DECODE_SM_BLOCKS * num_sms unless that is 0] (rounded up to whole
// clusters), block [32 * DECODE_WARPS], 512 DECODE_WARPS DECODE_TILES ceil_div(DECODE_M, 16) bytes of shared memory. K must be a multiple of 8 (a tensor map's rows are 16-byte aligned).
// Arguments: x, weight, y, the var axes M, N and K, then the tensor maps of x and weight.

// Said here, in the candidate's own file: Hopper (sm_90a) multiplies with wgmma, a B200 (sm_100a) with mma.sync (wgmma is
// Hopper's alone; kernelarc/gemm_sm90.cuh's KERNELARC_WGMMA), and no other target has the pieces the tile needs.
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL) && !defined(__CUDA_ARCH_FEAT_SM100_ALL)
#error "this template needs sm_90a (Hopper) or sm_100a (a B200)"
#endif


// Knobs: defined by the judge from definition.json, the one place their values are written.

// KERNELARC_CLUSTERS: with SPLIT_K > 1 the blocks of a tile's cluster share its K, with MULTICAST > 1 its weight slices
// (kernelarc/gemm_sm90.cuh).
extern "C" __global__ void __launch_bounds__(128 * (CONSUMERS + 1), 1) KERNELARC_CLUSTERS(MULTICAST, SPLIT_K)
gemm_tma(const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* __restrict__ weight, __nv_bfloat16* __restrict__ y, long long m,
         long long n, long long k, const __grid_constant__ kernelarc::sm90::TensorMap map_x,
         const __grid_constant__ kernelarc::sm90::TensorMap map_w) {
#if DECODE_M > 0  // few rows of x: the weight streamed once, as the launch rule's `decode` says
  if (m <= DECODE_M)
    return kernelarc::sm90::decode_rows<(DECODE_M + 15) / 16, DECODE_TILES, DECODE_DEPTH, 0, __nv_bfloat16, 0, DECODE_PREFETCH>(x, weight, nullptr, y, m, n, k);
#endif
  kernelarc::sm90::gemm_tile<BM, BN, BK, STAGES, CONSUMERS, GROUP_M, EPILOGUE == 1, 0, SPLIT_K, false, __nv_bfloat16, 0, true,
                             PERSISTENT == 1, MULTICAST, MMA == 0 && KERNELARC_WGMMA>(
      x, weight, nullptr, y, m, n, k, nullptr, nullptr, nullptr, nullptr, &map_x, &map_w);
}
}  // namespace kernelarc_part1
#undef gemm_tma
#undef BK
#undef BM
#undef BN
#undef CONSUMERS
#undef DECODE_DEPTH
#undef DECODE_M
#undef DECODE_PREFETCH
#undef DECODE_SM_BLOCKS
#undef DECODE_TILES
#undef DECODE_WARPS
#undef EPILOGUE
#undef GROUP_M
#undef MMA
#undef MULTICAST
#undef PERSISTENT
#undef SPLIT_K
#undef STAGES

// ---- part 2: BK=64 BM=128 BN=128 CONSUMERS=2 DECODE_DEPTH=1 DECODE_M=32 DECODE_PREFETCH=0 DECODE_SM_BLOCKS=0 DECODE_TILES=1 DECODE_WARPS=4 EPILOGUE=1 GROUP_M=8 MMA=0 MULTICAST=1 PERSISTENT=1 SPLIT_K=1 STAGES=5; sizes up to 28486926336 ----
#define BK 64
#define BM 128
#define BN 128
#define CONSUMERS 2
#define DECODE_DEPTH 1
#define DECODE_M 32
#define DECODE_PREFETCH 0
#define DECODE_SM_BLOCKS 0
#define DECODE_TILES 1
#define DECODE_WARPS 4
#define EPILOGUE 1
#define GROUP_M 8
#define MMA 0
#define MULTICAST 1
#define PERSISTENT 1
#define SPLIT_K 1
#define STAGES 5
#define gemm_tma gemm_tma_kernelarc_part2
namespace kernelarc_part2 {
// Kernel-only bf16 GEMM template for Hopper (sm_90a), wgmma_cuda's tile with its slices loaded by TMA: y = x @ weight^T
// with fp32 accumulation, one BM x BN tile of y a block. One producer thread asks the copy engine for each stage's
// boxes (cp.async.bulk.tensor through the tensor maps the judge encodes, launch.tensor_maps: x and weight in boxes of
// 64 values by BM or BN rows, 128-byte swizzle, zeros past the edges) into a STAGES-deep shared-memory ring guarded by
// mbarriers that count the bytes landed; CONSUMERS warpgroups multiply them with wgmma (HGMMA in SASS). Knobs as
// wgmma_cuda's: BM, BN, BK (tiling), STAGES, CONSUMERS (pipelining), GROUP_M (tiling), EPILOGUE (memory), SPLIT_K (tiling),
// PERSISTENT (tiling: one block an SM walks the tiles, loading the next tile's slices while it stores the last), and
// DECODE_M (algorithmic: M up to which the weight is streamed once by kernelarc::sm90::decode_rows instead, with
// DECODE_TILES, tiling, 8-row slices of it a block).
// MULTICAST (memory): the blocks of a cluster take consecutive tiles down M and share each weight slice, each loading
// BN / MULTICAST of its rows into all of them (TMA multicast; the weight's boxes are that many rows).
// MMA (algorithmic): 0 wgmma, 1 mma.sync on matrices read by ldmatrix, the tile a B200 (sm_100a) builds whatever MMA says.
// The decode path's DECODE_DEPTH (pipelining: times its 16-byte loads in flight a thread), DECODE_PREFETCH (pipelining:
// 1 loads the next round while it multiplies this one), DECODE_WARPS (tiling: a block's warps, splitting K) and
// DECODE_SM_BLOCKS (tiling: 0 a block a slice; N, N blocks an SM walking the slices).
// Launch: grid [tiles * SPLIT_K, or min(tiles, num_sms rounded down to whole clusters) when PERSISTENT; tiles =
// ceil_div(M, BM * MULTICAST) * MULTICAST * ceil_div(N, BN)],
// block [128 * (CONSUMERS + 1)], dynamic shared memory as kernelarc::sm90::TileShape::kSharedBytes; for M <= DECODE_M,
// grid [ceil_div(N, 8 * DECODE_TILES), at most DECODE_SM_BLOCKS * num_sms unless that is 0] (rounded up to whole
// clusters), block [32 * DECODE_WARPS], 512 DECODE_WARPS DECODE_TILES ceil_div(DECODE_M, 16) bytes of shared memory. K must be a multiple of 8 (a tensor map's rows are 16-byte aligned).
// Arguments: x, weight, y, the var axes M, N and K, then the tensor maps of x and weight.

// Said here, in the candidate's own file: Hopper (sm_90a) multiplies with wgmma, a B200 (sm_100a) with mma.sync (wgmma is
// Hopper's alone; kernelarc/gemm_sm90.cuh's KERNELARC_WGMMA), and no other target has the pieces the tile needs.
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL) && !defined(__CUDA_ARCH_FEAT_SM100_ALL)
#error "this template needs sm_90a (Hopper) or sm_100a (a B200)"
#endif


// Knobs: defined by the judge from definition.json, the one place their values are written.

// KERNELARC_CLUSTERS: with SPLIT_K > 1 the blocks of a tile's cluster share its K, with MULTICAST > 1 its weight slices
// (kernelarc/gemm_sm90.cuh).
extern "C" __global__ void __launch_bounds__(128 * (CONSUMERS + 1), 1) KERNELARC_CLUSTERS(MULTICAST, SPLIT_K)
gemm_tma(const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* __restrict__ weight, __nv_bfloat16* __restrict__ y, long long m,
         long long n, long long k, const __grid_constant__ kernelarc::sm90::TensorMap map_x,
         const __grid_constant__ kernelarc::sm90::TensorMap map_w) {
#if DECODE_M > 0  // few rows of x: the weight streamed once, as the launch rule's `decode` says
  if (m <= DECODE_M)
    return kernelarc::sm90::decode_rows<(DECODE_M + 15) / 16, DECODE_TILES, DECODE_DEPTH, 0, __nv_bfloat16, 0, DECODE_PREFETCH>(x, weight, nullptr, y, m, n, k);
#endif
  kernelarc::sm90::gemm_tile<BM, BN, BK, STAGES, CONSUMERS, GROUP_M, EPILOGUE == 1, 0, SPLIT_K, false, __nv_bfloat16, 0, true,
                             PERSISTENT == 1, MULTICAST, MMA == 0 && KERNELARC_WGMMA>(
      x, weight, nullptr, y, m, n, k, nullptr, nullptr, nullptr, nullptr, &map_x, &map_w);
}
}  // namespace kernelarc_part2
#undef gemm_tma
#undef BK
#undef BM
#undef BN
#undef CONSUMERS
#undef DECODE_DEPTH
#undef DECODE_M
#undef DECODE_PREFETCH
#undef DECODE_SM_BLOCKS
#undef DECODE_TILES
#undef DECODE_WARPS
#undef EPILOGUE
#undef GROUP_M
#undef MMA
#undef MULTICAST
#undef PERSISTENT
#undef SPLIT_K
#undef STAGES

// ---- part 3: BK=64 BM=128 BN=256 CONSUMERS=2 DECODE_DEPTH=1 DECODE_M=0 DECODE_PREFETCH=0 DECODE_SM_BLOCKS=0 DECODE_TILES=2 DECODE_WARPS=4 EPILOGUE=1 GROUP_M=8 MMA=0 MULTICAST=1 PERSISTENT=0 SPLIT_K=1 STAGES=4; sizes above the other parts' ----
#define BK 64
#define BM 128
#define BN 256
#define CONSUMERS 2
#define DECODE_DEPTH 1
#define DECODE_M 0
#define DECODE_PREFETCH 0
#define DECODE_SM_BLOCKS 0
#define DECODE_TILES 2
#define DECODE_WARPS 4
#define EPILOGUE 1
#define GROUP_M 8
#define MMA 0
#define MULTICAST 1
#define PERSISTENT 0
#define SPLIT_K 1
#define STAGES 4
#define gemm_tma gemm_tma_kernelarc_part3
namespace kernelarc_part3 {
// Kernel-only bf16 GEMM template for Hopper (sm_90a), wgmma_cuda's tile with its slices loaded by TMA: y = x @ weight^T
// with fp32 accumulation, one BM x BN tile of y a block. One producer thread asks the copy engine for each stage's
// boxes (cp.async.bulk.tensor through the tensor maps the judge encodes, launch.tensor_maps: x and weight in boxes of
// 64 values by BM or BN rows, 128-byte swizzle, zeros past the edges) into a STAGES-deep shared-memory ring guarded by
// mbarriers that count the bytes landed; CONSUMERS warpgroups multiply them with wgmma (HGMMA in SASS). Knobs as
// wgmma_cuda's: BM, BN, BK (tiling), STAGES, CONSUMERS (pipelining), GROUP_M (tiling), EPILOGUE (memory), SPLIT_K (tiling),
// PERSISTENT (tiling: one block an SM walks the tiles, loading the next tile's slices while it stores the last), and
// DECODE_M (algorithmic: M up to which the weight is streamed once by kernelarc::sm90::decode_rows instead, with
// DECODE_TILES, tiling, 8-row slices of it a block).
// MULTICAST (memory): the blocks of a cluster take consecutive tiles down M and share each weight slice, each loading
// BN / MULTICAST of its rows into all of them (TMA multicast; the weight's boxes are that many rows).
// MMA (algorithmic): 0 wgmma, 1 mma.sync on matrices read by ldmatrix, the tile a B200 (sm_100a) builds whatever MMA says.
// The decode path's DECODE_DEPTH (pipelining: times its 16-byte loads in flight a thread), DECODE_PREFETCH (pipelining:
// 1 loads the next round while it multiplies this one), DECODE_WARPS (tiling: a block's warps, splitting K) and
// DECODE_SM_BLOCKS (tiling: 0 a block a slice; N, N blocks an SM walking the slices).
// Launch: grid [tiles * SPLIT_K, or min(tiles, num_sms rounded down to whole clusters) when PERSISTENT; tiles =
// ceil_div(M, BM * MULTICAST) * MULTICAST * ceil_div(N, BN)],
// block [128 * (CONSUMERS + 1)], dynamic shared memory as kernelarc::sm90::TileShape::kSharedBytes; for M <= DECODE_M,
// grid [ceil_div(N, 8 * DECODE_TILES), at most DECODE_SM_BLOCKS * num_sms unless that is 0] (rounded up to whole
// clusters), block [32 * DECODE_WARPS], 512 DECODE_WARPS DECODE_TILES ceil_div(DECODE_M, 16) bytes of shared memory. K must be a multiple of 8 (a tensor map's rows are 16-byte aligned).
// Arguments: x, weight, y, the var axes M, N and K, then the tensor maps of x and weight.

// Said here, in the candidate's own file: Hopper (sm_90a) multiplies with wgmma, a B200 (sm_100a) with mma.sync (wgmma is
// Hopper's alone; kernelarc/gemm_sm90.cuh's KERNELARC_WGMMA), and no other target has the pieces the tile needs.
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL) && !defined(__CUDA_ARCH_FEAT_SM100_ALL)
#error "this template needs sm_90a (Hopper) or sm_100a (a B200)"
#endif


// Knobs: defined by the judge from definition.json, the one place their values are written.

// KERNELARC_CLUSTERS: with SPLIT_K > 1 the blocks of a tile's cluster share its K, with MULTICAST > 1 its weight slices
// (kernelarc/gemm_sm90.cuh).
extern "C" __global__ void __launch_bounds__(128 * (CONSUMERS + 1), 1) KERNELARC_CLUSTERS(MULTICAST, SPLIT_K)
gemm_tma(const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* __restrict__ weight, __nv_bfloat16* __restrict__ y, long long m,
         long long n, long long k, const __grid_constant__ kernelarc::sm90::TensorMap map_x,
         const __grid_constant__ kernelarc::sm90::TensorMap map_w) {
#if DECODE_M > 0  // few rows of x: the weight streamed once, as the launch rule's `decode` says
  if (m <= DECODE_M)
    return kernelarc::sm90::decode_rows<(DECODE_M + 15) / 16, DECODE_TILES, DECODE_DEPTH, 0, __nv_bfloat16, 0, DECODE_PREFETCH>(x, weight, nullptr, y, m, n, k);
#endif
  kernelarc::sm90::gemm_tile<BM, BN, BK, STAGES, CONSUMERS, GROUP_M, EPILOGUE == 1, 0, SPLIT_K, false, __nv_bfloat16, 0, true,
                             PERSISTENT == 1, MULTICAST, MMA == 0 && KERNELARC_WGMMA>(
      x, weight, nullptr, y, m, n, k, nullptr, nullptr, nullptr, nullptr, &map_x, &map_w);
}
}  // namespace kernelarc_part3
#undef gemm_tma
#undef BK
#undef BM
#undef BN
#undef CONSUMERS
#undef DECODE_DEPTH
#undef DECODE_M
#undef DECODE_PREFETCH
#undef DECODE_SM_BLOCKS
#undef DECODE_TILES
#undef DECODE_WARPS
#undef EPILOGUE
#undef GROUP_M
#undef MMA
#undef MULTICAST
#undef PERSISTENT
#undef SPLIT_K
#undef STAGES

/* ---- include/kernelarc/candidate_abi.h (inlined by kernelarc export) ---- */
/* The candidate ABI: the one C entry point every KernelArc candidate exports.
 *
 * Destination-passing style: the judge allocates every tensor. `inputs` holds the task's inputs
 * in the definition's order, `outputs` its outputs in order; scalars arrive as 0-d tensors. On the
 * CPU `stream` is null; on CUDA it is the cudaStream_t / CUstream to launch on. A candidate never
 * allocates its outputs, never frees anything it was given, and never synchronises the device.
 * It returns 0 on success; any other value is reported as a runtime error with that code.
 *
 * Usable from C, C++ and CUDA sources. */
#ifndef KERNELARC_CANDIDATE_ABI_H
#define KERNELARC_CANDIDATE_ABI_H

#include <dlpack/dlpack.h>
#include <stdint.h>

#ifdef __cplusplus
#define KERNELARC_EXTERN_C extern "C"
#else
#define KERNELARC_EXTERN_C
#endif

#if defined(__GNUC__) || defined(__clang__)
#define KERNELARC_EXPORT KERNELARC_EXTERN_C __attribute__((visibility("default")))
#else
#define KERNELARC_EXPORT KERNELARC_EXTERN_C
#endif

/* Bumped when the signature or the meaning of an argument changes. */
#define KERNELARC_ABI_VERSION 1

/* The entry point's name; the judge looks it up with dlsym. */
#define KERNELARC_ENTRY_POINT_NAME "kernelarc_run"

/* DLPack 1.1 type codes that DLPack 0.6 (Debian 12) lacks. */
#define KERNELARC_DL_BOOL 6
#define KERNELARC_DL_FLOAT8_E4M3FN 10
#define KERNELARC_DL_FLOAT8_E5M2 12
#define KERNELARC_DL_FLOAT4_E2M1FN 17

typedef int (*kernelarc_entry_fn)(const DLTensor* const* inputs, int32_t num_inputs,
                                  DLTensor* const* outputs, int32_t num_outputs, void* stream);

/* Declare-and-define helper: KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) { ... } */
#define KERNELARC_CANDIDATE(in, n_in, out, n_out, stream)                                  \
  KERNELARC_EXPORT int kernelarc_run(const DLTensor* const* in, int32_t n_in,              \
                                     DLTensor* const* out, int32_t n_out, void* stream)

/* bfloat16 <-> float for CPU candidates (round to nearest even; NaN stays NaN). */
static inline float kernelarc_bf16_to_float(uint16_t bits) {
  union { uint32_t u; float f; } v;
  v.u = (uint32_t)bits << 16;
  return v.f;
}

static inline uint16_t kernelarc_float_to_bf16(float value) {
  union { uint32_t u; float f; } v;
  v.f = value;
  if ((v.u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((v.u >> 16) | 0x40u);
  uint32_t rounding = 0x7fffu + ((v.u >> 16) & 1u);
  return (uint16_t)((v.u + rounding) >> 16);
}

#endif /* KERNELARC_CANDIDATE_ABI_H */
/* ---- end of include/kernelarc/candidate_abi.h ---- */
/* ---- Host launcher generated by `kernelarc export`: the judge's launch of this kernel-only candidate. ---- */
#include <cuda.h>
#include <cuda_runtime.h>
#include <math.h>

/* Python's // and % on doubles (the remainder takes the divisor's sign), as KernelArc's expressions compute them. */
static inline double kernelarc_expr_floor_div(double a, double b) {
  double remainder = fmod(a, b);
  double quotient = (a - remainder) / b;
  if (remainder != 0.0 && ((b < 0.0) != (remainder < 0.0))) quotient -= 1.0;
  double floored = floor(quotient);
  if (quotient - floored > 0.5) floored += 1.0;
  return floored;
}
static inline double kernelarc_expr_mod(double a, double b) {
  double remainder = fmod(a, b);
  if (remainder != 0.0 && ((b < 0.0) != (remainder < 0.0))) remainder += b;
  return remainder;
}
static inline double kernelarc_expr_ceil_div(double a, double b) { return -kernelarc_expr_floor_div(-a, b); }
/* A launch dimension: an exact integer within [low, high], or false. */
static inline int kernelarc_expr_dimension(double value, long long low, long long high, long long* out) {
  if (!(value == trunc(value)) || value < (double)low || value > (double)high) return 0;
  *out = (long long)value;
  return 1;
}
typedef CUresult (*kernelarc_encode_tiled_t)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                                const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                                CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
static kernelarc_encode_tiled_t kernelarc_encode_tiled(void) {
  static kernelarc_encode_tiled_t found = 0;
  if (!found) {
    void* entry = 0;
    cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
    const cudaError_t looked = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &entry, 12000, cudaEnableDefault, &status);
#else
    const cudaError_t looked = cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &entry, cudaEnableDefault, &status);
#endif
    if (looked == cudaSuccess && status == cudaDriverEntryPointSuccess) found = (kernelarc_encode_tiled_t)entry;
  }
  return found;
}
static int kernelarc_tensor_map(CUtensorMap* map, const DLTensor* tensor, unsigned element_bytes, const long long box[2], int swizzle_bytes) {
  const kernelarc_encode_tiled_t encode = kernelarc_encode_tiled();
  if (!encode) return 6;
  cuuint64_t rows = 1;
  for (int i = 0; i + 1 < tensor->ndim; ++i) rows *= (cuuint64_t)tensor->shape[i];
  const cuuint64_t columns = tensor->ndim > 0 ? (cuuint64_t)tensor->shape[tensor->ndim - 1] : 1;
  const cuuint64_t dims[2] = {columns, rows}, strides[1] = {(columns * element_bytes + 15) / 16 * 16};
  const cuuint32_t boxes[2] = {(cuuint32_t)box[0], (cuuint32_t)box[1]}, element_strides[2] = {1, 1};
  const CUtensorMapDataType type = element_bytes == 1   ? CU_TENSOR_MAP_DATA_TYPE_UINT8
                                   : element_bytes == 2 ? CU_TENSOR_MAP_DATA_TYPE_UINT16
                                   : element_bytes == 4 ? CU_TENSOR_MAP_DATA_TYPE_UINT32
                                                        : CU_TENSOR_MAP_DATA_TYPE_UINT64;
  const CUtensorMapSwizzle swizzle = swizzle_bytes == 128  ? CU_TENSOR_MAP_SWIZZLE_128B
                                     : swizzle_bytes == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                                     : swizzle_bytes == 32 ? CU_TENSOR_MAP_SWIZZLE_32B
                                                           : CU_TENSOR_MAP_SWIZZLE_NONE;
  return encode(map, type, 2, (char*)tensor->data + tensor->byte_offset, dims, strides, boxes, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS ? 0 : 7;
}

/* Arguments of each part's kernel: a pointer per input and per output, then every var axis as long long (the definition's order), then each tensor map.
 * Returns 1: wrong tensor count; 2: grid, 3: block, 4: shared bytes, 5: a tensor map's box out of range; 6: no driver
 * entry point for tensor maps, 7: a map the driver refused; 1000 + cudaError_t: launch failed. */
KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  if (num_inputs != 2 || num_outputs != 1) return 1;
  const long long kernelarc_axis_M = inputs[0]->shape[0];
  const long long kernelarc_axis_N = inputs[1]->shape[0];
  const long long kernelarc_axis_K = inputs[0]->shape[1];
  (void)kernelarc_axis_M;
  (void)kernelarc_axis_N;
  (void)kernelarc_axis_K;
  /* The part for this call's size, the product of the var axes: the judge's rule (judge/dispatch_rule.h). */
  const double kernelarc_size = (double)inputs[0]->shape[0] * (double)inputs[1]->shape[0] * (double)inputs[0]->shape[1];
  (void)kernelarc_size;
  if (kernelarc_size <= 373293056.0) {  /* part 0 */
  int kernelarc_device = 0, kernelarc_sms = 0;
  const double kernelarc_num_sms = cudaGetDevice(&kernelarc_device) == cudaSuccess &&
      cudaDeviceGetAttribute(&kernelarc_sms, cudaDevAttrMultiProcessorCount, kernelarc_device) == cudaSuccess &&
      kernelarc_sms > 0 ? (double)kernelarc_sms : 132.0;
  const double kernelarc_let_cluster = (((double)((1.0))) * ((double)((1.0))));  /* SPLIT_K * MULTICAST */
  const double kernelarc_let_tiles = ((kernelarc_expr_ceil_div(((double)(kernelarc_axis_M)), (((double)((128.0))) * ((double)((1.0))))) * ((double)((1.0)))) * kernelarc_expr_ceil_div(((double)(kernelarc_axis_N)), ((double)((128.0)))));  /* ceil_div(M, BM * MULTICAST) * MULTICAST * ceil_div(N, BN) */
  const double kernelarc_let_decode = (((((double)(kernelarc_axis_M))) <= (((double)((16.0))))) ? 1.0 : 0.0);  /* M <= DECODE_M */
  const double kernelarc_let_slices = kernelarc_expr_ceil_div(((double)(kernelarc_axis_N)), (8.0 * ((double)((2.0)))));  /* ceil_div(N, 8 * DECODE_TILES) */
  (void)kernelarc_let_cluster;
  (void)kernelarc_let_tiles;
  (void)kernelarc_let_decode;
  (void)kernelarc_let_slices;
  long long kernelarc_grid[3] = {1, 1, 1}, kernelarc_block[3] = {1, 1, 1}, kernelarc_shared_bytes = 0;
  if (!kernelarc_expr_dimension((((((double)(kernelarc_let_decode)) * kernelarc_expr_ceil_div(fmin(((double)(kernelarc_let_slices)), ((((double)((0.0))) * ((double)(kernelarc_num_sms))) + (((((((double)((0.0)))) == (0.0)) ? 1.0 : 0.0)) * ((double)(kernelarc_let_slices))))), ((double)(kernelarc_let_cluster)))) * ((double)(kernelarc_let_cluster))) + (((1.0 - ((double)(kernelarc_let_decode)))) * fmin((((double)(kernelarc_let_tiles)) * ((double)((1.0)))), (((((double)((1.0))) * (kernelarc_expr_floor_div(((double)(kernelarc_num_sms)), ((double)((1.0)))))) * ((double)((1.0)))) + ((((((((double)((1.0)))) == (0.0)) ? 1.0 : 0.0)) * ((double)(kernelarc_let_tiles))) * ((double)((1.0)))))))), 1, 2147483647LL, &kernelarc_grid[0])) return 2;  /* decode * ceil_div(min(slices, DECODE_SM_BLOCKS * num_sms + (DECODE_SM_BLOCKS == 0) * slices), cluster) * cluster + (1 - decode) * min(tiles * SPLIT_K, PERSISTENT * (num_sms // MULTICAST) * MULTICAST + (PERSISTENT == 0) * tiles * SPLIT_K) */
  if (!kernelarc_expr_dimension((((((double)(kernelarc_let_decode)) * 32.0) * ((double)((4.0)))) + ((((1.0 - ((double)(kernelarc_let_decode)))) * 128.0) * ((((double)((2.0))) + 1.0)))), 1, 1024, &kernelarc_block[0])) return 3;  /* decode * 32 * DECODE_WARPS + (1 - decode) * 128 * (CONSUMERS + 1) */
  if (!kernelarc_expr_dimension((((((((double)(kernelarc_let_decode)) * 512.0) * kernelarc_expr_ceil_div(((double)((16.0))), 16.0)) * ((double)((2.0)))) * ((double)((4.0)))) + (((1.0 - ((double)(kernelarc_let_decode)))) * (((fmax(((((((double)((5.0))) * ((((double)((128.0))) + ((double)((128.0)))))) * ((double)((64.0)))) * 2.0) + ((((((double)((1.0))) * ((double)((1.0)))) * ((double)((128.0)))) * ((((double)((128.0))) + 8.0))) * 2.0)), fmax((((((double)((1.0))) * ((double)((128.0)))) * ((((double)((128.0))) + 8.0))) * 2.0), (((((((((double)((1.0)))) > (1.0)) ? 1.0 : 0.0)) * ((double)((128.0)))) * ((double)((128.0)))) * 4.0))) + 1024.0) + (16.0 * ((double)((5.0)))))))), 0, 2147483647LL, &kernelarc_shared_bytes)) return 4;  /* decode * 512 * ceil_div(DECODE_M, 16) * DECODE_TILES * DECODE_WARPS + (1 - decode) * (max(STAGES * (BM + BN) * BK * 2 + PERSISTENT * EPILOGUE * BM * (BN + 8) * 2, EPILOGUE * BM * (BN + 8) * 2, (SPLIT_K > 1) * BM * BN * 4) + 1024 + 16 * STAGES) */
  void* kernelarc_pointers[] = {
      (char*)inputs[0]->data + inputs[0]->byte_offset,
      (char*)inputs[1]->data + inputs[1]->byte_offset,
      (char*)outputs[0]->data + outputs[0]->byte_offset};
  long long kernelarc_axes[] = {kernelarc_axis_M, kernelarc_axis_N, kernelarc_axis_K};
  CUtensorMap kernelarc_maps[2];
  {
    long long kernelarc_box[2] = {1, 1};
    if (!kernelarc_expr_dimension(64.0, 1, 256, &kernelarc_box[0])) return 5;  /* 64 */
    if (!kernelarc_expr_dimension(((double)((128.0))), 1, 256, &kernelarc_box[1])) return 5;  /* BM */
    const int kernelarc_encoded = kernelarc_tensor_map(&kernelarc_maps[0], inputs[0], 2, kernelarc_box, 128);
    if (kernelarc_encoded != 0) return kernelarc_encoded;
  }
  {
    long long kernelarc_box[2] = {1, 1};
    if (!kernelarc_expr_dimension(64.0, 1, 256, &kernelarc_box[0])) return 5;  /* 64 */
    if (!kernelarc_expr_dimension(kernelarc_expr_floor_div(((double)((128.0))), ((double)((1.0)))), 1, 256, &kernelarc_box[1])) return 5;  /* BN // MULTICAST */
    const int kernelarc_encoded = kernelarc_tensor_map(&kernelarc_maps[1], inputs[1], 2, kernelarc_box, 128);
    if (kernelarc_encoded != 0) return kernelarc_encoded;
  }
  void* kernelarc_arguments[] = {&kernelarc_pointers[0], &kernelarc_pointers[1], &kernelarc_pointers[2], &kernelarc_axes[0], &kernelarc_axes[1], &kernelarc_axes[2], &kernelarc_maps[0], &kernelarc_maps[1]};
  if (kernelarc_shared_bytes > 48 * 1024) {
    const cudaError_t kernelarc_raised =
        cudaFuncSetAttribute((const void*)kernelarc_part0::gemm_tma_kernelarc_part0, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)kernelarc_shared_bytes);
    if (kernelarc_raised != cudaSuccess) return 1000 + (int)kernelarc_raised;
  }
  const cudaError_t kernelarc_launched = cudaLaunchKernel(
      (const void*)kernelarc_part0::gemm_tma_kernelarc_part0, dim3((unsigned)kernelarc_grid[0], (unsigned)kernelarc_grid[1], (unsigned)kernelarc_grid[2]),
      dim3((unsigned)kernelarc_block[0], (unsigned)kernelarc_block[1], (unsigned)kernelarc_block[2]), kernelarc_arguments,
      (size_t)kernelarc_shared_bytes, (cudaStream_t)stream);
  return kernelarc_launched == cudaSuccess ? 0 : 1000 + (int)kernelarc_launched;
  }
  if (kernelarc_size <= 1426063360.0) {  /* part 1 */
  int kernelarc_device = 0, kernelarc_sms = 0;
  const double kernelarc_num_sms = cudaGetDevice(&kernelarc_device) == cudaSuccess &&
      cudaDeviceGetAttribute(&kernelarc_sms, cudaDevAttrMultiProcessorCount, kernelarc_device) == cudaSuccess &&
      kernelarc_sms > 0 ? (double)kernelarc_sms : 132.0;
  const double kernelarc_let_cluster = (((double)((1.0))) * ((double)((1.0))));  /* SPLIT_K * MULTICAST */
  const double kernelarc_let_tiles = ((kernelarc_expr_ceil_div(((double)(kernelarc_axis_M)), (((double)((64.0))) * ((double)((1.0))))) * ((double)((1.0)))) * kernelarc_expr_ceil_div(((double)(kernelarc_axis_N)), ((double)((64.0)))));  /* ceil_div(M, BM * MULTICAST) * MULTICAST * ceil_div(N, BN) */
  const double kernelarc_let_decode = (((((double)(kernelarc_axis_M))) <= (((double)((32.0))))) ? 1.0 : 0.0);  /* M <= DECODE_M */
  const double kernelarc_let_slices = kernelarc_expr_ceil_div(((double)(kernelarc_axis_N)), (8.0 * ((double)((4.0)))));  /* ceil_div(N, 8 * DECODE_TILES) */
  (void)kernelarc_let_cluster;
  (void)kernelarc_let_tiles;
  (void)kernelarc_let_decode;
  (void)kernelarc_let_slices;
  long long kernelarc_grid[3] = {1, 1, 1}, kernelarc_block[3] = {1, 1, 1}, kernelarc_shared_bytes = 0;
  if (!kernelarc_expr_dimension((((((double)(kernelarc_let_decode)) * kernelarc_expr_ceil_div(fmin(((double)(kernelarc_let_slices)), ((((double)((0.0))) * ((double)(kernelarc_num_sms))) + (((((((double)((0.0)))) == (0.0)) ? 1.0 : 0.0)) * ((double)(kernelarc_let_slices))))), ((double)(kernelarc_let_cluster)))) * ((double)(kernelarc_let_cluster))) + (((1.0 - ((double)(kernelarc_let_decode)))) * fmin((((double)(kernelarc_let_tiles)) * ((double)((1.0)))), (((((double)((1.0))) * (kernelarc_expr_floor_div(((double)(kernelarc_num_sms)), ((double)((1.0)))))) * ((double)((1.0)))) + ((((((((double)((1.0)))) == (0.0)) ? 1.0 : 0.0)) * ((double)(kernelarc_let_tiles))) * ((double)((1.0)))))))), 1, 2147483647LL, &kernelarc_grid[0])) return 2;  /* decode * ceil_div(min(slices, DECODE_SM_BLOCKS * num_sms + (DECODE_SM_BLOCKS == 0) * slices), cluster) * cluster + (1 - decode) * min(tiles * SPLIT_K, PERSISTENT * (num_sms // MULTICAST) * MULTICAST + (PERSISTENT == 0) * tiles * SPLIT_K) */
  if (!kernelarc_expr_dimension((((((double)(kernelarc_let_decode)) * 32.0) * ((double)((8.0)))) + ((((1.0 - ((double)(kernelarc_let_decode)))) * 128.0) * ((((double)((1.0))) + 1.0)))), 1, 1024, &kernelarc_block[0])) return 3;  /* decode * 32 * DECODE_WARPS + (1 - decode) * 128 * (CONSUMERS + 1) */
  if (!kernelarc_expr_dimension((((((((double)(kernelarc_let_decode)) * 512.0) * kernelarc_expr_ceil_div(((double)((32.0))), 16.0)) * ((double)((4.0)))) * ((double)((8.0)))) + (((1.0 - ((double)(kernelarc_let_decode)))) * (((fmax(((((((double)((5.0))) * ((((double)((64.0))) + ((double)((64.0)))))) * ((double)((64.0)))) * 2.0) + ((((((double)((1.0))) * ((double)((0.0)))) * ((double)((64.0)))) * ((((double)((64.0))) + 8.0))) * 2.0)), fmax((((((double)((0.0))) * ((double)((64.0)))) * ((((double)((64.0))) + 8.0))) * 2.0), (((((((((double)((1.0)))) > (1.0)) ? 1.0 : 0.0)) * ((double)((64.0)))) * ((double)((64.0)))) * 4.0))) + 1024.0) + (16.0 * ((double)((5.0)))))))), 0, 2147483647LL, &kernelarc_shared_bytes)) return 4;  /* decode * 512 * ceil_div(DECODE_M, 16) * DECODE_TILES * DECODE_WARPS + (1 - decode) * (max(STAGES * (BM + BN) * BK * 2 + PERSISTENT * EPILOGUE * BM * (BN + 8) * 2, EPILOGUE * BM * (BN + 8) * 2, (SPLIT_K > 1) * BM * BN * 4) + 1024 + 16 * STAGES) */
  void* kernelarc_pointers[] = {
      (char*)inputs[0]->data + inputs[0]->byte_offset,
      (char*)inputs[1]->data + inputs[1]->byte_offset,
      (char*)outputs[0]->data + outputs[0]->byte_offset};
  long long kernelarc_axes[] = {kernelarc_axis_M, kernelarc_axis_N, kernelarc_axis_K};
  CUtensorMap kernelarc_maps[2];
  {
    long long kernelarc_box[2] = {1, 1};
    if (!kernelarc_expr_dimension(64.0, 1, 256, &kernelarc_box[0])) return 5;  /* 64 */
    if (!kernelarc_expr_dimension(((double)((64.0))), 1, 256, &kernelarc_box[1])) return 5;  /* BM */
    const int kernelarc_encoded = kernelarc_tensor_map(&kernelarc_maps[0], inputs[0], 2, kernelarc_box, 128);
    if (kernelarc_encoded != 0) return kernelarc_encoded;
  }
  {
    long long kernelarc_box[2] = {1, 1};
    if (!kernelarc_expr_dimension(64.0, 1, 256, &kernelarc_box[0])) return 5;  /* 64 */
    if (!kernelarc_expr_dimension(kernelarc_expr_floor_div(((double)((64.0))), ((double)((1.0)))), 1, 256, &kernelarc_box[1])) return 5;  /* BN // MULTICAST */
    const int kernelarc_encoded = kernelarc_tensor_map(&kernelarc_maps[1], inputs[1], 2, kernelarc_box, 128);
    if (kernelarc_encoded != 0) return kernelarc_encoded;
  }
  void* kernelarc_arguments[] = {&kernelarc_pointers[0], &kernelarc_pointers[1], &kernelarc_pointers[2], &kernelarc_axes[0], &kernelarc_axes[1], &kernelarc_axes[2], &kernelarc_maps[0], &kernelarc_maps[1]};
  if (kernelarc_shared_bytes > 48 * 1024) {
    const cudaError_t kernelarc_raised =
        cudaFuncSetAttribute((const void*)kernelarc_part1::gemm_tma_kernelarc_part1, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)kernelarc_shared_bytes);
    if (kernelarc_raised != cudaSuccess) return 1000 + (int)kernelarc_raised;
  }
  const cudaError_t kernelarc_launched = cudaLaunchKernel(
      (const void*)kernelarc_part1::gemm_tma_kernelarc_part1, dim3((unsigned)kernelarc_grid[0], (unsigned)kernelarc_grid[1], (unsigned)kernelarc_grid[2]),
      dim3((unsigned)kernelarc_block[0], (unsigned)kernelarc_block[1], (unsigned)kernelarc_block[2]), kernelarc_arguments,
      (size_t)kernelarc_shared_bytes, (cudaStream_t)stream);
  return kernelarc_launched == cudaSuccess ? 0 : 1000 + (int)kernelarc_launched;
  }
  if (kernelarc_size <= 28486926336.0) {  /* part 2 */
  int kernelarc_device = 0, kernelarc_sms = 0;
  const double kernelarc_num_sms = cudaGetDevice(&kernelarc_device) == cudaSuccess &&
      cudaDeviceGetAttribute(&kernelarc_sms, cudaDevAttrMultiProcessorCount, kernelarc_device) == cudaSuccess &&
      kernelarc_sms > 0 ? (double)kernelarc_sms : 132.0;
  const double kernelarc_let_cluster = (((double)((1.0))) * ((double)((1.0))));  /* SPLIT_K * MULTICAST */
  const double kernelarc_let_tiles = ((kernelarc_expr_ceil_div(((double)(kernelarc_axis_M)), (((double)((128.0))) * ((double)((1.0))))) * ((double)((1.0)))) * kernelarc_expr_ceil_div(((double)(kernelarc_axis_N)), ((double)((128.0)))));  /* ceil_div(M, BM * MULTICAST) * MULTICAST * ceil_div(N, BN) */
  const double kernelarc_let_decode = (((((double)(kernelarc_axis_M))) <= (((double)((32.0))))) ? 1.0 : 0.0);  /* M <= DECODE_M */
  const double kernelarc_let_slices = kernelarc_expr_ceil_div(((double)(kernelarc_axis_N)), (8.0 * ((double)((1.0)))));  /* ceil_div(N, 8 * DECODE_TILES) */
  (void)kernelarc_let_cluster;
  (void)kernelarc_let_tiles;
  (void)kernelarc_let_decode;
  (void)kernelarc_let_slices;
  long long kernelarc_grid[3] = {1, 1, 1}, kernelarc_block[3] = {1, 1, 1}, kernelarc_shared_bytes = 0;
  if (!kernelarc_expr_dimension((((((double)(kernelarc_let_decode)) * kernelarc_expr_ceil_div(fmin(((double)(kernelarc_let_slices)), ((((double)((0.0))) * ((double)(kernelarc_num_sms))) + (((((((double)((0.0)))) == (0.0)) ? 1.0 : 0.0)) * ((double)(kernelarc_let_slices))))), ((double)(kernelarc_let_cluster)))) * ((double)(kernelarc_let_cluster))) + (((1.0 - ((double)(kernelarc_let_decode)))) * fmin((((double)(kernelarc_let_tiles)) * ((double)((1.0)))), (((((double)((1.0))) * (kernelarc_expr_floor_div(((double)(kernelarc_num_sms)), ((double)((1.0)))))) * ((double)((1.0)))) + ((((((((double)((1.0)))) == (0.0)) ? 1.0 : 0.0)) * ((double)(kernelarc_let_tiles))) * ((double)((1.0)))))))), 1, 2147483647LL, &kernelarc_grid[0])) return 2;  /* decode * ceil_div(min(slices, DECODE_SM_BLOCKS * num_sms + (DECODE_SM_BLOCKS == 0) * slices), cluster) * cluster + (1 - decode) * min(tiles * SPLIT_K, PERSISTENT * (num_sms // MULTICAST) * MULTICAST + (PERSISTENT == 0) * tiles * SPLIT_K) */
  if (!kernelarc_expr_dimension((((((double)(kernelarc_let_decode)) * 32.0) * ((double)((4.0)))) + ((((1.0 - ((double)(kernelarc_let_decode)))) * 128.0) * ((((double)((2.0))) + 1.0)))), 1, 1024, &kernelarc_block[0])) return 3;  /* decode * 32 * DECODE_WARPS + (1 - decode) * 128 * (CONSUMERS + 1) */
  if (!kernelarc_expr_dimension((((((((double)(kernelarc_let_decode)) * 512.0) * kernelarc_expr_ceil_div(((double)((32.0))), 16.0)) * ((double)((1.0)))) * ((double)((4.0)))) + (((1.0 - ((double)(kernelarc_let_decode)))) * (((fmax(((((((double)((5.0))) * ((((double)((128.0))) + ((double)((128.0)))))) * ((double)((64.0)))) * 2.0) + ((((((double)((1.0))) * ((double)((1.0)))) * ((double)((128.0)))) * ((((double)((128.0))) + 8.0))) * 2.0)), fmax((((((double)((1.0))) * ((double)((128.0)))) * ((((double)((128.0))) + 8.0))) * 2.0), (((((((((double)((1.0)))) > (1.0)) ? 1.0 : 0.0)) * ((double)((128.0)))) * ((double)((128.0)))) * 4.0))) + 1024.0) + (16.0 * ((double)((5.0)))))))), 0, 2147483647LL, &kernelarc_shared_bytes)) return 4;  /* decode * 512 * ceil_div(DECODE_M, 16) * DECODE_TILES * DECODE_WARPS + (1 - decode) * (max(STAGES * (BM + BN) * BK * 2 + PERSISTENT * EPILOGUE * BM * (BN + 8) * 2, EPILOGUE * BM * (BN + 8) * 2, (SPLIT_K > 1) * BM * BN * 4) + 1024 + 16 * STAGES) */
  void* kernelarc_pointers[] = {
      (char*)inputs[0]->data + inputs[0]->byte_offset,
      (char*)inputs[1]->data + inputs[1]->byte_offset,
      (char*)outputs[0]->data + outputs[0]->byte_offset};
  long long kernelarc_axes[] = {kernelarc_axis_M, kernelarc_axis_N, kernelarc_axis_K};
  CUtensorMap kernelarc_maps[2];
  {
    long long kernelarc_box[2] = {1, 1};
    if (!kernelarc_expr_dimension(64.0, 1, 256, &kernelarc_box[0])) return 5;  /* 64 */
    if (!kernelarc_expr_dimension(((double)((128.0))), 1, 256, &kernelarc_box[1])) return 5;  /* BM */
    const int kernelarc_encoded = kernelarc_tensor_map(&kernelarc_maps[0], inputs[0], 2, kernelarc_box, 128);
    if (kernelarc_encoded != 0) return kernelarc_encoded;
  }
  {
    long long kernelarc_box[2] = {1, 1};
    if (!kernelarc_expr_dimension(64.0, 1, 256, &kernelarc_box[0])) return 5;  /* 64 */
    if (!kernelarc_expr_dimension(kernelarc_expr_floor_div(((double)((128.0))), ((double)((1.0)))), 1, 256, &kernelarc_box[1])) return 5;  /* BN // MULTICAST */
    const int kernelarc_encoded = kernelarc_tensor_map(&kernelarc_maps[1], inputs[1], 2, kernelarc_box, 128);
    if (kernelarc_encoded != 0) return kernelarc_encoded;
  }
  void* kernelarc_arguments[] = {&kernelarc_pointers[0], &kernelarc_pointers[1], &kernelarc_pointers[2], &kernelarc_axes[0], &kernelarc_axes[1], &kernelarc_axes[2], &kernelarc_maps[0], &kernelarc_maps[1]};
  if (kernelarc_shared_bytes > 48 * 1024) {
    const cudaError_t kernelarc_raised =
        cudaFuncSetAttribute((const void*)kernelarc_part2::gemm_tma_kernelarc_part2, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)kernelarc_shared_bytes);
    if (kernelarc_raised != cudaSuccess) return 1000 + (int)kernelarc_raised;
  }
  const cudaError_t kernelarc_launched = cudaLaunchKernel(
      (const void*)kernelarc_part2::gemm_tma_kernelarc_part2, dim3((unsigned)kernelarc_grid[0], (unsigned)kernelarc_grid[1], (unsigned)kernelarc_grid[2]),
      dim3((unsigned)kernelarc_block[0], (unsigned)kernelarc_block[1], (unsigned)kernelarc_block[2]), kernelarc_arguments,
      (size_t)kernelarc_shared_bytes, (cudaStream_t)stream);
  return kernelarc_launched == cudaSuccess ? 0 : 1000 + (int)kernelarc_launched;
  }
  {  /* part 3: the rest */
  int kernelarc_device = 0, kernelarc_sms = 0;
  const double kernelarc_num_sms = cudaGetDevice(&kernelarc_device) == cudaSuccess &&
      cudaDeviceGetAttribute(&kernelarc_sms, cudaDevAttrMultiProcessorCount, kernelarc_device) == cudaSuccess &&
      kernelarc_sms > 0 ? (double)kernelarc_sms : 132.0;
  const double kernelarc_let_cluster = (((double)((1.0))) * ((double)((1.0))));  /* SPLIT_K * MULTICAST */
  const double kernelarc_let_tiles = ((kernelarc_expr_ceil_div(((double)(kernelarc_axis_M)), (((double)((128.0))) * ((double)((1.0))))) * ((double)((1.0)))) * kernelarc_expr_ceil_div(((double)(kernelarc_axis_N)), ((double)((256.0)))));  /* ceil_div(M, BM * MULTICAST) * MULTICAST * ceil_div(N, BN) */
  const double kernelarc_let_decode = (((((double)(kernelarc_axis_M))) <= (((double)((0.0))))) ? 1.0 : 0.0);  /* M <= DECODE_M */
  const double kernelarc_let_slices = kernelarc_expr_ceil_div(((double)(kernelarc_axis_N)), (8.0 * ((double)((2.0)))));  /* ceil_div(N, 8 * DECODE_TILES) */
  (void)kernelarc_let_cluster;
  (void)kernelarc_let_tiles;
  (void)kernelarc_let_decode;
  (void)kernelarc_let_slices;
  long long kernelarc_grid[3] = {1, 1, 1}, kernelarc_block[3] = {1, 1, 1}, kernelarc_shared_bytes = 0;
  if (!kernelarc_expr_dimension((((((double)(kernelarc_let_decode)) * kernelarc_expr_ceil_div(fmin(((double)(kernelarc_let_slices)), ((((double)((0.0))) * ((double)(kernelarc_num_sms))) + (((((((double)((0.0)))) == (0.0)) ? 1.0 : 0.0)) * ((double)(kernelarc_let_slices))))), ((double)(kernelarc_let_cluster)))) * ((double)(kernelarc_let_cluster))) + (((1.0 - ((double)(kernelarc_let_decode)))) * fmin((((double)(kernelarc_let_tiles)) * ((double)((1.0)))), (((((double)((0.0))) * (kernelarc_expr_floor_div(((double)(kernelarc_num_sms)), ((double)((1.0)))))) * ((double)((1.0)))) + ((((((((double)((0.0)))) == (0.0)) ? 1.0 : 0.0)) * ((double)(kernelarc_let_tiles))) * ((double)((1.0)))))))), 1, 2147483647LL, &kernelarc_grid[0])) return 2;  /* decode * ceil_div(min(slices, DECODE_SM_BLOCKS * num_sms + (DECODE_SM_BLOCKS == 0) * slices), cluster) * cluster + (1 - decode) * min(tiles * SPLIT_K, PERSISTENT * (num_sms // MULTICAST) * MULTICAST + (PERSISTENT == 0) * tiles * SPLIT_K) */
  if (!kernelarc_expr_dimension((((((double)(kernelarc_let_decode)) * 32.0) * ((double)((4.0)))) + ((((1.0 - ((double)(kernelarc_let_decode)))) * 128.0) * ((((double)((2.0))) + 1.0)))), 1, 1024, &kernelarc_block[0])) return 3;  /* decode * 32 * DECODE_WARPS + (1 - decode) * 128 * (CONSUMERS + 1) */
  if (!kernelarc_expr_dimension((((((((double)(kernelarc_let_decode)) * 512.0) * kernelarc_expr_ceil_div(((double)((0.0))), 16.0)) * ((double)((2.0)))) * ((double)((4.0)))) + (((1.0 - ((double)(kernelarc_let_decode)))) * (((fmax(((((((double)((4.0))) * ((((double)((128.0))) + ((double)((256.0)))))) * ((double)((64.0)))) * 2.0) + ((((((double)((0.0))) * ((double)((1.0)))) * ((double)((128.0)))) * ((((double)((256.0))) + 8.0))) * 2.0)), fmax((((((double)((1.0))) * ((double)((128.0)))) * ((((double)((256.0))) + 8.0))) * 2.0), (((((((((double)((1.0)))) > (1.0)) ? 1.0 : 0.0)) * ((double)((128.0)))) * ((double)((256.0)))) * 4.0))) + 1024.0) + (16.0 * ((double)((4.0)))))))), 0, 2147483647LL, &kernelarc_shared_bytes)) return 4;  /* decode * 512 * ceil_div(DECODE_M, 16) * DECODE_TILES * DECODE_WARPS + (1 - decode) * (max(STAGES * (BM + BN) * BK * 2 + PERSISTENT * EPILOGUE * BM * (BN + 8) * 2, EPILOGUE * BM * (BN + 8) * 2, (SPLIT_K > 1) * BM * BN * 4) + 1024 + 16 * STAGES) */
  void* kernelarc_pointers[] = {
      (char*)inputs[0]->data + inputs[0]->byte_offset,
      (char*)inputs[1]->data + inputs[1]->byte_offset,
      (char*)outputs[0]->data + outputs[0]->byte_offset};
  long long kernelarc_axes[] = {kernelarc_axis_M, kernelarc_axis_N, kernelarc_axis_K};
  CUtensorMap kernelarc_maps[2];
  {
    long long kernelarc_box[2] = {1, 1};
    if (!kernelarc_expr_dimension(64.0, 1, 256, &kernelarc_box[0])) return 5;  /* 64 */
    if (!kernelarc_expr_dimension(((double)((128.0))), 1, 256, &kernelarc_box[1])) return 5;  /* BM */
    const int kernelarc_encoded = kernelarc_tensor_map(&kernelarc_maps[0], inputs[0], 2, kernelarc_box, 128);
    if (kernelarc_encoded != 0) return kernelarc_encoded;
  }
  {
    long long kernelarc_box[2] = {1, 1};
    if (!kernelarc_expr_dimension(64.0, 1, 256, &kernelarc_box[0])) return 5;  /* 64 */
    if (!kernelarc_expr_dimension(kernelarc_expr_floor_div(((double)((256.0))), ((double)((1.0)))), 1, 256, &kernelarc_box[1])) return 5;  /* BN // MULTICAST */
    const int kernelarc_encoded = kernelarc_tensor_map(&kernelarc_maps[1], inputs[1], 2, kernelarc_box, 128);
    if (kernelarc_encoded != 0) return kernelarc_encoded;
  }
  void* kernelarc_arguments[] = {&kernelarc_pointers[0], &kernelarc_pointers[1], &kernelarc_pointers[2], &kernelarc_axes[0], &kernelarc_axes[1], &kernelarc_axes[2], &kernelarc_maps[0], &kernelarc_maps[1]};
  if (kernelarc_shared_bytes > 48 * 1024) {
    const cudaError_t kernelarc_raised =
        cudaFuncSetAttribute((const void*)kernelarc_part3::gemm_tma_kernelarc_part3, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)kernelarc_shared_bytes);
    if (kernelarc_raised != cudaSuccess) return 1000 + (int)kernelarc_raised;
  }
  const cudaError_t kernelarc_launched = cudaLaunchKernel(
      (const void*)kernelarc_part3::gemm_tma_kernelarc_part3, dim3((unsigned)kernelarc_grid[0], (unsigned)kernelarc_grid[1], (unsigned)kernelarc_grid[2]),
      dim3((unsigned)kernelarc_block[0], (unsigned)kernelarc_block[1], (unsigned)kernelarc_block[2]), kernelarc_arguments,
      (size_t)kernelarc_shared_bytes, (cudaStream_t)stream);
  return kernelarc_launched == cudaSuccess ? 0 : 1000 + (int)kernelarc_launched;
  }
}
