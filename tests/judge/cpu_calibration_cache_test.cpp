// The CPU calibration's cache: runs started together on one cache folder (bench/search_device.sh, a run per device) each
// calibrate and save at once; none may fail for the others' files.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "judge/build_cache.h"
#include "judge/cpu_calibration.h"

namespace kernelarc::judge {
namespace {

TEST(CpuCalibrationCacheTest, SavesAtOnceFromManyThreadsAndReadsBackWhole) {
  const auto folder = std::filesystem::temp_directory_path() / ("kernelarc-calibration-" + std::to_string(::getpid()));
  std::filesystem::remove_all(folder);
  std::vector<std::thread> savers;
  std::vector<std::string> failures(8);
  for (int t = 0; t < 8; ++t)
    savers.emplace_back([&, t] {
      task::DevicePeaks peaks;
      peaks.name = "test cpu";
      peaks.bytes_per_second = 1e10 + t;
      peaks.flops_per_second = {{"float32", 1e11}};
      peaks.source = "measured";
      try {
        for (int i = 0; i < 50; ++i) save_cpu_calibration(folder, peaks);
      } catch (const std::exception& error) {
        failures[t] = error.what();
      }
    });
  for (auto& saver : savers) saver.join();
  for (const auto& failure : failures) EXPECT_EQ(failure, "");
  const auto loaded = load_cpu_calibration(folder);
  ASSERT_TRUE(loaded.has_value());
  EXPECT_EQ(loaded->name, "test cpu");
  EXPECT_GE(loaded->bytes_per_second, 1e10);
  // No temporary file is left behind.
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) files += entry.is_regular_file();
  EXPECT_EQ(files, 1);
  std::filesystem::remove_all(folder);
}

// A write that cannot replace its target (here a folder) throws and leaves no temporary file beside it.
TEST(CpuCalibrationCacheTest, AFailedWriteLeavesNoTemporaryFile) {
  const auto folder = std::filesystem::temp_directory_path() / ("kernelarc-failed-write-" + std::to_string(::getpid()));
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder / "target" / "inside");
  EXPECT_THROW(write_file_atomically(folder / "target", "text"), std::exception);
  int entries = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(folder)) ++entries;
  EXPECT_EQ(entries, 1) << "only the target folder";
  std::filesystem::remove_all(folder);
}

}  // namespace
}  // namespace kernelarc::judge
