// The judge's paired measurement (Judge::time_paired, issue 25 item 4) on the CPU: two candidates timed interleaved on
// softmax's visible workloads, each checked against the reference before it is timed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "judge/judge.h"
#include "judge/paired_timing.h"
#include "judge_test_support.h"
#include "task/roofline.h"
#include "task/task.h"

namespace kernelarc::judge {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::HasSubstr;

// The plain softmax with a spin of 10 ms plus 100 ns per element after the work: honest (same answer), and slower on
// every workload by more than the noise of a loaded 2-core machine (there, a compiler beside the judge puts a stall of
// 3 to 6 ms into about half the calls).
constexpr const char* kSlowSoftmax = R"(
#include <kernelarc/candidate_abi.h>

#include <chrono>
#include <cmath>
#include <cstdint>

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs, (void)stream;
  const float* x = static_cast<const float*>(inputs[0]->data);
  float* y = static_cast<float*>(outputs[0]->data);
  const int64_t rows = inputs[0]->shape[0], cols = inputs[0]->shape[1];
  for (int64_t r = 0; r < rows; ++r) {
    float max = x[r * cols];
    for (int64_t c = 1; c < cols; ++c) max = std::fmax(max, x[r * cols + c]);
    float sum = 0;
    for (int64_t c = 0; c < cols; ++c) sum += std::exp(x[r * cols + c] - max);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - max) / sum;
  }
  const auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(10000000 + 100 * rows * cols);
  while (std::chrono::steady_clock::now() < until) {
  }
  return 0;
}
)";

class PairedTimingTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string pattern = (fs::temp_directory_path() / "kernelarc-paired-timing-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    root_ = new fs::path(pattern);
    // Two visible workloads and a held-out one (softmax's definition holds 17x3001 out).
    const task::Task full = task::load_task(fs::path(KERNELARC_TASKS) / "softmax");
    task_ = new task::Task(full);
    task_->workloads.clear();
    for (const auto& workload : full.workloads)
      if (workload.uuid == "softmax-7x1000" || workload.uuid == "softmax-2x2" || workload.uuid == "softmax-17x3001")
        task_->workloads.push_back(workload);
  }
  static void TearDownTestSuite() {
    std::error_code ignored;
    fs::remove_all(*root_, ignored);
    delete root_;
    delete task_;
  }

  static JudgeOptions options() {
    JudgeOptions options;
    options.rounds = 3;
    options.warmup = 1;
    options.iterations = 5;
    options.rechecks = 2;
    options.call_timeout = std::chrono::milliseconds(3000);
    // A VM may report its host's whole L3 (480 MiB on CI's): twice that flushed before every timed call, on two busy cores,
    // took a trivial softmax's calls past the timeout. These tests judge verdicts, not cache eviction.
    options.flush_bytes = 64u << 20;
    options.seed = 0x9a1e'd5ee'd000ULL;
    options.worker_executable = KERNELARC_BINARY;
    options.scratch_directory = *root_ / "scratch";
    options.compiler.cache_directory = *root_ / "cache";
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
  static CandidateSource candidate(const std::string& name, const std::string& source) {
    CandidateSource made;
    made.name = name;
    made.source = source;
    return made;
  }
  static CandidateSource plain() { return candidate("softmax.candidate", read_text(fs::path(KERNELARC_TASKS) / "softmax" / "candidate.cpp")); }
  static CandidateSource slow() { return candidate("slow_softmax", kSlowSoftmax); }
  static CandidateSource canary(const std::string& name) {
    return candidate(name, read_text(fs::path(KERNELARC_CANDIDATES) / (name + ".cpp")));
  }

  static double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
  }

  static fs::path* root_;
  static task::Task* task_;
};

fs::path* PairedTimingTest::root_ = nullptr;
task::Task* PairedTimingTest::task_ = nullptr;

TEST_F(PairedTimingTest, TheSlowerOfTwoHonestCandidatesIsSlowerInMostPairsOnEveryVisibleWorkload) {
  Judge judge(*task_, options(), peaks());
  // As the engine calls it: after both passed the full judge.
  for (const auto& candidate : {plain(), slow()}) {
    const auto verdict = judge.evaluate(candidate);
    ASSERT_TRUE(verdict.passed()) << describe(verdict);
    if (std::getenv("KERNELARC_TEST_VERBOSE")) std::cerr << describe(verdict);
  }
  constexpr int kPairs = 11;
  for (const bool slow_first : {false, true}) {
    const auto paired = slow_first ? judge.time_paired(slow(), plain(), kPairs) : judge.time_paired(plain(), slow(), kPairs);
    ASSERT_FALSE(paired.failure) << *paired.failure;
    EXPECT_GT(paired.seconds, 0);
    // The visible workloads in the task's order; the held-out one is never measured.
    ASSERT_EQ(paired.workloads.size(), 2u);
    EXPECT_EQ(paired.workloads[0].uuid, "softmax-7x1000");
    EXPECT_EQ(paired.workloads[1].uuid, "softmax-2x2");
    for (const auto& row : paired.workloads) {
      ASSERT_EQ(row.first_ns.size(), static_cast<std::size_t>(kPairs)) << row.uuid;
      ASSERT_EQ(row.second_ns.size(), static_cast<std::size_t>(kPairs)) << row.uuid;
      const auto& fast_ns = slow_first ? row.second_ns : row.first_ns;
      const auto& slow_ns = slow_first ? row.first_ns : row.second_ns;
      if (std::getenv("KERNELARC_TEST_VERBOSE")) {
        std::cerr << row.uuid << (slow_first ? " slow first:" : " plain first:");
        for (int i = 0; i < kPairs; ++i) std::cerr << " (" << row.first_ns[i] / 1e3 << ", " << row.second_ns[i] / 1e3 << ")";
        std::cerr << "\n";
      }
      int slower = 0;
      for (int i = 0; i < kPairs; ++i) {
        EXPECT_GT(fast_ns[static_cast<std::size_t>(i)], 0) << row.uuid << " pair " << i;
        slower += slow_ns[static_cast<std::size_t>(i)] > fast_ns[static_cast<std::size_t>(i)];
      }
      // The spin alone is 10 ms, a stall of load about half that.
      EXPECT_GT(median(slow_ns), median(fast_ns)) << row.uuid << ": slow " << median(slow_ns) << " ns, plain " << median(fast_ns) << " ns";
      EXPECT_GT(slower, kPairs / 2) << row.uuid;
    }
  }
}

TEST_F(PairedTimingTest, AWrongCandidateOnEitherSideIsAFailureNamingItAndIsNeverTimed) {
  Judge judge(*task_, options(), peaks());
  for (const bool wrong_first : {true, false}) {
    const auto paired = wrong_first ? judge.time_paired(canary("wrong_values"), plain(), 5) : judge.time_paired(plain(), canary("wrong_values"), 5);
    ASSERT_TRUE(paired.failure) << "wrong first: " << wrong_first;
    EXPECT_THAT(*paired.failure, AllOf(HasSubstr(wrong_first ? "the first candidate (wrong_values)" : "the second candidate (wrong_values)"),
                                       HasSubstr("INCORRECT_NUMERICAL"), HasSubstr("correctness"), HasSubstr("softmax-7x1000")));
    EXPECT_TRUE(paired.workloads.empty()) << "a failed measurement gives no samples";
  }
}

TEST_F(PairedTimingTest, RightInTheChecksThenWrongIsCaughtByTheRecheckedPairs) {
  // 3 rounds and the repeat of round 0 are 4 calls, the warm-up 1 more: the pairs' calls from the 9th on are wrong, and
  // the last pair is always checked again.
  Judge judge(*task_, options(), peaks());
  const auto paired = judge.time_paired(plain(), canary("correct_then_wrong"), 8);
  ASSERT_TRUE(paired.failure);
  EXPECT_THAT(*paired.failure, AllOf(HasSubstr("the second candidate (correct_then_wrong)"), HasSubstr("REWARD_HACK"),
                                     HasSubstr("wrong during timing")));
}

TEST_F(PairedTimingTest, ACandidateCannotReachTheBuffersOfTheOneTimedBesideIt) {
  // Both are alive at once, so each one's buffers are out of the other's walls. The canary overwrites the other's
  // buffer wherever it could be: without the walls it gets there, and the other fails its checks (the canary can do
  // what it tries); behind them it reaches nothing, and both are timed.
  for (const bool sandbox : {false, true})
    for (const bool tamperer_first : {true, false}) {
      auto judge_options = options();
      judge_options.sandbox = sandbox;
      Judge judge(*task_, judge_options, peaks());
      const auto paired = tamperer_first ? judge.time_paired(canary("tampers_with_its_rival"), plain(), 5)
                                         : judge.time_paired(plain(), canary("tampers_with_its_rival"), 5);
      const std::string where = std::string(sandbox ? "walls" : "no walls") + (tamperer_first ? ", tamperer first" : ", tamperer second");
      if (sandbox) {
        EXPECT_FALSE(paired.failure) << where << ": " << *paired.failure;
        EXPECT_EQ(paired.workloads.size(), 2u) << where;
      } else {
        ASSERT_TRUE(paired.failure) << where << ": the canary did not reach the other's buffer, so the test proves nothing";
        EXPECT_THAT(*paired.failure, HasSubstr(tamperer_first ? "the second candidate (softmax.candidate)" : "the first candidate (softmax.candidate)"))
            << where;
      }
    }
}

}  // namespace
}  // namespace kernelarc::judge
