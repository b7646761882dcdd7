// What a GPU is and what it achieves: its properties from the driver and the copy bandwidth measured
// with a kernel of our own, for "% of achievable" beside the SOL score (T_sol uses datasheet peaks).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "judge/cuda/cuda_compiler.h"

namespace kernelarc::judge::cuda {

struct GpuCalibration {
  std::string name;
  int ordinal = 0;
  int compute_major = 0;
  int compute_minor = 0;
  int multiprocessors = 0;
  long long l2_bytes = 0;
  long long memory_bytes = 0;
  int max_sm_clock_khz = 0;          // the driver's maximum, not the clock under load
  int driver_version = 0;
  double copy_bytes_per_second = 0;  // device to device, bytes read plus bytes written
  double copy_spread = 0;            // (q3 - q1) / median of the copy timings
  std::string copy_launch;           // the launch shape that copied fastest
  std::string date;
};

// Measures device `ordinal`; throws std::runtime_error when there is no usable GPU, saying why.
GpuCalibration calibrate_gpu(int ordinal, const CudaCompiler& compiler);

nlohmann::json to_json(const GpuCalibration& calibration);

}  // namespace kernelarc::judge::cuda
