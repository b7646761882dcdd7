// Times and speed ratios as a person reads them: the unit chosen for the size ("812 ns", "3.41 us", "9.41 ms",
// "1.20 s"), and a ratio said as faster or slower ("2.00x faster", "0.50x slower"), never a signed percentage.
#pragma once

#include <string>

namespace kernelarc::common {

// A duration as a person reads it: "45s", "2m13s", "1h02m".
std::string format_duration_s(double seconds);

// "-" for a time that is not positive.
std::string format_time_ns(double ns);

// How `time_ns` compares with `reference_ns`: reference / time, "2.00x faster" when it is 1 or more, "0.50x slower"
// when below (twice the time). "-" when either is not positive.
std::string speed_ratio(double reference_ns, double time_ns);

// The same for a board's effect, the fraction of the incumbent's time saved ((incumbent - time) / incumbent): 0.5 is
// "2.00x faster", -1 is "0.50x slower".
std::string effect_ratio(double effect);

}  // namespace kernelarc::common
