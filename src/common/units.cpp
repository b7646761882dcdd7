#include "common/units.h"

#include <fmt/format.h>

namespace kernelarc::common {

std::string format_duration_s(double seconds) {
  const long long s = static_cast<long long>(seconds + 0.5);
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, s % 3600 / 60);
}

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

std::string effect_ratio(double effect) { return speed_ratio(1.0, 1.0 - effect); }

}  // namespace kernelarc::common
