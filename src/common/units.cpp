#include "common/units.h"

#include <fmt/format.h>

namespace kernelarc::common {

std::string format_time_ns(double ns) {
  if (!(ns > 0)) return "-";
  if (ns < 1e3) return fmt::format("{:.0f} ns", ns);
  if (ns < 1e6) return fmt::format("{:.2f} us", ns / 1e3);
  if (ns < 1e9) return fmt::format("{:.2f} ms", ns / 1e6);
  return fmt::format("{:.2f} s", ns / 1e9);
}

std::string speed_ratio(double reference_ns, double time_ns) {
  if (!(reference_ns > 0) || !(time_ns > 0)) return "-";
  const double ratio = reference_ns / time_ns;
  return fmt::format("{:.2f}x {}", ratio, ratio >= 1 ? "faster" : "slower");
}

}  // namespace kernelarc::common
