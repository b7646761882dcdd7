#include "judge/cuda/device_comparison.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "judge/device_findings.h"

namespace kernelarc::judge::cuda {

ComparisonFindings compare_on_device(const DriverApi& api, CUfunction kernel, CUstream stream, CUdeviceptr scratch, CUdeviceptr actual,
                                     CUdeviceptr expected, std::size_t elements, task::DType dtype, double atol, double rtol,
                                     bool allow_negative_inf, std::optional<std::uint8_t> poison, int multiprocessors) {
  ComparisonFindings found;
  int code = device_dtype_code(dtype);
  if (code < 0) throw std::runtime_error(fmt::format("{} is not compared on the device", task::dtype_name(dtype)));
  if (elements == 0) return found;
  check(api, api.memset_d8_async(scratch, 0, 64, stream), "clear the comparison's findings");
  check(api, api.memset_d8_async(scratch + 16, 0xFF, 16, stream), "clear the comparison's first indices");
  unsigned long long count = elements;
  int allow = allow_negative_inf ? 1 : 0, poison_byte = poison ? static_cast<int>(*poison) : -1;
  void* parameters[] = {&actual, &expected, &count, &code, &atol, &rtol, &allow, &poison_byte, &scratch};
  const auto blocks = static_cast<unsigned>(std::clamp<std::size_t>((elements + 255) / 256, 1, static_cast<std::size_t>(std::max(multiprocessors, 1)) * 8));
  check(api, api.launch_kernel(kernel, blocks, 1, 1, 256, 1, 1, 0, stream, parameters, nullptr), "launch the comparison");
  check(api, api.stream_synchronize(stream), "the comparison");
  unsigned long long result[8] = {};
  check(api, api.memcpy_dtoh(result, scratch, sizeof result), "read the comparison's findings");
  const std::size_t element_bytes = task::dtype_bits(dtype) / 8;
  const auto value_at = [&](CUdeviceptr base, unsigned long long index) {
    unsigned char bytes[4] = {};
    check(api, api.memcpy_dtoh(bytes, base + index * element_bytes, element_bytes), "read an element back");
    return static_cast<double>(task::to_float32(dtype, bytes, 1).front());
  };
  found.mismatched = static_cast<std::int64_t>(result[0]);
  found.poisoned_bad = static_cast<std::int64_t>(result[1]);
  if (result[2] != ~0ull) {
    found.first_bad_index = static_cast<std::int64_t>(result[2]);
    found.first_bad_got = value_at(actual, result[2]);
    found.first_bad_want = value_at(expected, result[2]);
  }
  if (result[3] != ~0ull) {
    found.first_problem_index = static_cast<std::int64_t>(result[3]);
    found.first_problem_value = value_at(actual, result[3]);
  }
  std::memcpy(&found.max_abs_error, &result[4], sizeof(double));
  std::memcpy(&found.max_rel_error, &result[5], sizeof(double));
  found.all_zero = result[6] == 0;
  found.reference_all_zero = result[7] == 0;
  return found;
}

}  // namespace kernelarc::judge::cuda
