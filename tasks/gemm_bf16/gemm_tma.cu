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
// PINGPONG (pipelining): 1, the two consumer warpgroups of a persistent block take turns, each a whole tile of its own,
// one multiplying while the other stores (kernelarc/gemm_sm90.cuh); shared memory for two staged tiles.
// The decode path's DECODE_DEPTH (pipelining: times its 16-byte loads in flight a thread), DECODE_WARPS (tiling:
// a block's warps, splitting K) and DECODE_SM_BLOCKS (tiling: 0 a block a slice; N, N blocks an SM walking the slices).
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
#include <kernelarc/gemm_sm90.cuh>

// Knobs: defined by the judge from definition.json, the one place their values are written.

// KERNELARC_CLUSTERS: with SPLIT_K > 1 the blocks of a tile's cluster share its K, with MULTICAST > 1 its weight slices
// (kernelarc/gemm_sm90.cuh).
extern "C" __global__ void __launch_bounds__(128 * (CONSUMERS + 1), 1) KERNELARC_CLUSTERS(MULTICAST, SPLIT_K)
gemm_tma(const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* __restrict__ weight, __nv_bfloat16* __restrict__ y, long long m,
         long long n, long long k, const __grid_constant__ kernelarc::sm90::TensorMap map_x,
         const __grid_constant__ kernelarc::sm90::TensorMap map_w) {
#if DECODE_M > 0  // few rows of x: the weight streamed once, as the launch rule's `decode` says
  if (m <= DECODE_M)
    return kernelarc::sm90::decode_rows<(DECODE_M + 15) / 16, DECODE_TILES, DECODE_DEPTH, 0>(x, weight, nullptr, y, m, n, k);
#endif
  kernelarc::sm90::gemm_tile<BM, BN, BK, STAGES, CONSUMERS, GROUP_M, EPILOGUE >= 1, 0, SPLIT_K, false, __nv_bfloat16, 0, true,
                             PERSISTENT == 1, MULTICAST, MMA == 0 && KERNELARC_WGMMA, PINGPONG == 1, EPILOGUE == 2>(
      x, weight, nullptr, y, m, n, k, nullptr, nullptr, nullptr, nullptr, &map_x, &map_w);
}
