// The judge's inputs come from a secret seed of each run's own, apart from the agents' seed: answers recorded in one
// run cannot be baked into a candidate of the next. The seed is recorded with the run, so it can be replayed on purpose.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "common/subprocess.h"
#include "store/store.h"

namespace kernelarc {
namespace {

namespace fs = std::filesystem;

class JudgeSeedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "kernelarc-judge-seed-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    ASSERT_EQ(setenv("KERNELARC_CACHE_DIR", (dir_ / "cache").c_str(), 1), 0);
  }
  void TearDown() override {
    unsetenv("KERNELARC_CACHE_DIR");
    fs::remove_all(dir_);
  }
  // One candidate judged (the start), the lightest protocol: the seed is what is looked at.
  void run(std::vector<std::string> extra) {
    std::vector<std::string> argv = {KERNELARC_BINARY, "run", KERNELARC_GRID_TASK, "--agents", "1", "--budget", "1", "--seed", "5",
                                     "--rounds", "1", "--warmup", "0", "--iterations", "1", "--cpu-bandwidth", "20", "--cpu-gflops", "100",
                                     "--quiet", "--store", (dir_ / "runs.db").string()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    const auto result = common::run_command(argv, std::chrono::minutes(3), 1 << 20);
    ASSERT_EQ(result.exit_code, 0) << result.output;
  }
  std::uint64_t recorded_judge_seed(std::int64_t run_id) {
    auto store = store::Store::open(dir_ / "runs.db");
    const auto record = store.run(run_id);
    if (!record) return 0;
    return nlohmann::json::parse(record->config_json).value("judge_seed", std::uint64_t{0});
  }
  fs::path dir_;
};

TEST_F(JudgeSeedTest, EachRunGetsItsOwnSecretJudgeSeedRecordedApartFromTheAgentsSeed) {
  run({});
  run({});
  const auto first = recorded_judge_seed(1), second = recorded_judge_seed(2);
  EXPECT_NE(first, 0u) << "no judge seed recorded with run 1";
  EXPECT_NE(second, 0u) << "no judge seed recorded with run 2";
  EXPECT_NE(first, second) << "two runs with the same --seed judged on the same inputs";
  EXPECT_NE(first, 5u) << "the judge's seed is the agents' seed";
}

TEST_F(JudgeSeedTest, AGivenJudgeSeedIsRecordedSoARunCanBeReplayed) {
  run({"--judge-seed", "424242"});
  EXPECT_EQ(recorded_judge_seed(1), 424242u);
}

}  // namespace
}  // namespace kernelarc
