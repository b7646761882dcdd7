// Times and speed ratios as a person reads them: the unit chosen for the size ("812 ns", "3.41 us", "9.41 ms",
// "1.20 s"), and a ratio said as faster or slower ("2.00x faster", "0.50x slower"), never a signed percentage.
#pragma once

#include <string>

namespace kernelarc::common {

// "-" for a time that is not positive.
std::string format_time_ns(double ns);

// How `time_ns` compares with `reference_ns`: reference / time, "2.00x faster" when it is 1 or more, "0.50x slower"
// when below (twice the time). "-" when either is not positive.
std::string speed_ratio(double reference_ns, double time_ns);

}  // namespace kernelarc::common
