// The text of include/kernelarc/candidate_abi.h, embedded so candidates build wherever the binary runs.
#pragma once

#include <string_view>
#include <utility>
#include <vector>

namespace kernelarc::judge {

std::string_view candidate_abi_header();
// dlpack/dlpack.h as installed where this binary was built (the ABI header includes it).
std::string_view dlpack_header();
// include/kernelarc/device.cuh: device code every CUDA candidate may include (packed bf16, warp reductions).
std::string_view device_header();
// include/kernelarc/gemm_sm90.cuh: the Hopper GEMM pieces (mbarriers, cp.async ring, wgmma) of the GEMM templates.
std::string_view gemm_sm90_header();
// Every device header a CUDA candidate may include, by its include path (device.cuh, gemm_sm90.cuh).
std::vector<std::pair<std::string_view, std::string_view>> shared_device_headers();

}  // namespace kernelarc::judge
