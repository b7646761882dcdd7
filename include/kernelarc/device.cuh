// Device code the CUDA templates share: packed bf16 loads and stores, warp reductions, alignment checks. Travels inside
// the kernelarc binary as candidate_abi.h does, so every CUDA candidate (kernel-only through NVRTC, full source through
// nvcc, a language model's included) can include it as kernelarc/device.cuh; `kernelarc export` inlines it.
//
// Everything is in namespace kernelarc::device; take what a kernel uses with using-declarations
// (`using kernelarc::device::Pack;`), so a kernel's own helpers of the same name do not become ambiguous.
// Every function is __forceinline__: including this header adds nothing to a kernel's PTX by itself.
// A guard, not #pragma once: kernelarc export inlines this text into the candidate's main file.
#ifndef KERNELARC_DEVICE_CUH
#define KERNELARC_DEVICE_CUH

#include <cuda_bf16.h>

namespace kernelarc::device {

// V bf16 (1, 2, 4 or 8) in one load or store of 2 * V bytes: Pack<V> is the integer or vector type of that size.
template <int V> struct Bf16Pack;
template <> struct Bf16Pack<1> { using type = unsigned short; };
template <> struct Bf16Pack<2> { using type = unsigned int; };
template <> struct Bf16Pack<4> { using type = uint2; };
template <> struct Bf16Pack<8> { using type = uint4; };
template <int V> using Pack = typename Bf16Pack<V>::type;

// The bf16 elements of a pack (V is not deduced through the alias: elements<V>(pack)).
template <int V>
__device__ __forceinline__ __nv_bfloat16* elements(Pack<V>& pack) { return reinterpret_cast<__nv_bfloat16*>(&pack); }
template <int V>
__device__ __forceinline__ const __nv_bfloat16* elements(const Pack<V>& pack) { return reinterpret_cast<const __nv_bfloat16*>(&pack); }

// `v` of the lane whose index differs from this one's in the bits of `mask`, every lane of the warp taking part (a
// kernel's own reductions of several values overload it for their structs).
__device__ __forceinline__ float shuffle_xor(float v, int mask) { return __shfl_xor_sync(0xffffffffu, v, mask); }

// Sum over the lanes of each aligned group of `kWidth` lanes of a warp (a power of two up to 32), the total in every
// lane of the group.
template <int kWidth>
__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int mask = kWidth / 2; mask > 0; mask /= 2) v += __shfl_xor_sync(0xffffffffu, v, mask);
  return v;
}

// The largest of `v` over each aligned group of `kWidth` lanes, in every lane of the group.
template <int kWidth>
__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int mask = kWidth / 2; mask > 0; mask /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, mask));
  return v;
}

// Whether every pointer may be read or written kBytes at a time: aligned_to<2 * VEC>(x, out).
template <int kBytes, class... Elements>
__device__ __forceinline__ bool aligned_to(const Elements*... at) {
  return ((reinterpret_cast<unsigned long long>(at) % kBytes == 0) && ...);
}

}  // namespace kernelarc::device

#endif  // KERNELARC_DEVICE_CUH
