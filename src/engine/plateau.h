// Plateau detection over the incumbent's history: too little improvement within a set number of judged
// candidates means the controller must force a different approach.
#pragma once

#include <cstddef>
#include <vector>

namespace kernelarc::engine {

struct PlateauOptions {
  std::size_t window = 16;  // judged candidates
  double min_gain = 0.02;   // the fraction the incumbent's time must fall by within the window
};

// `history` is the incumbent's time after each judged candidate; `since` is where the last forced change
// happened (a plateau is judged only on what came after it).
bool on_plateau(const std::vector<double>& history, std::size_t since, const PlateauOptions& options);

}  // namespace kernelarc::engine
