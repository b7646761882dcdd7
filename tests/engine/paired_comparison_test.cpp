// The paired confirmation decides on scripted timings: a real win is accepted, a win that is only noise is not.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include "engine/paired_comparison.h"

namespace kernelarc::engine {
namespace {

// Scripted timings: `pairs` interleaved pairs, each time the base times (1 + noise), noise uniform in [-spread, spread].
std::vector<PairedSample> scripted(std::size_t pairs, double incumbent_ns, double challenger_ns, double spread,
                                   std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  auto noisy = [&](double base) {
    const double unit = static_cast<double>(engine() >> 11) * 0x1.0p-53;  // [0, 1)
    return base * (1 + spread * (2 * unit - 1));
  };
  std::vector<PairedSample> samples;
  for (std::size_t i = 0; i < pairs; ++i) {
    const double incumbent = noisy(incumbent_ns);
    samples.push_back({incumbent, noisy(challenger_ns)});
  }
  return samples;
}

TEST(PairedComparisonTest, AcceptsARealTenPercentWin) {
  const PairedResult result = compare_paired(scripted(20, 1000, 900, 0.05, 7));
  EXPECT_TRUE(result.challenger_wins) << result.reason;
  EXPECT_NEAR(result.ratio, 0.9, 0.03);
  EXPECT_LT(result.upper_bound, result.threshold);
  EXPECT_EQ(result.pairs, 20u);
}

TEST(PairedComparisonTest, RejectsAWinThatIsOnlyNoise) {
  // Both sides drawn from one noisy distribution (5% either way): the challenger's "win" is noise. Over many scripted
  // runs it is rejected nearly always (the one-sided 95% bound and the 1% floor let through a few at most).
  int accepted = 0;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    PairedOptions options;
    options.seed = seed;
    const PairedResult result = compare_paired(scripted(20, 1000, 1000, 0.05, seed), options);
    if (result.challenger_wins) ++accepted;
  }
  EXPECT_LE(accepted, 6) << "accepted " << accepted << " of 200 noise-only challengers";
  // And on a script where the challenger's median time is lower, by noise only, it still loses.
  const std::vector<PairedSample> samples = scripted(20, 1000, 1000, 0.05, 3);
  const PairedResult result = compare_paired(samples);
  EXPECT_FALSE(result.challenger_wins) << result.reason;
  EXPECT_GE(result.upper_bound, result.threshold);
}

TEST(PairedComparisonTest, RejectsAWinOnlyOnANoisyOutlier) {
  // The challenger is as fast as the incumbent on every pair but two, where the incumbent was hit by a stall: the mean
  // would call it 10% faster, the paired median does not.
  std::vector<PairedSample> samples = scripted(20, 1000, 1000, 0.005, 11);
  samples[4].incumbent_ns = 3000;
  samples[13].incumbent_ns = 2500;
  const PairedResult result = compare_paired(samples);
  EXPECT_FALSE(result.challenger_wins) << result.reason;
  EXPECT_NEAR(result.ratio, 1.0, 0.01);
}

TEST(PairedComparisonTest, RejectsAWinWithinTheNoiseFloor) {
  // Consistently faster, but by 0.5%: below the 1% floor, not a win.
  const PairedResult result = compare_paired(scripted(30, 1000, 995, 0.001, 5));
  EXPECT_FALSE(result.challenger_wins) << result.reason;
  EXPECT_NEAR(result.ratio, 0.995, 0.002);
}

TEST(PairedComparisonTest, TooFewPairsDecideNothing) {
  const PairedResult result = compare_paired(scripted(5, 1000, 500, 0.01, 2));
  EXPECT_FALSE(result.challenger_wins);
  EXPECT_NEAR(result.ratio, 0.5, 0.02);
  EXPECT_FALSE(compare_paired({}).challenger_wins);
}

TEST(PairedComparisonTest, IsDeterministicForASeed) {
  const std::vector<PairedSample> samples = scripted(15, 1000, 985, 0.04, 9);
  PairedOptions options;
  options.seed = 42;
  const PairedResult first = compare_paired(samples, options);
  const PairedResult second = compare_paired(samples, options);
  EXPECT_EQ(first.upper_bound, second.upper_bound);
  EXPECT_EQ(first.challenger_wins, second.challenger_wins);
  EXPECT_EQ(first.reason, second.reason);
}

TEST(PairedComparisonTest, RejectsTimesThatAreNotPositive) {
  EXPECT_THROW(compare_paired({{1000, 0}}), std::invalid_argument);
  EXPECT_THROW(compare_paired({{NAN, 1000}}), std::invalid_argument);
}

}  // namespace
}  // namespace kernelarc::engine
