// The text of include/kernelarc/candidate_abi.h, embedded so candidates build wherever the binary runs.
#pragma once

#include <string_view>

namespace kernelarc::judge {

std::string_view candidate_abi_header();
// dlpack/dlpack.h as installed where this binary was built (the ABI header includes it).
std::string_view dlpack_header();

}  // namespace kernelarc::judge
