// The content-caching check's decision on measured figures: what a cache and an honest kernel look like on a quiet
// machine and under load. The figures are of the canary table's softmax-7x1000 on this machine (a 7 us copy against
// a 130 us softmax), with load put where CI's put it.
#include "judge/unseen_check.h"

#include <gtest/gtest.h>

namespace kernelarc::judge {
namespace {

TEST(UnseenCheckTest, ACacheIsSlowerOnEveryNewInput) {
  const auto check = check_unseen_calls({8.7e3, 18.5e3, 7.7e3, 6.8e3, 7.7e3}, 7.7e3, {148.3e3, 130.7e3, 129.4e3}, {1, 3, 5});
  EXPECT_EQ(check.finding, UnseenFinding::slower);
  EXPECT_EQ(check.compared, 3);
  EXPECT_EQ(check.slower, 3);
  EXPECT_DOUBLE_EQ(check.load_rate, 1.0 / 7) << "no call of the loop slowed: one added to each side";
}

TEST(UnseenCheckTest, ACacheIsNotHiddenByOneNeighbourSlowedByLoad) {
  // A 100 us preemption of the loop's call after the first call on new inputs: that pair is left out, not taken as
  // proof (the rule of every pair against its neighbours let this cache pass in CI).
  const auto check = check_unseen_calls({8.7e3, 100e3, 7.7e3, 6.8e3, 7.7e3}, 7.7e3, {148.3e3, 130.7e3, 129.4e3}, {1, 3, 5});
  EXPECT_EQ(check.finding, UnseenFinding::slower);
  EXPECT_EQ(check.compared, 2);
  EXPECT_DOUBLE_EQ(check.load_rate, 2.0 / 7) << "the slowed call counts: load was there";
}

TEST(UnseenCheckTest, AnHonestKernelIsNotSlowerOnNewInputs) {
  const auto check = check_unseen_calls({130e3, 128e3, 135e3, 129e3, 131e3}, 130e3, {131e3, 127e3, 140e3}, {0, 2, 5});
  EXPECT_EQ(check.finding, UnseenFinding::not_slower);
  EXPECT_EQ(check.slower, 0);
}

TEST(UnseenCheckTest, OneHonestCallSlowedByLoadWithItsNeighboursIsNoEvidence) {
  // A 2 us kernel: load slows one call on new inputs and the loop's call after it; that pair is left out, the others clear it.
  const auto check = check_unseen_calls({2e3, 2.1e3, 60e3, 2e3, 1.9e3}, 2e3, {55e3, 2.2e3, 2.4e3}, {2, 4, 5});
  EXPECT_EQ(check.finding, UnseenFinding::not_slower);
  EXPECT_EQ(check.compared, 2);
}

TEST(UnseenCheckTest, SmallDifferencesAreNoise) {
  // Twice the neighbours but only 10 us more: under the slack, as a loaded machine's call can be.
  const auto check = check_unseen_calls({5e3, 5e3, 5e3}, 5e3, {15e3}, {1});
  EXPECT_EQ(check.finding, UnseenFinding::not_slower);
}

TEST(UnseenCheckTest, EveryNeighbourSlowedLeavesNothingToCompare) {
  const auto check = check_unseen_calls({7e3, 90e3, 7e3, 95e3, 7e3}, 7e3, {130e3, 140e3}, {1, 4});
  EXPECT_EQ(check.finding, UnseenFinding::unclear);
  EXPECT_EQ(check.compared, 0);
}

TEST(UnseenCheckTest, ALoopSlowedByLoadAsAWholeIsUnclear) {
  // A core taken by another process: most of the cache's copies waited milliseconds for it (measured so here, with one
  // busy loop beside the judge). Its median then hides the 580 us softmax of the calls on new inputs.
  const auto check = check_unseen_calls({175e3, 3783e3, 1051e3, 2084e3, 2687e3}, 2084e3, {1969e3, 581e3, 576e3}, {1, 3, 5});
  EXPECT_EQ(check.finding, UnseenFinding::unclear);
}

TEST(UnseenCheckTest, CallsBeforeTheFirstAndAfterTheLastHaveOneNeighbour) {
  const auto check = check_unseen_calls({7e3, 7e3, 7e3}, 7e3, {130e3, 130e3}, {0, 3});
  EXPECT_EQ(check.finding, UnseenFinding::slower);
  EXPECT_EQ(check.compared, 2);
  EXPECT_EQ(check_unseen_calls({7e3}, 7e3, {}, {}).finding, UnseenFinding::unclear);
}

}  // namespace
}  // namespace kernelarc::judge
