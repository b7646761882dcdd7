// The PyTorch extension source that SOL-ExecBench builds around a candidate (binding "torch"): `run(inputs...,
// outputs...)` in the definition's order, each tensor described as the DLTensor the candidate ABI expects, the
// candidate's entry point called on PyTorch's current CUDA stream.
#pragma once

#include <string>

#include "task/task.h"

namespace kernelarc::report {

// The at::ScalarType enumerator of a dtype ("Float", "BFloat16", ...); throws std::invalid_argument for a dtype
// PyTorch cannot hold as the judge lays it out (float4_e2m1: two values per byte, one value per element).
std::string torch_scalar_type(task::DType dtype);

// C++ source of the binding. `preamble` (comment lines) goes first. A tensor argument must be a CUDA tensor of the
// definition's dtype and rank; inputs are made contiguous, outputs must be (they are written in place); a plain
// scalar of the definition (shape null) is a Python number, passed on as a 0-d device tensor, as the judge does.
std::string torch_binding_cpp(const task::Definition& definition, const std::string& preamble);

}  // namespace kernelarc::report
