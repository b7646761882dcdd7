// Statistics of timing samples shared by the judge's timing protocol and the torch baseline.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace kernelarc::judge {

// The value at `fraction` (0.5: the median) of the samples, interpolated between the two nearest; 0 when there are none.
inline double percentile(std::vector<double> sorted_values, double fraction) {
  if (sorted_values.empty()) return 0;
  std::sort(sorted_values.begin(), sorted_values.end());
  const double position = fraction * static_cast<double>(sorted_values.size() - 1);
  const auto below = static_cast<std::size_t>(position);
  const auto above = std::min(below + 1, sorted_values.size() - 1);
  return sorted_values[below] + (position - static_cast<double>(below)) * (sorted_values[above] - sorted_values[below]);
}

}  // namespace kernelarc::judge
