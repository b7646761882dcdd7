// The machine around a candidate's timing: the load average and the GPU's SM clock before and after, and the warning a
// verdict carries when they moved.
#include "judge/machine_conditions.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kernelarc::judge {
namespace {

TEST(MachineConditionsTest, TheLoadAverageIsReadFromProcLoadavgsText) {
  EXPECT_EQ(parse_loadavg("0.52 0.58 0.59 1/389 12345\n"), 0.52);
  EXPECT_EQ(parse_loadavg(""), std::nullopt);
  EXPECT_EQ(parse_loadavg("nan 1 1"), std::nullopt);
  const auto now = read_machine_conditions("cpu");
  EXPECT_TRUE(now.load_1min.has_value()) << "Linux has /proc/loadavg";
  EXPECT_FALSE(now.sm_clock_mhz.has_value()) << "no clock is read for the CPU";
}

TEST(MachineConditionsTest, AMoveBeyondNoiseIsAWarningThatSaysWhatMoved) {
  EXPECT_THAT(conditions_moved({0.5, std::nullopt}, {1.2, std::nullopt}, 2), ::testing::IsEmpty()) << "less than 1";
  EXPECT_THAT(conditions_moved({0.5, std::nullopt}, {7.0, std::nullopt}, 32), ::testing::IsEmpty()) << "less than a quarter of 32 cores";
  EXPECT_THAT(conditions_moved({0.1, std::nullopt}, {3.5, std::nullopt}, 2),
              ::testing::ElementsAre("the machine's load moved during timing, 0.10 -> 3.50 (1-minute load average, 2 cores): other work "
                                     "shared the cores, so the times may be off; judge again on a quieter machine"));
  EXPECT_THAT(conditions_moved({0.1, 1980u}, {0.1, 1900u}, 16), ::testing::IsEmpty()) << "4% is noise";
  EXPECT_THAT(conditions_moved({0.1, 1980u}, {0.1, 1755u}, 16),
              ::testing::ElementsAre("the GPU's SM clock moved during timing, 1980 MHz -> 1755 MHz: it throttled or boosted, so the times may "
                                     "be off; lock the clocks (nvidia-smi --lock-gpu-clocks) or judge again"));
  EXPECT_THAT(conditions_moved({std::nullopt, std::nullopt}, {3.0, 1000u}, 2), ::testing::IsEmpty()) << "nothing to compare";
}

}  // namespace
}  // namespace kernelarc::judge
