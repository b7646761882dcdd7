// The judge's round cache: what it keeps for the next candidates when not every round fits.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "judge/round_cache.h"

namespace kernelarc::judge {
namespace {

std::shared_ptr<const ReferenceRound> round_of(std::size_t bytes) {
  auto round = std::make_shared<ReferenceRound>();
  round->slot_image.resize(bytes);
  return round;
}

// Eight workloads judged one after another, five correctness rounds of 100 bytes each, offered to a cache of `budget` bytes.
RoundCache eight_workloads_of_five_rounds(std::size_t budget) {
  RoundCache cache;
  cache.set_budget(budget);
  for (int w = 0; w < 8; ++w)
    for (int index = 0; index < 5; ++index) cache.offer(RoundCache::Kind::correctness, "w" + std::to_string(w), index, round_of(100));
  return cache;
}

// A budget of ten rounds, a task of eight workloads judged workload by workload, five rounds each (forty rounds): every
// workload's round 0 is kept, which a screening needs, not every round of the first two workloads; what fits beside them
// stays (the first workload's later rounds, as many as are left).
TEST(RoundCacheTest, EveryWorkloadsFirstRoundIsKeptBeforeLaterRounds) {
  RoundCache cache = eight_workloads_of_five_rounds(10 * 100);
  for (int w = 0; w < 8; ++w) EXPECT_NE(cache.find(RoundCache::Kind::correctness, "w" + std::to_string(w), 0), nullptr) << "workload " << w;
  int later = 0;
  for (int w = 0; w < 8; ++w)
    for (int index = 1; index < 5; ++index) later += cache.find(RoundCache::Kind::correctness, "w" + std::to_string(w), index) != nullptr;
  EXPECT_EQ(later, 2) << "the budget's two rounds left after the eight first ones";
}

// Everything that fits is kept: a task whose rounds all fit loses none of them to the rule above.
TEST(RoundCacheTest, RoundsThatAllFitAreAllKept) {
  RoundCache cache = eight_workloads_of_five_rounds(40 * 100);
  for (int w = 0; w < 8; ++w) EXPECT_NE(cache.find(RoundCache::Kind::correctness, "w" + std::to_string(w), 4), nullptr) << "workload " << w;
}

// Rounds are kept in order only: a round after a missing one is not kept, and each kind has its own rounds.
TEST(RoundCacheTest, RoundsAreKeptInOrderAndByKind) {
  RoundCache cache;
  cache.set_budget(1 << 20);
  cache.offer(RoundCache::Kind::correctness, "w", 1, round_of(10));
  EXPECT_EQ(cache.find(RoundCache::Kind::correctness, "w", 1), nullptr);
  cache.offer(RoundCache::Kind::correctness, "w", 0, round_of(10));
  cache.offer(RoundCache::Kind::correctness, "w", 1, round_of(10));
  EXPECT_NE(cache.find(RoundCache::Kind::correctness, "w", 1), nullptr);
  EXPECT_EQ(cache.find(RoundCache::Kind::unseen, "w", 0), nullptr);
}

}  // namespace
}  // namespace kernelarc::judge
