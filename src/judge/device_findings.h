// A screening's correctness check on the GPU, the judge's side (the worker's is judge/cuda/device_comparison.h): the
// worker keeps each workload's inputs and reference outputs in device memory from one candidate to the next, and a
// kernel of the judge's finds in a candidate's outputs what compare_output finds on the host (judge/comparison.h), so
// that only a few numbers cross PCIe. Only a screening uses it: the full judge compares on the host, with every check
// of each call.
#pragma once

#include <nlohmann/json.hpp>

#include "judge/comparison.h"
#include "task/dtype.h"

namespace kernelarc::judge {

// The kernel's code for `dtype`, -1 where it does not decode it exactly as the host does (it does float32, float16,
// bfloat16 and both fp8 formats; outputs of other dtypes are compared on the host).
int device_dtype_code(task::DType dtype);
inline bool compared_on_device(task::DType dtype) { return device_dtype_code(dtype) >= 0; }

// The kernel's CUDA source: one extern "C" kernel, kernelarc_compare, built by the judge's CUDA compiler.
const char* comparison_kernel_source();

// Findings as the worker replies them (NaN and infinities as text: JSON has neither) and read back by the judge.
nlohmann::json findings_to_json(const ComparisonFindings& found);
ComparisonFindings findings_from_json(const nlohmann::json& in);

}  // namespace kernelarc::judge
