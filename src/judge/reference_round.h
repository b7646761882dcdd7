// A round of a workload as the trusted side knows it: the inputs it was given and the reference's outputs for them,
// kept for the next candidates (the same seed gives the same round).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace kernelarc::judge {

// One correctness round of a workload as the trusted side knows it: pristine inputs and the reference's outputs.
struct ReferenceRound {
  std::vector<std::byte> slot_image;                 // inputs with guard bytes in the gaps
  std::vector<std::vector<std::byte>> reference;     // reference outputs
  std::string skipped;  // an extra round whose inputs the reference cannot take (it overflows, say): why it is not run
  std::size_t bytes() const {
    std::size_t total = slot_image.size();
    for (const auto& output : reference) total += output.size();
    return total;
  }
};

}  // namespace kernelarc::judge
