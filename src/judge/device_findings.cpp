#include "judge/device_findings.h"

#include <fmt/format.h>

#include <cstdlib>

namespace kernelarc::judge {

namespace {

// Each element as compare_output takes it: decoded to float, then compared in double; every thread keeps its own
// findings, a warp merges them, and one lane per warp adds them to `result` (mismatched, poisoned, first bad, first
// non-finite, max abs and max rel error as bits, any non-zero output, any non-zero reference).
constexpr const char* kComparisonKernel = R"(
__device__ __forceinline__ float kernelarc_decode(const unsigned char* p, unsigned long long i, int dtype, unsigned int* bits) {
  if (dtype == 0) { unsigned int u = ((const unsigned int*)p)[i]; *bits = u; return __uint_as_float(u); }
  if (dtype == 1 || dtype == 2) {
    unsigned int h = ((const unsigned short*)p)[i];
    *bits = h;
    if (dtype == 2) return __uint_as_float(h << 16);
    unsigned int e = (h >> 10) & 31u, m = h & 1023u;
    float v = e == 0 ? (float)m * 5.9604644775390625e-08f
              : e == 31 ? (m ? __uint_as_float(0x7fc00000u) : __uint_as_float(0x7f800000u))
                        : __uint_as_float(((e + 112u) << 23) | (m << 13));
    return (h >> 15) ? -v : v;
  }
  unsigned int b = p[i];
  *bits = b;
  float v;
  if (dtype == 3) {  // float8_e4m3fn: no infinity, S.1111.111 is NaN
    unsigned int e = (b >> 3) & 15u, m = b & 7u;
    v = (e == 15 && m == 7) ? __uint_as_float(0x7fc00000u) : e == 0 ? (float)m * 0.001953125f : __uint_as_float(((e + 120u) << 23) | (m << 20));
  } else {  // float8_e5m2
    unsigned int e = (b >> 2) & 31u, m = b & 3u;
    v = e == 31 ? (m ? __uint_as_float(0x7fc00000u) : __uint_as_float(0x7f800000u))
        : e == 0 ? (float)m * 1.52587890625e-05f : __uint_as_float(((e + 112u) << 23) | (m << 21));
  }
  return (b >> 7) ? -v : v;
}

extern "C" __global__ void kernelarc_compare(const unsigned char* __restrict__ actual, const unsigned char* __restrict__ expected,
                                             unsigned long long count, int dtype, double atol, double rtol, int allow_negative_inf,
                                             int poison, unsigned long long* result) {
  const unsigned int pattern = poison < 0 ? 0u : dtype == 0 ? (unsigned int)poison * 0x01010101u
                                               : dtype <= 2 ? (unsigned int)poison * 0x0101u : (unsigned int)poison;
  unsigned long long mismatched = 0, poisoned = 0, first_bad = ~0ull, first_problem = ~0ull;
  double max_abs = 0, max_rel = 0;
  int any_nonzero = 0, reference_nonzero = 0;
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    unsigned int xbits, ybits;
    const double x = kernelarc_decode(actual, i, dtype, &xbits), y = kernelarc_decode(expected, i, dtype, &ybits);
    any_nonzero |= !(x == 0.0);
    reference_nonzero |= !(y == 0.0);
    const bool is_poison = poison >= 0 && xbits == pattern;
    bool bad;
    if (isnan(x) || isinf(x)) {
      bad = !(allow_negative_inf && x < 0 && isinf(x) && y == x);
      if (bad && !is_poison && i < first_problem) first_problem = i;
    } else if (isinf(y)) {
      bad = true;
    } else {
      const double error = fabs(x - y);
      bad = error > __dadd_rn(atol, __dmul_rn(rtol, fabs(y)));  // rounded twice, as the host does: no fused multiply-add
      max_abs = fmax(max_abs, error);
      if (y != 0) max_rel = fmax(max_rel, error / fabs(y));
    }
    if (bad) {
      ++mismatched;
      if (i < first_bad) first_bad = i;
      if (is_poison) ++poisoned;
    }
  }
  for (int lane = 16; lane > 0; lane >>= 1) {
    mismatched += __shfl_xor_sync(0xffffffffu, mismatched, lane);
    poisoned += __shfl_xor_sync(0xffffffffu, poisoned, lane);
    first_bad = min(first_bad, __shfl_xor_sync(0xffffffffu, first_bad, lane));
    first_problem = min(first_problem, __shfl_xor_sync(0xffffffffu, first_problem, lane));
    max_abs = fmax(max_abs, __shfl_xor_sync(0xffffffffu, max_abs, lane));
    max_rel = fmax(max_rel, __shfl_xor_sync(0xffffffffu, max_rel, lane));
  }
  any_nonzero = __any_sync(0xffffffffu, any_nonzero);
  reference_nonzero = __any_sync(0xffffffffu, reference_nonzero);
  if ((threadIdx.x & 31) != 0) return;
  if (mismatched) atomicAdd(&result[0], mismatched);
  if (poisoned) atomicAdd(&result[1], poisoned);
  if (first_bad != ~0ull) atomicMin(&result[2], first_bad);
  if (first_problem != ~0ull) atomicMin(&result[3], first_problem);
  if (max_abs > 0) atomicMax(&result[4], (unsigned long long)__double_as_longlong(max_abs));
  if (max_rel > 0) atomicMax(&result[5], (unsigned long long)__double_as_longlong(max_rel));
  if (any_nonzero) atomicOr(&result[6], 1ull);
  if (reference_nonzero) atomicOr(&result[7], 1ull);
}
)";

std::string number_text(double value) { return fmt::format("{}", value); }
double number_from(const nlohmann::json& value) {
  return value.is_string() ? std::strtod(value.get<std::string>().c_str(), nullptr) : value.get<double>();
}

}  // namespace

int device_dtype_code(task::DType dtype) {
  switch (dtype) {
    case task::DType::float32: return 0;
    case task::DType::float16: return 1;
    case task::DType::bfloat16: return 2;
    case task::DType::float8_e4m3fn: return 3;
    case task::DType::float8_e5m2: return 4;
    default: return -1;
  }
}

const char* comparison_kernel_source() { return kComparisonKernel; }

nlohmann::json findings_to_json(const ComparisonFindings& found) {
  return {{"mismatched", found.mismatched},
          {"poisoned_bad", found.poisoned_bad},
          {"first_bad_index", found.first_bad_index},
          {"first_problem_index", found.first_problem_index},
          {"max_abs_error", found.max_abs_error},
          {"max_rel_error", found.max_rel_error},
          {"first_bad_got", number_text(found.first_bad_got)},
          {"first_bad_want", number_text(found.first_bad_want)},
          {"first_problem_value", number_text(found.first_problem_value)},
          {"all_zero", found.all_zero},
          {"reference_all_zero", found.reference_all_zero}};
}

ComparisonFindings findings_from_json(const nlohmann::json& in) {
  ComparisonFindings found;
  found.mismatched = in.at("mismatched").get<std::int64_t>();
  found.poisoned_bad = in.at("poisoned_bad").get<std::int64_t>();
  found.first_bad_index = in.at("first_bad_index").get<std::int64_t>();
  found.first_problem_index = in.at("first_problem_index").get<std::int64_t>();
  found.max_abs_error = number_from(in.at("max_abs_error"));
  found.max_rel_error = number_from(in.at("max_rel_error"));
  found.first_bad_got = number_from(in.at("first_bad_got"));
  found.first_bad_want = number_from(in.at("first_bad_want"));
  found.first_problem_value = number_from(in.at("first_problem_value"));
  found.all_zero = in.at("all_zero").get<bool>();
  found.reference_all_zero = in.at("reference_all_zero").get<bool>();
  return found;
}

}  // namespace kernelarc::judge
