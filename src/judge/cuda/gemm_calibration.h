// Dense tensor-core rates the GPU achieves through cuBLASLt (loaded at run time): the "% of achievable"
// ceiling for matrix-multiply tasks, beside the datasheet peaks that T_sol uses.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "judge/cuda/cuda_driver.h"

namespace kernelarc::judge::cuda {

struct GemmRate {
  std::string dtype;  // "bf16" or "fp8_e4m3"
  int m = 0, n = 0, k = 0;
  double median_ms = 0;
  double flops_per_second = 0;  // 2*m*n*k / median
  std::string error;            // non-empty when this case could not be measured (then the numbers are 0)
};

// bf16 x bf16 -> bf16 at 8192^3 and 4096^3, fp8 e4m3 x e4m3 -> bf16 at 8192^3, fp32 accumulation, A
// transposed ("TN"). Needs the device's context current on this thread. An empty vector, with the reason
// in `why`, when cuBLASLt cannot be loaded.
std::vector<GemmRate> measure_gemm_rates(const DriverApi& api, std::string* why);

nlohmann::json to_json(const GemmRate& rate);

}  // namespace kernelarc::judge::cuda
