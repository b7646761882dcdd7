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
