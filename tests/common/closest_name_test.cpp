#include "common/closest_name.h"

#include <gtest/gtest.h>

#include "common/units.h"

namespace kernelarc::common {
namespace {

TEST(ClosestNameTest, CountsInsertionsDeletionsReplacementsAndSwaps) {
  EXPECT_EQ(edit_distance("device", "device"), 0u);
  EXPECT_EQ(edit_distance("devcie", "device"), 1u);  // two neighbours swapped
  EXPECT_EQ(edit_distance("runn", "run"), 1u);
  EXPECT_EQ(edit_distance("helt_out", "held_out"), 1u);
  EXPECT_EQ(edit_distance("Strategie", "strategy"), 2u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
}

TEST(ClosestNameTest, SuggestsOnlyANameThatIsClose) {
  const std::vector<std::string> options = {"device", "budget", "brain", "seed"};
  EXPECT_EQ(closest_name("devcie", options), "device");
  EXPECT_EQ(closest_name("budgte", options), "budget");
  EXPECT_EQ(closest_name("zzzzzz", options), std::nullopt);
  EXPECT_EQ(closest_name("sed", options), "seed");
  EXPECT_EQ(did_you_mean("oop_type", {"op_type", "name"}), " (did you mean op_type?)");
  EXPECT_EQ(did_you_mean("xyz", {"op_type", "name"}), "");
}

TEST(UnitsTest, TimesTakeTheUnitOfTheirSizeAndRatiosSayFasterOrSlower) {
  EXPECT_EQ(format_time_ns(812), "812 ns");
  EXPECT_EQ(format_time_ns(3412), "3.41 us");
  EXPECT_EQ(format_time_ns(9412260), "9.41 ms");
  EXPECT_EQ(format_time_ns(1.2e9), "1.20 s");
  EXPECT_EQ(format_time_ns(0), "-");
  EXPECT_EQ(speed_ratio(200, 100), "2.00x faster");
  EXPECT_EQ(speed_ratio(100, 200), "0.50x slower");
  EXPECT_EQ(speed_ratio(100, 100), "1.00x faster");
  EXPECT_EQ(speed_ratio(0, 100), "-");
  EXPECT_EQ(effect_ratio(0.5), "2.00x faster");
  EXPECT_EQ(effect_ratio(-1.0), "0.50x slower");
  EXPECT_EQ(effect_ratio(0.25), "1.33x faster");
  EXPECT_EQ(format_duration_s(45), "45s");
  EXPECT_EQ(format_duration_s(133), "2m13s");
  EXPECT_EQ(format_duration_s(3720), "1h02m");
}

}  // namespace
}  // namespace kernelarc::common
