// Kernel-only GELU(tanh)-and-mul template for CUDA (sm_90): out = gelu_tanh(gate) * up, gate and up the two halves of
// each row of gate_up. The grid is (column tile, row group): blockIdx.x picks BLOCK * VEC columns, blockIdx.y a group of
// ITEMS rows, and a block strides over the rows by gridDim.y * ITEMS, so no index is ever divided. Knobs:
//   VEC        bf16 per load and store, 1, 2, 4 or 8 (16 bytes); element by element when intermediate_size is not a
//              multiple of VEC or a pointer is not aligned to 2 * VEC bytes (memory)
//   BLOCK      threads per block, VEC columns each (tiling)
//   ITEMS      rows per thread per step, all loaded before the first is used (pipelining)
//   WAVES      0: a block per (column tile, row group), rows strided only past 65535 groups; N: a persistent grid of about
//              N blocks per SM (num_sms SMs) striding over the rows (tiling)
//   MATH       0: float32, gelu_tanh(x) = 0.5 x (1 + tanh(u)) = x * sigmoid(2u), with __expf and a fast reciprocal (a few
//                 float ulps, far below a bf16 step);
//              1: float32 with the hardware tanh.approx.f32 (one MUFU op, relative error about 2^-11 on tanh);
//              2: bf16x2 math with tanh.approx.bf16x2 (every step rounded to bf16).
//              The judge decides whether the tolerance allows 1 and 2 (precision)
//   STREAMING  evict-first loads and stores: every byte is touched once (memory)
// u = sqrt(2/pi) (x + 0.044715 x^3); out = bf16(gelu_tanh(gate) * up).
// Launch: grid [ceil_div(intermediate_size, BLOCK * VEC), R], block [BLOCK], R = ceil_div(num_tokens, ITEMS) capped at
// 65535 and, for WAVES > 0, at num_sms * WAVES / ceil_div(intermediate_size, BLOCK * VEC), and at least 1.
// Arguments: gate_up, out, then the var axes num_tokens and intermediate_size.
#include <cuda_bf16.h>
#include <kernelarc/device.cuh>

// Knobs: defined by the judge from definition.json, the one place their values are written.

static_assert(VEC == 1 || VEC == 2 || VEC == 4 || VEC == 8, "VEC: 1, 2, 4 or 8 bf16");
static_assert(BLOCK >= 32 && BLOCK <= 1024 && BLOCK % 32 == 0, "BLOCK: whole warps, at most 1024 threads");
static_assert(ITEMS >= 1 && ITEMS <= 8, "ITEMS: 1 to 8 rows");
static_assert(WAVES >= 0, "WAVES: 0 (no persistent grid) or blocks per SM");
static_assert(MATH == 0 || MATH == 1 || MATH == 2, "MATH: 0 (float32), 1 (tanh.approx.f32) or 2 (bf16x2)");

constexpr float kBeta = 0.7978845608028654f;              // sqrt(2 / pi)
constexpr float kBetaKappa = 0.7978845608028654f * 0.044715f;

// VEC bf16 moved as one load or store of 2 * VEC bytes.
struct alignas(2 * VEC) Chunk {
  __nv_bfloat16 v[VEC];
};
using Bits = kernelarc::device::Pack<VEC>;  // the integer or vector type of 2 * VEC bytes

__device__ __forceinline__ Chunk load_chunk(const __nv_bfloat16* at) {
#if STREAMING
  const Bits bits = __ldcs(reinterpret_cast<const Bits*>(at));
#else
  const Bits bits = __ldg(reinterpret_cast<const Bits*>(at));
#endif
  return *reinterpret_cast<const Chunk*>(&bits);
}

__device__ __forceinline__ void store_chunk(__nv_bfloat16* at, const Chunk& value) {
#if STREAMING
  __stcs(reinterpret_cast<Bits*>(at), *reinterpret_cast<const Bits*>(&value));
#else
  *reinterpret_cast<Bits*>(at) = *reinterpret_cast<const Bits*>(&value);
#endif
}

__device__ __forceinline__ __nv_bfloat16 load_one(const __nv_bfloat16* at) {
#if STREAMING
  return __ldcs(at);
#else
  return __ldg(at);
#endif
}

__device__ __forceinline__ void store_one(__nv_bfloat16* at, __nv_bfloat16 value) {
#if STREAMING
  __stcs(at, value);
#else
  *at = value;
#endif
}

#if MATH == 2
// gelu_tanh(x) * up on two lanes, every operation in bf16.
__device__ __forceinline__ __nv_bfloat162 gelu_mul2(__nv_bfloat162 x, __nv_bfloat162 up) {
  const __nv_bfloat162 beta = __float2bfloat162_rn(kBeta), beta_kappa = __float2bfloat162_rn(kBetaKappa);
  const __nv_bfloat162 half = __float2bfloat162_rn(0.5f);
  const __nv_bfloat162 u = __hmul2(x, __hfma2(__hmul2(x, x), beta_kappa, beta));
  __nv_bfloat162 t;
  asm("tanh.approx.bf16x2 %0, %1;" : "=r"(reinterpret_cast<unsigned&>(t)) : "r"(reinterpret_cast<const unsigned&>(u)));
  const __nv_bfloat162 hx = __hmul2(x, half);
  return __hmul2(__hfma2(hx, t, hx), up);
}
#endif

__device__ __forceinline__ __nv_bfloat16 gelu_mul(__nv_bfloat16 gate, __nv_bfloat16 up) {
#if MATH == 2
  return __low2bfloat16(gelu_mul2(__bfloat162bfloat162(gate), __bfloat162bfloat162(up)));
#else
  const float x = __bfloat162float(gate);
  const float inner = fmaf(kBetaKappa, x * x, kBeta);  // u = x * inner
#if MATH == 0
  // 0.5 (1 + tanh(u)) = 1 / (1 + exp(-2u)). Far below zero the denominator passes 2^126 or overflows and the fast quotient
  // is 0, where the exact one is under 1e-36.
  const float gelu = __fdividef(x, 1.0f + __expf(-2.0f * x * inner));
#else
  float t;
  asm("tanh.approx.f32 %0, %1;" : "=f"(t) : "f"(x * inner));
  const float hx = 0.5f * x;
  const float gelu = fmaf(hx, t, hx);
#endif
  return __float2bfloat16(gelu * __bfloat162float(up));
#endif
}

__device__ __forceinline__ Chunk gelu_mul_chunk(const Chunk& gate, const Chunk& up) {
  Chunk result;
#if MATH == 2
  if constexpr (VEC >= 2) {
#pragma unroll
    for (int k = 0; k < VEC; k += 2) {
      const __nv_bfloat162 r = gelu_mul2(__halves2bfloat162(gate.v[k], gate.v[k + 1]), __halves2bfloat162(up.v[k], up.v[k + 1]));
      result.v[k] = __low2bfloat16(r);
      result.v[k + 1] = __high2bfloat16(r);
    }
  } else {
    result.v[0] = gelu_mul(gate.v[0], up.v[0]);
  }
#else
#pragma unroll
  for (int k = 0; k < VEC; ++k) result.v[k] = gelu_mul(gate.v[k], up.v[k]);
#endif
  return result;
}

// Its own, not device.cuh's aligned_to: that one gave other PTX here (scripts/ptx-diff).
__device__ __forceinline__ bool aligned(const void* at) { return reinterpret_cast<unsigned long long>(at) % (2 * VEC) == 0; }

extern "C" __global__ void __launch_bounds__(BLOCK)
gelu_tanh_mul_tiles(const __nv_bfloat16* __restrict__ gate_up, __nv_bfloat16* __restrict__ out, long long tokens, long long inter) {
  const long long col = (static_cast<long long>(blockIdx.x) * BLOCK + threadIdx.x) * VEC;  // this thread's first column
  if (col >= inter) return;  // past the row's end (no barrier follows)
  // With intermediate_size a multiple of VEC every chunk lies whole in its row and, the pointers being aligned, is aligned.
  const bool vectorised = VEC == 1 || (inter % VEC == 0 && aligned(gate_up) && aligned(out));
  const long long row_step = static_cast<long long>(gridDim.y) * ITEMS;
  for (long long first = static_cast<long long>(blockIdx.y) * ITEMS; first < tokens; first += row_step) {
    if (vectorised) {
      Chunk gate[ITEMS], up[ITEMS];
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        const long long row = first + i;
        if (row < tokens) {
          const __nv_bfloat16* at = gate_up + row * 2 * inter + col;
          gate[i] = load_chunk(at);
          up[i] = load_chunk(at + inter);
        }
      }
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        const long long row = first + i;
        if (row < tokens) store_chunk(out + row * inter + col, gelu_mul_chunk(gate[i], up[i]));
      }
    } else {
      for (int i = 0; i < ITEMS; ++i) {
        const long long row = first + i;
        if (row >= tokens) break;
        const __nv_bfloat16* gate = gate_up + row * 2 * inter;
        for (int k = 0; k < VEC && col + k < inter; ++k)
          store_one(out + row * inter + col + k, gelu_mul(load_one(gate + col + k), load_one(gate + inter + col + k)));
      }
    }
  }
}
