// The text of include/kernelarc/candidate_abi.h, embedded so candidates build wherever the binary runs.
#pragma once

#include <string_view>

namespace kernelarc::judge {

std::string_view candidate_abi_header();
// dlpack/dlpack.h as installed where this binary was built (the ABI header includes it).
std::string_view dlpack_header();
// include/kernelarc/device.cuh: device code every CUDA candidate may include (packed bf16, warp reductions).
std::string_view device_header();

}  // namespace kernelarc::judge
