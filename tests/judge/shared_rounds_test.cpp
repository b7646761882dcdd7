// A run's screeners read the rounds its judge made (Judge::share_rounds_with): a screening after the full judgement makes
// no inputs and runs no reference again, and a judge whose rounds would not be the other's cannot share them.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <type_traits>

#include "judge/judge.h"
#include "judge/screening.h"
#include "judge_test_support.h"
#include "task/roofline.h"
#include "task/task.h"

namespace kernelarc::judge {
namespace {

namespace fs = std::filesystem;

// A judge and a screener keep a reference to their task: one made from a temporary read a freed task (GpuJudgeTest's
// "cannot read <garbage>" from the reference's path), so a temporary does not compile.
static_assert(std::is_constructible_v<Judge, const task::Task&, JudgeOptions, task::DevicePeaks>);
static_assert(std::is_constructible_v<Judge, task::Task&, JudgeOptions, task::DevicePeaks>);
static_assert(!std::is_constructible_v<Judge, task::Task, JudgeOptions, task::DevicePeaks>);
static_assert(!std::is_constructible_v<Judge, task::Task&&, JudgeOptions, task::DevicePeaks>);
static_assert(std::is_constructible_v<Screener, const task::Task&, JudgeOptions, task::DevicePeaks>);
static_assert(!std::is_constructible_v<Screener, task::Task, JudgeOptions, task::DevicePeaks>);

class SharedRoundsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "kernelarc-shared-rounds-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    root_ = pattern;
    task_ = task::load_task(fs::path(KERNELARC_TASKS) / "softmax");
    std::erase_if(task_.workloads, [](const task::Workload& w) { return w.uuid != "softmax-7x1000" && w.uuid != "softmax-2x2"; });
    ASSERT_EQ(task_.workloads.size(), 2u);
    options_.rounds = 2;
    options_.warmup = 1;
    options_.iterations = 3;
    options_.rechecks = 1;
    options_.unseen_calls = 1;
    options_.seed = 0x5eed'2026ULL;
    options_.worker_executable = KERNELARC_BINARY;
    options_.scratch_directory = root_ / "scratch";
    options_.compiler.cache_directory = root_ / "cache";
    peaks_.name = "test CPU";
    // Above any CPU's memory: at 10 GB/s an honest small workload whose bytes stayed in cache beat T_sol in CI.
    peaks_.bytes_per_second = 1e12;
    peaks_.flops_per_second = {{"fp32", 1e11}};
    peaks_.source = "test";
    candidate_.name = "softmax.candidate";
    candidate_.source = read_text(fs::path(KERNELARC_TASKS) / "softmax" / "candidate.cpp");
  }
  void TearDown() override { fs::remove_all(root_); }

  fs::path root_;
  task::Task task_;
  JudgeOptions options_;
  task::DevicePeaks peaks_;
  CandidateSource candidate_;
};

TEST_F(SharedRoundsTest, AScreeningAfterTheJudgeMakesNoInputsAgain) {
  Judge judge(task_, options_, peaks_);
  const auto judged = judge.evaluate(candidate_);
  ASSERT_TRUE(judged.passed()) << describe(judged);
  ASSERT_GT(judged.phase_seconds.count("inputs"), 0u) << "the judge made its rounds";

  Screener alone(task_, screening_options(options_), peaks_);
  const auto own = alone.screen(candidate_);
  ASSERT_EQ(own.outcome, ScreeningOutcome::measured);
  EXPECT_GT(own.phase_seconds.count("inputs"), 0u) << "a screener of its own makes its round";

  Screener sharing(task_, screening_options(options_), peaks_);
  sharing.share_rounds_with(judge);
  const auto shared = sharing.screen(candidate_);
  ASSERT_EQ(shared.outcome, ScreeningOutcome::measured);
  EXPECT_EQ(shared.phase_seconds.count("inputs"), 0u) << "its round 0 is the judge's";
  for (const auto& row : shared.workloads) EXPECT_TRUE(row.timing) << row.uuid;
}

// A screening ranks and never decides: it leaves the checks of each call (inputs read back, round 0 called again with
// another poison) to the full judge. A candidate whose every call after the first moves an output by half the tolerance
// is measured by a screening and condemned as nondeterministic by the full judge.
TEST_F(SharedRoundsTest, AScreeningLeavesTheChecksOfEachCallToTheFullJudge) {
  const task::Tolerance& tolerance = task_.workloads.front().tolerance;
  CandidateSource wobbly = candidate_;
  wobbly.name = "softmax.moves_after_its_first_call";
  const auto end = wobbly.source.rfind("return 0;");
  ASSERT_NE(end, std::string::npos);
  wobbly.source.insert(end, fmt::format("static int calls = 0;\n  float* first = static_cast<float*>(outputs[0]->data);\n"
                                        "  if (++calls > 1) first[0] += 0.5f * ({}f + {}f * std::fabs(first[0]));\n  ",
                                        tolerance.max_atol, tolerance.max_rtol));

  Screener screener(task_, screening_options(options_), peaks_);
  EXPECT_FALSE(screener.options().checks_each_call);
  const auto screened = screener.screen(wobbly);
  EXPECT_EQ(screened.outcome, ScreeningOutcome::measured) << (screened.workloads.empty() ? "" : screened.workloads.front().reason);

  Judge judge(task_, options_, peaks_);
  const auto judged = judge.evaluate(wobbly);
  ASSERT_FALSE(judged.passed());
  ASSERT_FALSE(judged.workloads.empty());
  EXPECT_EQ(judged.workloads.front().status, Status::reward_hack) << describe(judged);
  EXPECT_NE(judged.workloads.front().reason.find("nondeterministic"), std::string::npos) << judged.workloads.front().reason;
}

TEST_F(SharedRoundsTest, OnlyAJudgeOfFewerBenchmarkRoundsOnTheSameSeedShares) {
  Judge judge(task_, options_, peaks_);
  JudgeOptions other_seed = screening_options(options_);
  other_seed.seed = options_.seed + 1;
  EXPECT_THROW(Judge(task_, other_seed, peaks_).share_rounds_with(judge), std::invalid_argument);
  JudgeOptions more_rounds = screening_options(options_);
  more_rounds.rounds = options_.rounds + 1;
  EXPECT_THROW(Judge(task_, more_rounds, peaks_).share_rounds_with(judge), std::invalid_argument);
  JudgeOptions stricter = screening_options(options_);
  stricter.stricter_rounds = true;  // its extra rounds would sit at indices that are the judge's benchmark rounds
  EXPECT_THROW(Judge(task_, stricter, peaks_).share_rounds_with(judge), std::invalid_argument);
  EXPECT_NO_THROW(Judge(task_, screening_options(options_), peaks_).share_rounds_with(judge));
}

}  // namespace
}  // namespace kernelarc::judge
