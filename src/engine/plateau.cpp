#include "engine/plateau.h"

namespace kernelarc::engine {

bool on_plateau(const std::vector<double>& history, std::size_t since, const PlateauOptions& options) {
  if (options.window == 0 || history.size() < since + options.window) return false;
  const double before = history[history.size() - options.window];
  const double now = history.back();
  return before <= 0 || (before - now) / before < options.min_gain;
}

}  // namespace kernelarc::engine
