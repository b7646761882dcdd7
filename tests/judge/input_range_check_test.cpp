#include "judge/input_range_check.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "task/task.h"

namespace kernelarc::judge {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

const fs::path kTasks = fs::path(KERNELARC_TASKS);

std::string read(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void replace(std::string& text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  ASSERT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
}

// The built-in rotary task as it was before it took the benchmark's positions: a cache of 128 rows allowed.
class NarrowRotaryTask : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "kernelarc_range_check_XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    directory_ = pattern;
    fs::copy(kTasks / "rotary", directory_, fs::copy_options::recursive);
    std::string definition = read(directory_ / "definition.json");
    replace(definition, "\"max_position >= 1024\"", "\"max_position >= 128\"");
    std::ofstream(directory_ / "definition.json") << definition;
    const std::string axes = R"("num_q_heads": 4, "num_kv_heads": 2, "head_dim": 64)";
    std::ofstream(directory_ / "workload.jsonl")
        << R"({"uuid": "short-cache", "axes": {"num_tokens": 8, )" << axes << R"(, "max_position": 512}, "inputs": {}})" << "\n"
        << R"({"uuid": "long-cache", "axes": {"num_tokens": 8, )" << axes << R"(, "max_position": 1024}, "inputs": {}})" << "\n"
        << R"({"uuid": "given-positions", "axes": {"num_tokens": 1, )" << axes
        << R"(, "max_position": 128}, "inputs": {"positions": {"type": "scalar", "value": 3}}})" << "\n";
    for (const char* held_out : {"rotary-3x40x8x128", "rotary-777x14x2x64"})  // named by the definition
      std::ofstream(directory_ / "workload.jsonl", std::ios::app)
          << R"({"uuid": ")" << held_out << R"(", "axes": {"num_tokens": 3, )" << axes << R"(, "max_position": 4096}})" << "\n";
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(directory_, ignored);
  }
  fs::path directory_;
};

TEST_F(NarrowRotaryTask, LoadingNamesTheWorkloadWhoseCacheTheBenchmarksPositionsOverrun) {
  const auto task = task::load_task(directory_);
  const auto warnings = input_range_warnings(task);
  ASSERT_EQ(warnings.size(), 1u) << "long-cache holds [-1024, 1024); given-positions does not draw them";
  EXPECT_THAT(warnings[0], HasSubstr("workload short-cache: input 'positions' (int64) is drawn in [-1024, 1024)"));
  EXPECT_THAT(warnings[0], HasSubstr("'cos_sin_cache', which it indexes, has 512 rows (max_position = 512)"));
}

TEST(InputRangeCheckTest, TheBuiltInRotaryTaskTakesTheBenchmarksPositions) {
  const auto task = task::load_task(kTasks / "rotary");
  EXPECT_TRUE(input_range_warnings(task).empty());
  EXPECT_THAT(integer_input_notes(task.definition),
              ElementsAre("input 'positions' (int64) is drawn in [-1024, 1024) as SOL-ExecBench draws it: negative values index "
                          "from the end, as in PyTorch"));
  for (const char* name : {"softmax", "matmul", "layernorm"}) {
    const auto other = task::load_task(kTasks / name);
    EXPECT_TRUE(input_range_warnings(other).empty()) << name;
    EXPECT_TRUE(integer_input_notes(other.definition).empty()) << name;
  }
}

}  // namespace
}  // namespace kernelarc::judge
