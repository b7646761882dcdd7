// Every built-in task's CPU starting candidate (its first CPU template) on empty workloads the task allows: each var
// axis set to 0 in turn where the definition's constraints allow it (batch 0, no rows, no tokens). A template must
// pass, not die of SIGFPE (issue 27).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/subprocess.h"
#include "task/task.h"
#include "task/task_library.h"

namespace kernelarc {
namespace {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

class EmptyWorkloadTest : public ::testing::TestWithParam<std::string> {};

TEST_P(EmptyWorkloadTest, TheStartingCandidatePassesEveryEmptyWorkloadTheTaskAllows) {
  const fs::path source = fs::path(KERNELARC_TASKS) / GetParam();
  const auto task = task::load_task(source);
  const fs::path copy = fs::temp_directory_path() / ("kernelarc-empty-" + GetParam() + "-" + std::to_string(::getpid()));
  fs::remove_all(copy);
  fs::copy(source, copy, fs::copy_options::recursive);
  ordered_json definition = ordered_json::parse(std::ifstream(copy / "definition.json"));
  definition["kernelarc"].erase("held_out");
  std::ofstream(copy / "definition.json") << definition.dump(1);
  std::ifstream lines(copy / "workload.jsonl");
  std::string first;
  std::getline(lines, first);
  std::string workloads;
  for (const auto& axis : task.definition.axes) {
    if (axis.kind != task::AxisKind::variable) continue;
    ordered_json line = ordered_json::parse(first);
    line["uuid"] = "empty-" + axis.name;
    line["axes"][axis.name] = 0;
    task::Task probe = task;
    probe.workloads = {task.workloads.front()};
    probe.workloads.front().axes[axis.name] = 0;
    try {
      task::resolve_workload(probe, probe.workloads.front());  // the constraints allow it
    } catch (const task::TaskError&) {
      continue;
    }
    workloads += line.dump() + "\n";
  }
  if (workloads.empty()) GTEST_SKIP() << GetParam() << ": its constraints allow no empty workload";
  std::ofstream(copy / "workload.jsonl") << workloads;
  const auto result = common::run_command({KERNELARC_BINARY, "eval", copy.string(), "--correctness-only", "--rounds", "1", "--store",
                                           (copy / "runs.db").string()},
                                          std::chrono::minutes(3));
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, ::testing::Not(::testing::HasSubstr("SIGFPE")));
  fs::remove_all(copy);
}

std::vector<std::string> builtin_tasks() {
  std::vector<std::string> names;
  for (const auto& directory : task::task_directories(KERNELARC_TASKS)) names.push_back(directory.filename().string());
  return names;
}

INSTANTIATE_TEST_SUITE_P(BuiltinTasks, EmptyWorkloadTest, ::testing::ValuesIn(builtin_tasks()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace kernelarc
