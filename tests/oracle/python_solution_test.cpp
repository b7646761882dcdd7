// SOL-ExecBench solutions that bind a torch function, judged through the oracle's candidate role
// (python/kernelarc_oracle.py --role candidate): the built-in softmax task on the CPU, real processes, Debian's
// python3-torch. An honest solution passes, in either calling convention; a wrong one, one that keeps its first answer,
// one that returns another dtype and one that writes in its input are rejected with why; one that writes outside its
// folder or forks is stopped by the sandbox. The fixtures are tests/judge/solutions/*.json. Skipped, and said so, where
// torch is missing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "common/subprocess.h"
#include "judge/judge.h"
#include "judge/reference_oracle.h"
#include "judge_test_support.h"
#include "task/solution_file.h"

namespace kernelarc::judge {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class PythonSolutionTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string pattern = (fs::temp_directory_path() / "kernelarc-python-solution-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    root_ = new fs::path(pattern);
  }
  static void TearDownTestSuite() {
    std::error_code ignored;
    fs::remove_all(*root_, ignored);
    delete root_;
    root_ = nullptr;
  }
  void SetUp() override {
    const auto oracle = find_reference_oracle();
    ASSERT_TRUE(oracle.usable()) << ::testing::PrintToString(oracle.problems);
    const auto probe = common::run_command({oracle.python.string(), "-c", "import torch"}, std::chrono::minutes(2), 1 << 16);
    if (!probe.ok()) GTEST_SKIP() << "PyTorch is not importable by " << oracle.python << " (scripts/setup installs python3-torch)";
  }

  // softmax on three workloads (one of them 2x2), checked by its native C++ reference.
  static task::Task softmax() {
    auto task = task::load_task(fs::path(KERNELARC_TASKS) / "softmax");
    std::erase_if(task.workloads, [](const task::Workload& w) {
      return w.uuid != "softmax-7x1000" && w.uuid != "softmax-2x2" && w.uuid != "softmax-17x3001";
    });
    return task;
  }
  static JudgeOptions options() {
    JudgeOptions options;
    options.rounds = 2;
    options.warmup = 1;
    options.iterations = 3;
    options.rechecks = 1;
    options.unseen_calls = 1;
    options.call_timeout = std::chrono::milliseconds(20000);
    options.seed = 0x5017;
    options.worker_executable = KERNELARC_BINARY;
    options.scratch_directory = *root_ / "scratch";
    options.compiler.cache_directory = *root_ / "cache";
    options.roofline_margin = 2.0;
    return options;
  }
  static task::DevicePeaks peaks() {
    task::DevicePeaks peaks;
    peaks.name = "test CPU";
    // Above any CPU's memory: at 10 GB/s an honest small workload whose bytes stayed in cache beat T_sol in CI.
    peaks.bytes_per_second = 1e12;
    peaks.flops_per_second = {{"fp32", 1e11}};
    peaks.source = "test";
    return peaks;
  }
  static CandidateSource solution(const std::string& name) {
    CandidateSource source;
    source.name = name;
    source.source = read_text(fs::path(KERNELARC_SOLUTIONS) / (name + ".json"));
    auto read = task::read_solution(source.source);
    EXPECT_TRUE(task::runs_in_oracle(read)) << name;
    source.solution = std::make_shared<const task::SolutionCandidate>(std::move(read));
    return source;
  }
  static bool landlock_raised(const CandidateVerdict& verdict) {
    if (!verdict.sandbox.is_object()) return false;
    for (const auto& wall : verdict.sandbox.value("active", nlohmann::json::array()))
      if (wall.get<std::string>().starts_with("landlock")) return true;
    return false;
  }

  static fs::path* root_;
};

fs::path* PythonSolutionTest::root_ = nullptr;

TEST_F(PythonSolutionTest, HonestSolutionsPassInBothCallingConventionsInsideTheSandbox) {
  const auto task = softmax();
  Judge judge(task, options(), peaks());
  for (const char* name : {"softmax_pytorch", "softmax_pytorch_dps", "softmax_pytorch_package"}) {
    const auto verdict = judge.evaluate(solution(name));
    EXPECT_TRUE(verdict.passed()) << describe(verdict);
    EXPECT_EQ(verdict.kind, "python solution through the oracle") << name;
    ASSERT_EQ(verdict.workloads.size(), 3u) << describe(verdict);
    for (const auto& row : verdict.workloads) {
      EXPECT_EQ(row.rounds_passed, 2) << name << " " << row.uuid;
      ASSERT_TRUE(row.timing) << name << " " << row.uuid;
      EXPECT_EQ(row.timing->samples_ns.size(), 3u) << name << " " << row.uuid;
      // Calls on new inputs, checked as the loop's are: one, or more where load made the judge measure again.
      EXPECT_GE(row.timing->unseen_ns.size(), 1u) << name << " " << row.uuid;
    }
    // The walls were raised by the oracle itself, with the interpreter's folders read-only and no child process.
    ASSERT_TRUE(verdict.sandbox.is_object()) << name;
    const std::string walls = verdict.sandbox.dump();
    EXPECT_THAT(walls, HasSubstr("seccomp")) << walls;
    EXPECT_THAT(walls, HasSubstr("folders of the interpreter read-only")) << walls;
    EXPECT_THAT(walls, ::testing::Not(HasSubstr("child processes: fork and exec allowed"))) << walls;
  }
}

TEST_F(PythonSolutionTest, WrongAnswersAreRejectedWithTheirReason) {
  const auto task = softmax();
  Judge judge(task, options(), peaks());
  const auto wrong = judge.evaluate(solution("softmax_pytorch_wrong"));
  ASSERT_EQ(wrong.workloads.size(), 3u) << describe(wrong);
  for (const auto& row : wrong.workloads) {
    EXPECT_EQ(status_name(row.status), "INCORRECT_NUMERICAL") << row.uuid << ": " << row.reason;
    EXPECT_THAT(row.reason, HasSubstr("output 'y'")) << row.uuid;
  }
  const auto dtype = judge.evaluate(solution("softmax_pytorch_wrong_dtype"));
  for (const auto& row : dtype.workloads) {
    EXPECT_EQ(status_name(row.status), "INCORRECT_DTYPE") << row.uuid << ": " << row.reason;
    EXPECT_THAT(row.reason, HasSubstr("output 'y' is float64, the definition says float32")) << row.uuid;
  }
  const auto in_place = judge.evaluate(solution("softmax_pytorch_modifies_input"));
  for (const auto& row : in_place.workloads) {
    EXPECT_EQ(status_name(row.status), "REWARD_HACK") << row.uuid << ": " << row.reason;
    EXPECT_THAT(row.reason, HasSubstr("modified its input 'x'")) << row.uuid;
  }
}

TEST_F(PythonSolutionTest, ASolutionThatReturnsItsFirstAnswerAgainIsRejected) {
  const auto task = softmax();
  Judge judge(task, options(), peaks());
  const auto verdict = judge.evaluate(solution("softmax_pytorch_caches_first"));
  ASSERT_EQ(verdict.workloads.size(), 3u) << describe(verdict);
  for (const auto& row : verdict.workloads) {
    EXPECT_NE(row.status, Status::passed) << describe(verdict);
    EXPECT_EQ(row.rounds_passed, 1) << row.uuid << ": the first round is its own answer, the second is not";
  }
}

TEST_F(PythonSolutionTest, TheSandboxStopsWritesOutsideItsFolderAndNewProcesses) {
  const auto task = softmax();
  Judge judge(task, options(), peaks());
  const fs::path escaped = fs::path(std::getenv("HOME") ? std::getenv("HOME") : "/root") / "kernelarc-escaped-solution.txt";
  std::error_code ignored;
  fs::remove(escaped, ignored);
  const auto writes = judge.evaluate(solution("softmax_pytorch_writes_outside"));
  if (!landlock_raised(writes)) GTEST_SKIP() << "no Landlock on this kernel: " << writes.sandbox.dump();
  EXPECT_FALSE(fs::exists(escaped)) << "the solution wrote " << escaped;
  for (const auto& row : writes.workloads) {
    EXPECT_EQ(status_name(row.status), "RUNTIME_ERROR") << row.uuid;
    EXPECT_THAT(row.reason, HasSubstr("the solution raised PermissionError")) << row.uuid;
    EXPECT_THAT(row.reason, HasSubstr("kernel.py:6 in run")) << row.uuid;
  }
  const auto forks = judge.evaluate(solution("softmax_pytorch_forks"));
  for (const auto& row : forks.workloads) {
    EXPECT_EQ(status_name(row.status), "RUNTIME_ERROR") << row.uuid;
    EXPECT_THAT(row.reason, HasSubstr("the sandbox refused a system call")) << row.uuid;
  }
}

// A C++ solution bound through torch (PYBIND11_MODULE), built by torch's extension loader in the candidate's folder,
// inside its walls (the build's children allowed, then forbidden again), then judged like any other. Needs torch's C++
// headers (Debian: libtorch-dev and pybind11-dev); the build takes a minute on two cores.
TEST_F(PythonSolutionTest, ATorchExtensionIsBuiltInItsFolderAndJudged) {
  const auto oracle = find_reference_oracle();
  const auto headers = common::run_command(
      {oracle.python.string(), "-c",
       "import os, sys, sysconfig, torch.utils.cpp_extension as e\n"
       "folders = e.include_paths() + ['/usr/include', '/usr/local/include', sysconfig.get_paths()['include']]\n"
       "found = lambda header: any(os.path.exists(os.path.join(folder, header)) for folder in folders)\n"
       "sys.exit(0 if found('torch/extension.h') and found('pybind11/pybind11.h') else 77)"},
      std::chrono::minutes(2), 1 << 16);
  if (!headers.ok())
    GTEST_SKIP() << "torch's C++ headers (torch/extension.h, pybind11) are not installed for " << oracle.python
                 << " (Debian: libtorch-dev and pybind11-dev)";
  const auto task = softmax();
  auto judge_options = options();
  judge_options.call_timeout = std::chrono::milliseconds(30000);
  Judge judge(task, judge_options, peaks());
  const auto verdict = judge.evaluate(solution("softmax_torch_extension"));
  EXPECT_TRUE(verdict.passed()) << describe(verdict);
  EXPECT_EQ(verdict.kind, "torch extension through the oracle");
  EXPECT_THAT(verdict.sandbox.dump(), HasSubstr("child processes: fork and exec allowed"));
}

}  // namespace
}  // namespace kernelarc::judge
