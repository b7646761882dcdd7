// The text of include/kernelarc/candidate_abi.h, embedded so candidates build wherever the binary runs.
#pragma once

#include <string_view>

namespace kernelarc::judge {

std::string_view candidate_abi_header();

}  // namespace kernelarc::judge
