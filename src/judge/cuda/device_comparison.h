// A screening's correctness check on the GPU, the worker's side (the judge's is judge/device_findings.h): the
// comparison kernel over one output against its kept reference, and the first bad and first non-finite element read
// back and decoded.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <optional>

#include "judge/comparison.h"
#include "judge/cuda/cuda_driver.h"
#include "task/dtype.h"

namespace kernelarc::judge::cuda {

// `actual` and `expected` are device pointers to `elements` elements; `scratch` holds 64 bytes of device memory.
ComparisonFindings compare_on_device(const DriverApi& api, CUfunction kernel, CUstream stream, CUdeviceptr scratch, CUdeviceptr actual,
                                     CUdeviceptr expected, std::size_t elements, task::DType dtype, double atol, double rtol,
                                     bool allow_negative_inf, std::optional<std::uint8_t> poison, int multiprocessors);

}  // namespace kernelarc::judge::cuda
