// Classes of workloads by size: found where configurations really differ, never on noise, deterministic.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "engine/shape_classes.h"

namespace kernelarc::engine {
namespace {

// Sizes 1..8 (given out of order); configuration 0 is fast on the four small ones, 1 on the four large ones.
TEST(ShapeClassesTest, TwoRegimesGiveTwoClassesSplitAtTheMidpoint) {
  const std::vector<double> sizes = {8, 1, 7, 2, 6, 3, 5, 4};
  std::vector<std::vector<double>> times(2, std::vector<double>(sizes.size()));
  for (std::size_t w = 0; w < sizes.size(); ++w) {
    times[0][w] = sizes[w] <= 4 ? 10 : 30;
    times[1][w] = sizes[w] <= 4 ? 20 : 15;
  }
  const auto found = choose_shape_classes(sizes, times, 4);
  ASSERT_EQ(found.classes.size(), 2u);
  EXPECT_EQ(found.classes[0].configuration, 0u);
  EXPECT_DOUBLE_EQ(found.classes[0].up_to, 4.5);
  EXPECT_EQ(found.classes[0].workloads, 4u);
  EXPECT_EQ(found.classes[1].configuration, 1u);
  EXPECT_TRUE(std::isinf(found.classes[1].up_to));
  EXPECT_NEAR(found.classes_ns, std::sqrt(10.0 * 15.0), 1e-9);
  EXPECT_NEAR(found.single_ns, std::sqrt(20.0 * 15.0), 1e-9);  // configuration 1 alone is the better single one
}

TEST(ShapeClassesTest, AGainBelowTheThresholdIsNoiseAndMerges) {
  const std::vector<double> sizes = {1, 2, 3, 4};
  // Configuration 1 is 1% faster on the two large sizes only: not worth a class.
  const std::vector<std::vector<double>> times = {{10, 10, 10, 10}, {11, 11, 9.9, 9.9}};
  const auto found = choose_shape_classes(sizes, times, 4);
  ASSERT_EQ(found.classes.size(), 1u);
  EXPECT_EQ(found.classes[0].configuration, 0u);
  // The same 1% is a class when the threshold allows it.
  EXPECT_EQ(choose_shape_classes(sizes, times, 4, 0.005).classes.size(), 2u);
}

TEST(ShapeClassesTest, ThreeRegimesNeedThreeClassesAndKLimitsThem) {
  const std::vector<double> sizes = {1, 2, 10, 20, 100, 200};
  const std::vector<std::vector<double>> times = {{1, 1, 4, 4, 9, 9}, {2, 2, 2, 2, 9, 9}, {3, 3, 4, 4, 3, 3}};
  const auto three = choose_shape_classes(sizes, times, 4);
  ASSERT_EQ(three.classes.size(), 3u);
  EXPECT_EQ(three.classes[0].configuration, 0u);
  EXPECT_EQ(three.classes[1].configuration, 1u);
  EXPECT_EQ(three.classes[2].configuration, 2u);
  EXPECT_DOUBLE_EQ(three.classes[0].up_to, 6);
  EXPECT_DOUBLE_EQ(three.classes[1].up_to, 60);
  EXPECT_EQ(choose_shape_classes(sizes, times, 2).classes.size(), 2u);
  EXPECT_EQ(choose_shape_classes(sizes, times, 1).classes.size(), 1u);
}

// The H100's gemm_bf16_residual, 2026-12-07: a 128 x 256 tile fits 1571 rows of 2560 columns in one wave where its
// neighbours of 1024 and 2048 rows want 160 columns. Two configurations, three classes: the first takes both sides.
TEST(ShapeClassesTest, AConfigurationMayTakeClassesOnBothSidesOfAnother) {
  const std::vector<double> sizes = {1, 2, 3, 4, 5};
  const std::vector<std::vector<double>> times = {{10, 10, 14, 10, 10}, {13, 13, 10, 13, 13}};
  const auto found = choose_shape_classes(sizes, times, 2);
  ASSERT_EQ(found.classes.size(), 3u);
  EXPECT_EQ(found.classes[0].configuration, 0u);
  EXPECT_DOUBLE_EQ(found.classes[0].up_to, 2.5);
  EXPECT_EQ(found.classes[1].configuration, 1u);
  EXPECT_DOUBLE_EQ(found.classes[1].up_to, 3.5);
  EXPECT_EQ(found.classes[1].workloads, 1u);
  EXPECT_EQ(found.classes[2].configuration, 0u);
  EXPECT_NEAR(found.classes_ns, 10.0, 1e-9);
  // One configuration allowed: the faster alone everywhere.
  ASSERT_EQ(choose_shape_classes(sizes, times, 1).classes.size(), 1u);
}

// A run of one size a little faster on another configuration than its neighbours' is noise: it joins them.
TEST(ShapeClassesTest, ARunThatGainsLessThanTheThresholdJoinsItsNeighbour) {
  const std::vector<double> sizes = {1, 2, 3, 4, 5};
  // Configuration 1 is 20% faster on sizes 4 and 5, and 1% faster on size 2 alone.
  const std::vector<std::vector<double>> times = {{10, 10, 10, 10, 10}, {11, 9.9, 11, 8, 8}};
  const auto found = choose_shape_classes(sizes, times, 4);
  ASSERT_EQ(found.classes.size(), 2u);
  EXPECT_EQ(found.classes[0].configuration, 0u);
  EXPECT_DOUBLE_EQ(found.classes[0].up_to, 3.5);
  EXPECT_EQ(found.classes[1].configuration, 1u);
}

TEST(ShapeClassesTest, WorkloadsOfOneSizeStayTogether) {
  // Two workloads of size 5 want different configurations: no threshold can part them, so they share a class.
  const std::vector<double> sizes = {5, 5, 9};
  const std::vector<std::vector<double>> times = {{1, 3, 5}, {3, 1, 1}};
  const auto found = choose_shape_classes(sizes, times, 4);
  ASSERT_FALSE(found.classes.empty());
  EXPECT_GE(found.classes.front().workloads, 2u);
  if (found.classes.size() > 1) EXPECT_DOUBLE_EQ(found.classes.front().up_to, 7);
}

TEST(ShapeClassesTest, TiesGoToTheLowerIndexAndTheAnswerIsTheSameEveryTime) {
  const std::vector<double> sizes = {1, 2, 3};
  const std::vector<std::vector<double>> times = {{5, 5, 5}, {5, 5, 5}};
  const auto a = choose_shape_classes(sizes, times, 4);
  ASSERT_EQ(a.classes.size(), 1u);
  EXPECT_EQ(a.classes[0].configuration, 0u);
  const auto b = choose_shape_classes(sizes, times, 4);
  EXPECT_EQ(b.classes[0].configuration, a.classes[0].configuration);
}

TEST(ShapeClassesTest, AConfigurationWithoutATimeTakesNoClassHoldingThatWorkload) {
  const std::vector<double> sizes = {1, 2, 3, 4};
  // Configuration 1 is much faster where it has times but has none on size 1.
  const std::vector<std::vector<double>> times = {{10, 10, 10, 10}, {0, 1, 1, 1}};
  const auto found = choose_shape_classes(sizes, times, 4);
  ASSERT_EQ(found.classes.size(), 2u);
  EXPECT_EQ(found.classes[0].configuration, 0u);
  EXPECT_DOUBLE_EQ(found.classes[0].up_to, 1.5);
  EXPECT_EQ(found.classes[1].configuration, 1u);
}

TEST(ShapeClassesTest, RefusesWhatItCannotClassify) {
  EXPECT_THROW(choose_shape_classes({}, {{}}, 4), std::invalid_argument);
  EXPECT_THROW(choose_shape_classes({1, 2}, {{1}}, 4), std::invalid_argument);
  EXPECT_THROW(choose_shape_classes({1, 2}, {}, 4), std::invalid_argument);
  EXPECT_THROW(choose_shape_classes({1, 2}, {{0, 1}, {1, 0}}, 4), std::invalid_argument);  // no one configuration covers both
}

}  // namespace
}  // namespace kernelarc::engine
