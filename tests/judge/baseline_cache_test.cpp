// The torch baseline's cache: evals and runs started together on one cache folder store the same workload's T_b at
// once; what a reader finds must be one whole entry, never a mix of two writers.
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "judge/baseline_cache.h"

namespace kernelarc::judge {
namespace {

TEST(BaselineCacheTest, StoresAtOnceFromManyThreadsWhileReadersAlwaysFindOneWholeEntry) {
  const auto folder = std::filesystem::temp_directory_path() / ("kernelarc-baselines-" + std::to_string(::getpid()));
  std::filesystem::remove_all(folder);
  const BaselineCache cache(folder);
  BaselineKey key{"task", "workload", "cuda:0", "test gpu", "2.9", 10, 100, 1 << 20};
  // Sources of different lengths: interleaved writes into one file would leave a damaged or mixed entry.
  const auto baseline_of = [](int t) { return CachedBaseline{1000.0 + t, std::string(1 + 40 * t, 'a' + t)}; };
  const auto is_whole = [&](const std::optional<CachedBaseline>& found) {
    if (!found) return false;
    const int t = static_cast<int>(found->ns) - 1000;
    return t >= 0 && t < 6 && found->source == baseline_of(t).source;
  };
  cache.store(key, baseline_of(0));
  std::atomic<bool> writing{true};
  std::atomic<int> damaged{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 300; ++i) cache.store(key, baseline_of(t));
    });
  // Once an entry exists, a reader finds a whole one at every moment: a damaged entry would cost a re-measurement.
  std::thread reader([&] {
    while (writing) damaged += !is_whole(cache.find(key));
  });
  for (auto& thread : threads) thread.join();
  writing = false;
  reader.join();
  EXPECT_EQ(damaged, 0);
  EXPECT_TRUE(is_whole(cache.find(key)));
  // No temporary file is left behind.
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) files += entry.is_regular_file();
  EXPECT_EQ(files, 1);
  std::filesystem::remove_all(folder);
}

}  // namespace
}  // namespace kernelarc::judge
