// The CPU judge end to end: real compiler, real worker processes, the built-in tasks, and one canary candidate
// per hack class (tests/judge/candidates, each saying in its first line what it does). docs/GUARD.md is the spec.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "judge/judge.h"
#include "judge_test_support.h"
#include "judge/input_generator.h"
#include "judge/verdict.h"
#include "task/roofline.h"
#include "task/task.h"

namespace kernelarc::judge {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::AnyOf;
using ::testing::ContainsRegex;
using ::testing::Eq;
using ::testing::HasSubstr;
using ::testing::Not;

class CpuJudgeTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string pattern = (fs::temp_directory_path() / "kernelarc-cpu-judge-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    root_ = new fs::path(pattern);
  }
  static void TearDownTestSuite() {
    std::error_code ignored;
    fs::remove_all(*root_, ignored);
    delete root_;
    root_ = nullptr;
  }

  static const task::Task& builtin(const std::string& name) {
    static std::map<std::string, task::Task> tasks;
    auto found = tasks.find(name);
    if (found == tasks.end()) found = tasks.emplace(name, task::load_task(fs::path(KERNELARC_TASKS) / name)).first;
    return found->second;
  }

  // The task with only the named workloads, to keep the canaries fast.
  static task::Task only(const task::Task& full, const std::set<std::string>& uuids) {
    task::Task subset = full;
    subset.workloads.clear();
    for (const auto& workload : full.workloads)
      if (uuids.count(workload.uuid)) subset.workloads.push_back(workload);
    EXPECT_EQ(subset.workloads.size(), uuids.size()) << "a workload named in the test is not in " << full.definition.name;
    return subset;
  }

  static const task::Task& small_softmax() {
    static const task::Task subset = only(builtin("softmax"), {"softmax-7x1000", "softmax-2x2"});
    return subset;
  }

  static JudgeOptions options() {
    JudgeOptions options;
    options.rounds = 3;
    options.warmup = 1;
    options.iterations = 5;
    options.rechecks = 2;
    options.call_timeout = std::chrono::milliseconds(2000);
    // A VM may report its host's whole L3 (480 MiB on CI's): twice that flushed before every timed call, on two busy cores,
    // took a trivial softmax's calls past the timeout. These tests judge verdicts, not cache eviction.
    options.flush_bytes = 64u << 20;
    options.seed = 0x5eed'1234'abcdULL;
    options.worker_executable = KERNELARC_BINARY;
    options.scratch_directory = *root_ / "scratch";
    options.compiler.cache_directory = *root_ / "cache";
    options.roofline_margin = 1.0;
    return options;
  }

  // Above any CPU's memory by default: at 10 GB/s an honest small workload whose bytes stayed in cache beat T_sol in CI.
  static task::DevicePeaks peaks(double bytes_per_second = 1e12) {
    task::DevicePeaks peaks;
    peaks.name = "test CPU";
    peaks.bytes_per_second = bytes_per_second;
    peaks.flops_per_second = {{"fp32", 1e11}};
    peaks.source = "test";
    return peaks;
  }

  static CandidateSource source(const fs::path& file) {
    CandidateSource candidate;
    candidate.name = file.stem().string();
    candidate.source = read_text(file);
    return candidate;
  }
  static CandidateSource canary(const std::string& name) {
    return source(fs::path(KERNELARC_CANDIDATES) / (name + ".cpp"));
  }
  static CandidateSource task_candidate(const std::string& task) {
    auto candidate = source(fs::path(KERNELARC_TASKS) / task / "candidate.cpp");
    candidate.name = task + ".candidate";
    return candidate;
  }

  static CandidateVerdict run(const task::Task& task, const CandidateSource& candidate, const JudgeOptions& judge_options = options(),
                              const task::DevicePeaks& device = peaks()) {
    Judge judge(task, judge_options, device);
    auto verdict = judge.evaluate(candidate);
    if (std::getenv("KERNELARC_TEST_VERBOSE")) std::cerr << describe(verdict);  // every verdict, for a reader
    return verdict;
  }

  // Every workload of `task` judged, each with `status` and a reason containing every one of `fragments`.
  static void expect_every_workload(const task::Task& task, const CandidateVerdict& verdict, Status status,
                                    const std::vector<std::string>& fragments) {
    ASSERT_EQ(verdict.workloads.size(), task.workloads.size()) << describe(verdict);
    EXPECT_FALSE(verdict.passed()) << describe(verdict);
    for (const auto& row : verdict.workloads) {
      EXPECT_EQ(status_name(row.status), status_name(status)) << row.uuid << ": " << row.reason;
      for (const auto& fragment : fragments) EXPECT_THAT(row.reason, HasSubstr(fragment)) << row.uuid;
    }
  }

  static void expect_all_pass(const task::Task& task, const CandidateVerdict& verdict, const JudgeOptions& judge_options = options()) {
    ASSERT_TRUE(verdict.build.ok) << verdict.build.diagnostics;
    ASSERT_EQ(verdict.workloads.size(), task.workloads.size()) << describe(verdict);
    EXPECT_TRUE(verdict.passed()) << describe(verdict);
    for (const auto& row : verdict.workloads) {
      EXPECT_EQ(status_name(row.status), "PASSED") << row.uuid << ": " << row.reason;
      EXPECT_EQ(row.reason, "") << row.uuid;
      EXPECT_FALSE(row.failed_at) << row.uuid << ": a place only where the checks stopped";
      EXPECT_EQ(row.rounds_passed, judge_options.rounds) << row.uuid;
      ASSERT_TRUE(row.timing.has_value()) << row.uuid;
      EXPECT_EQ(row.timing->samples_ns.size(), static_cast<std::size_t>(judge_options.iterations)) << row.uuid;
      const auto unseen = static_cast<std::size_t>(judge_options.unseen_calls);  // three times as many when measured again
      EXPECT_THAT(row.timing->unseen_ns.size(), AnyOf(Eq(unseen), Eq(3 * unseen))) << row.uuid;
      ASSERT_TRUE(row.roofline.has_value()) << row.uuid;
      EXPECT_GT(row.roofline->seconds, 0) << row.uuid;
    }
  }

  static fs::path* root_;
};

fs::path* CpuJudgeTest::root_ = nullptr;

// ---------------------------------------------------------------------------------------------------------------
// Honest candidates pass.

TEST_F(CpuJudgeTest, SoftmaxStartingCandidatePassesEveryWorkloadWithTimings) {
  const auto& task = builtin("softmax");
  const auto verdict = run(task, task_candidate("softmax"));
  expect_all_pass(task, verdict);
  EXPECT_EQ(std::count_if(verdict.workloads.begin(), verdict.workloads.end(), [](const auto& row) { return row.held_out; }), 2)
      << "the held-out workloads are judged too";
}

// The judge's flush before a timed call is its own work, not the candidate's call: a flush slower than the call's
// timeout (2 GiB, the first time into fresh pages in each worker: over a second, against 500 ms; as ~1 GiB was against
// 2-3 s on a loaded 480 MiB-L3 VM) must not fail an honest candidate whose calls take microseconds.
TEST_F(CpuJudgeTest, AFlushSlowerThanTheCallTimeoutDoesNotFailAnHonestCandidate) {
  const auto task = only(builtin("softmax"), {"softmax-2x2"});
  auto judge_options = options();
  judge_options.flush_bytes = std::size_t{2} << 30;
  judge_options.call_timeout = std::chrono::milliseconds(500);
  judge_options.rounds = 1, judge_options.iterations = 2, judge_options.rechecks = 1;
  expect_all_pass(task, run(task, task_candidate("softmax"), judge_options), judge_options);
}

TEST_F(CpuJudgeTest, AddRmsnormStartingCandidatePassesEveryWorkloadWithTimings) {
  // bfloat16, two outputs, a plain scalar input (eps).
  const auto& task = builtin("add_rmsnorm");
  expect_all_pass(task, run(task, task_candidate("add_rmsnorm")));
}

TEST_F(CpuJudgeTest, MatmulStartingCandidatePassesEveryWorkloadWithTimings) {
  const auto& task = builtin("matmul");
  expect_all_pass(task, run(task, task_candidate("matmul")));
}

TEST_F(CpuJudgeTest, CandidatePrintingGarbageOnStdoutAndStderrStillPasses) {
  // The candidate's stdout goes to the worker's log, never into the protocol, even when it prints fake replies.
  const task::Task task = only(builtin("softmax"), {"softmax-1x4096", "softmax-7x1000", "softmax-2x2"});
  expect_all_pass(task, run(task, canary("garbage_output")));
}

TEST_F(CpuJudgeTest, PersistentHelperThreadParkedBetweenCallsPasses) {
  // A legitimate trick: a pool thread that outlives the call but sleeps on a condition variable.
  const task::Task task = only(builtin("softmax"), {"softmax-7x1000", "softmax-128x1024", "softmax-2x2"});
  expect_all_pass(task, run(task, canary("thread_pool")));
}

TEST_F(CpuJudgeTest, PassingVerdictKeepsEveryTimingSample) {
  const task::Task task = only(builtin("softmax"), {"softmax-32x4096"});
  const auto judge_options = options();
  const auto verdict = run(task, task_candidate("softmax"), judge_options);
  expect_all_pass(task, verdict, judge_options);
  const auto& timing = *verdict.workloads.at(0).timing;
  ASSERT_EQ(timing.samples_ns.size(), static_cast<std::size_t>(judge_options.iterations));
  EXPECT_EQ(timing.in_process_ns.size(), timing.samples_ns.size());
  const auto [lowest, highest] = std::minmax_element(timing.samples_ns.begin(), timing.samples_ns.end());
  EXPECT_EQ(timing.min_ns, *lowest);
  EXPECT_LE(*lowest, timing.median_ns);
  EXPECT_LE(timing.median_ns, *highest);
  EXPECT_LE(timing.q1_ns, timing.median_ns);
  EXPECT_LE(timing.median_ns, timing.q3_ns);
  EXPECT_GT(timing.median_ns, 0) << "a 32x4096 softmax takes real time";
  EXPECT_GT(timing.call_overhead_ns, 0);
  EXPECT_GT(timing.wall_per_iteration_ns, 0);
  EXPECT_EQ(timing.input_slots, judge_options.warmup + judge_options.iterations) << "a fresh input address per call";
}

// ---------------------------------------------------------------------------------------------------------------
// Wrong answers.

TEST_F(CpuJudgeTest, WrongValuesAreIncorrectNumericalNamingOutputAndIndex) {
  const auto verdict = run(small_softmax(), canary("wrong_values"));
  expect_every_workload(small_softmax(), verdict, Status::incorrect_numerical, {"output 'y'", "first bad ["});
  for (const auto& row : verdict.workloads) {
    EXPECT_THAT(row.reason, ContainsRegex("\\[[0-9]+, [0-9]+\\]")) << row.uuid;
    EXPECT_EQ(row.rounds_passed, 0);
  }
}

TEST_F(CpuJudgeTest, WritingPastTheEndOfTheOutputIsIncorrectShape) {
  expect_every_workload(small_softmax(), run(small_softmax(), canary("wrong_shape")), Status::incorrect_shape,
                        {"past the end of output 'y'"});
}

TEST_F(CpuJudgeTest, OneUnwrittenElementIsIncorrectNumerical) {
  const auto verdict = run(small_softmax(), canary("unwritten_element"));
  expect_every_workload(small_softmax(), verdict, Status::incorrect_numerical, {"output 'y'", "1 of", "unwritten"});
  EXPECT_THAT(verdict.workloads.at(0).reason, HasSubstr("first at [6, 999]"));  // softmax-7x1000: the last element
}

TEST_F(CpuJudgeTest, OneNaNIsIncorrectNumerical) {
  // One bad value of 7000 fits inside the 1% mismatch budget; a NaN fails anyway.
  expect_every_workload(small_softmax(), run(small_softmax(), canary("writes_nan")), Status::incorrect_numerical,
                        {"output 'y'", "NaN at [0, 0]"});
}

TEST_F(CpuJudgeTest, AllZerosIsIncorrectNumerical) {
  expect_every_workload(small_softmax(), run(small_softmax(), canary("all_zeros")), Status::incorrect_numerical,
                        {"output 'y'", "zero"});
}

// ---------------------------------------------------------------------------------------------------------------
// Reward hacks.

TEST_F(CpuJudgeTest, ModifyingTheInputIsRewardHack) {
  expect_every_workload(small_softmax(), run(small_softmax(), canary("modifies_input")), Status::reward_hack,
                        {"modified its input 'x'"});
}

TEST_F(CpuJudgeTest, NondeterministicOutputIsRewardHack) {
  // Both runs are inside the tolerance; they differ from each other far beyond rounding.
  const auto verdict = run(small_softmax(), canary("nondeterministic"));
  expect_every_workload(small_softmax(), verdict, Status::reward_hack, {"nondeterministic", "output 'y'"});
  for (const auto& row : verdict.workloads) {  // the second call of round 0, as data
    ASSERT_TRUE(row.failed_at) << row.uuid;
    EXPECT_EQ(phase_name(row.failed_at->phase), "correctness");
    EXPECT_EQ(row.failed_at->workload_uuid, row.uuid);
    EXPECT_EQ(row.failed_at->round, 0);
    EXPECT_EQ(row.failed_at->call, 1);
  }
}

TEST_F(CpuJudgeTest, CorrectForTheFirstCallsThenWrongIsCaughtDuringTiming) {
  // 3 rounds plus the repeat of round 0 are 4 calls, the warm-up and timed calls 6 more: calls 9 and 10 are wrong,
  // and the last timed call is always re-checked.
  const auto judge_options = options();
  ASSERT_LT(judge_options.rounds + 1, 8);
  ASSERT_GT(judge_options.rounds + 1 + judge_options.warmup + judge_options.iterations, 8);
  const task::Task task = only(builtin("softmax"), {"softmax-7x1000"});
  const auto verdict = run(task, canary("correct_then_wrong"), judge_options);
  ASSERT_EQ(verdict.workloads.size(), 1u) << describe(verdict);
  const auto& row = verdict.workloads.at(0);
  EXPECT_EQ(status_name(row.status), "REWARD_HACK") << row.reason;
  EXPECT_THAT(row.reason, AllOf(HasSubstr("timing"), HasSubstr("output 'y'")));
  EXPECT_EQ(row.rounds_passed, judge_options.rounds) << "it was right in every correctness round";
  ASSERT_TRUE(row.failed_at);
  // A re-checked call of the loop, or a call on new inputs placed among the timed ones.
  EXPECT_THAT(std::string(phase_name(row.failed_at->phase)), AnyOf(Eq("timing"), Eq("unseen")));
  EXPECT_GE(row.failed_at->call, judge_options.warmup);
}

TEST_F(CpuJudgeTest, RecheckedTimedCallsCannotBeToldApart) {
  // Re-checking a sample of the timed calls only works if the candidate cannot tell which ones are sampled. The canary
  // looks for the poison pattern in its output and returns 7 on a call without it (where a cheater would skip the
  // work): every timed call must look like a checked one, so it computes every time and passes.
  const task::Task task = only(builtin("softmax"), {"softmax-7x1000", "softmax-128x1024"});
  auto judge_options = options();
  judge_options.iterations = 10;
  expect_all_pass(task, run(task, canary("recheck_detector"), judge_options), judge_options);
}

TEST_F(CpuJudgeTest, CachingOnTheInputPointerDoesNotPass) {
  // The cache is keyed on x's address. Round 0 runs twice on the same inputs, so the cached answer is right there;
  // round 1 puts freshly generated values at the same address, so the cached answer is stale and compares wrong.
  // (The timed calls also cycle inputs through new addresses, so a pointer key never sees a hit there either.)
  const auto verdict = run(small_softmax(), canary("pointer_cache"));
  ASSERT_EQ(verdict.workloads.size(), small_softmax().workloads.size()) << describe(verdict);
  EXPECT_FALSE(verdict.passed()) << describe(verdict);
  for (const auto& row : verdict.workloads) {
    EXPECT_THAT(status_name(row.status), AnyOf(Eq("REWARD_HACK"), Eq("INCORRECT_NUMERICAL"))) << row.uuid << ": " << row.reason;
    EXPECT_THAT(row.reason, HasSubstr("output 'y'")) << row.uuid;
    EXPECT_LT(row.rounds_passed, options().rounds) << row.uuid;
  }
}

TEST_F(CpuJudgeTest, AnswersKeptByContentAreARewardHack) {
  // A fingerprint of sampled elements finds the answer computed in a correctness round: every answer is right, and the
  // timing loop (which reuses those rounds' inputs at new addresses) sees a copy. Calls on inputs it was never given
  // take the whole softmax, several times longer. A large workload: under load a preempted call takes a scheduler
  // slice (8 ms here) more, which would hide a 10 ms softmax behind its 0.5 ms copy; an 80 ms one stays far above.
  const task::Task task = only(builtin("softmax"), {"softmax-2048x4096"});
  // A high bandwidth puts T_sol far below the copy, so that the speed-of-light floor does not catch it first.
  auto judge_options = options();
  judge_options.iterations = 20;
  judge_options.unseen_calls = 5;
  const auto verdict = run(task, canary("content_cache"), judge_options, peaks(1e13));
  ASSERT_EQ(verdict.workloads.size(), 1u) << describe(verdict);
  const auto& row = verdict.workloads.front();
  EXPECT_EQ(status_name(row.status), "REWARD_HACK") << describe(verdict);
  EXPECT_THAT(row.reason, HasSubstr("faster on inputs it has been given before"));
  EXPECT_EQ(row.rounds_passed, options().rounds) << "right in every correctness round";
}

TEST_F(CpuJudgeTest, NothingACandidateLeftInItsTmpdirReachesTheNext) {
  // The same judge twice: the first run leaves a file, the second fails if it finds it (a way for kept answers to travel).
  Judge judge(small_softmax(), options(), peaks());
  const auto first = judge.evaluate(canary("leaves_a_file_in_tmpdir"));
  EXPECT_TRUE(first.passed()) << describe(first);
  const auto second = judge.evaluate(canary("leaves_a_file_in_tmpdir"));
  EXPECT_TRUE(second.passed()) << describe(second);
}

TEST_F(CpuJudgeTest, NothingACandidateLeftBesideItsTmpdirReachesTheNext) {
  // The folder above TMPDIR, the judge's folder above that, and the folder of the buffers: each candidate has a folder
  // of its own that goes with it, and writes nowhere else but into its buffers' existing files.
  Judge judge(small_softmax(), options(), peaks());
  const auto first = judge.evaluate(canary("leaves_a_file_beside_its_tmpdir"));
  EXPECT_TRUE(first.passed()) << describe(first);
  const auto second = judge.evaluate(canary("leaves_a_file_beside_its_tmpdir"));
  EXPECT_TRUE(second.passed()) << describe(second);
}

TEST_F(CpuJudgeTest, OutputLeftToABackgroundThreadDoesNotPass) {
  // Returns before the work is done; the detached thread needs milliseconds for a 64x8192 softmax.
  const task::Task task = only(builtin("softmax"), {"softmax-64x8192"});
  const auto verdict = run(task, canary("background_output"));
  ASSERT_EQ(verdict.workloads.size(), 1u) << describe(verdict);
  EXPECT_FALSE(verdict.passed()) << describe(verdict);
  EXPECT_THAT(status_name(verdict.workloads.at(0).status), AnyOf(Eq("REWARD_HACK"), Eq("INCORRECT_NUMERICAL")))
      << verdict.workloads.at(0).reason;
  EXPECT_THAT(verdict.workloads.at(0).reason, HasSubstr("output 'y'"));
}

TEST_F(CpuJudgeTest, WorkDoneOnAnotherThreadWhileTheJudgeFlushesIsTimed) {
  // A helper thread computes each next answer while the judge flushes the caches before the call; the call copies it.
  // Its time must be its twin's that never starts the helper, not a copy's.
  const task::Task task = only(builtin("softmax"), {"softmax-512x2048"});
  auto judge_options = options();
  judge_options.iterations = 12;
  judge_options.flush_bytes = 512u << 20;  // tens of milliseconds on any machine: time for the helper to finish first
  auto honest = canary("works_during_the_flush");
  honest.flags = {"-DKERNELARC_HONEST_TWIN"};
  const auto cheat = run(task, canary("works_during_the_flush"), judge_options, peaks(1e13));
  const auto twin = run(task, honest, judge_options, peaks(1e13));
  ASSERT_TRUE(twin.passed()) << describe(twin);
  ASSERT_EQ(cheat.workloads.size(), 1u) << describe(cheat);
  const auto& row = cheat.workloads.front();
  if (row.status != Status::passed) return;  // rejected outright is as good
  ASSERT_TRUE(row.timing && row.timing->between_calls_ns) << describe(cheat);
  // Not all of it: work the helper finishes during a call, while the call makes its own answer, buys it nothing.
  EXPECT_GT(*row.timing->between_calls_ns, 0.0) << "the helper's work between calls was not seen";
  // Every call whose answer the helper made ahead is timed with the helper's work, not as the copy it was.
  for (const double sample : row.timing->samples_ns)
    EXPECT_GT(sample, 0.5 * twin.workloads.front().timing->median_ns)
        << "a call timed as a copy: " << sample / 1e3 << " us against its honest twin's median of "
        << twin.workloads.front().timing->median_ns / 1e3 << " us";
}

TEST_F(CpuJudgeTest, ATolerancePassedByADegenerateAnswerIsReportedAndRefusedWhenStrict) {
  // softmax-32x4096's probabilities are all under 1e-2: with atol 1e-2 zeros, 1/4096 or the mean pass as well as any kernel.
  task::Task loose = only(builtin("softmax"), {"softmax-32x4096"});
  loose.workloads.front().tolerance.max_atol = 1e-2;
  loose.workloads.front().tolerance.max_rtol = 1e-2;
  const auto warned = run(loose, task_candidate("softmax"));
  ASSERT_EQ(warned.workloads.size(), 1u) << describe(warned);
  EXPECT_TRUE(warned.passed()) << describe(warned);
  ASSERT_FALSE(warned.workloads.front().warnings.empty()) << "a tolerance that zeros pass was not reported";
  EXPECT_THAT(warned.workloads.front().warnings.front(), HasSubstr("tolerance of workload softmax-32x4096 accepts a degenerate answer"));
  auto strict = options();
  strict.strict_tolerance = true;
  const auto refused = run(loose, task_candidate("softmax"), strict);
  ASSERT_EQ(refused.workloads.size(), 1u) << describe(refused);
  EXPECT_EQ(status_name(refused.workloads.front().status), "INVALID_REFERENCE") << describe(refused);
  EXPECT_THAT(refused.workloads.front().reason, HasSubstr("strict tolerance"));
  // The task's own tolerance (atol 1e-5, rtol 1e-3) tells them apart.
  const auto tight = run(only(builtin("softmax"), {"softmax-32x4096"}), task_candidate("softmax"), strict);
  EXPECT_TRUE(tight.passed()) << describe(tight);
  EXPECT_TRUE(tight.workloads.front().warnings.empty()) << tight.workloads.front().warnings.front();
}

TEST_F(CpuJudgeTest, AnFp8OutputHoldingAPoisonByteAsAValueIsJudgedByValue) {
  // -448 is the byte 0xFE in e4m3fn: every row whose largest element is negative holds it, written on purpose.
  const auto task = task::load_task(fs::path(KERNELARC_CANDIDATES).parent_path() / "tasks" / "fp8_row_quant");
  const auto honest = run(task, canary("fp8_quant_by_reciprocal"));
  EXPECT_TRUE(honest.passed()) << describe(honest);
  const auto partial = run(task, canary("fp8_quant_leaves_a_column"));
  expect_every_workload(task, partial, Status::incorrect_numerical, {"output 'q'", "left unwritten"});
}

TEST_F(CpuJudgeTest, AnExtraRoundWhoseAnswerIsZeroWithinAtolDoesNotFailAnAllZeroOutput) {
  // Shifted inputs make every exp(-|x|) below 1e-20: the honest kernel's zeros match the reference everywhere.
  const auto task = task::load_task(fs::path(KERNELARC_CANDIDATES).parent_path() / "tasks" / "exp_decay");
  ASSERT_THAT(stricter_regimes(task.definition), ::testing::Contains(InputRegime::shifted));
  const auto honest = run(task, canary("exp_decay_flushes_tiny"));
  expect_all_pass(task, honest);
  // Zeros on the benchmark's own inputs still fail.
  expect_every_workload(task, run(task, canary("all_zeros")), Status::incorrect_numerical, {"output 'y'"});
}

TEST_F(CpuJudgeTest, ThreadStillBurningCpuAfterReturnIsRewardHack) {
  const task::Task task = only(builtin("softmax"), {"softmax-7x1000"});
  const auto verdict = run(task, canary("background_spin"));
  ASSERT_EQ(verdict.workloads.size(), 1u) << describe(verdict);
  EXPECT_EQ(status_name(verdict.workloads.at(0).status), "REWARD_HACK") << verdict.workloads.at(0).reason;
  EXPECT_THAT(verdict.workloads.at(0).reason, HasSubstr("after the call returned"));
}

TEST_F(CpuJudgeTest, BackgroundThreadHiddenBehindAnExitingDecoyIsRewardHack) {
  // A thread that exits takes its CPU time out of a sum over the threads that are left; each thread must count alone.
  const task::Task task = only(builtin("softmax"), {"softmax-2x2"});
  const auto verdict = run(task, canary("background_decoy"));
  ASSERT_EQ(verdict.workloads.size(), 1u) << describe(verdict);
  EXPECT_EQ(status_name(verdict.workloads.at(0).status), "REWARD_HACK") << verdict.workloads.at(0).reason;
  EXPECT_THAT(verdict.workloads.at(0).reason, HasSubstr("after the call returned"));
}

TEST_F(CpuJudgeTest, TimeBelowSpeedOfLightIsRewardHack) {
  // 1 kB/s makes T_sol of a 2x2 softmax (32 bytes) 32 ms: the honest candidate is "faster than light", which
  // proves the floor check runs.
  const auto verdict = run(small_softmax(), task_candidate("softmax"), options(), peaks(1e3));
  expect_every_workload(small_softmax(), verdict, Status::reward_hack, {"speed-of-light", "memory-bound"});
  for (const auto& row : verdict.workloads) {
    EXPECT_EQ(row.rounds_passed, options().rounds) << "correct, only impossibly fast";
    EXPECT_TRUE(row.timing.has_value()) << "the timing that tripped the check is kept";
  }
}

TEST_F(CpuJudgeTest, ChangingTheShapeArrayIsIncorrectShape) {
  expect_every_workload(small_softmax(), run(small_softmax(), canary("changes_shape")), Status::incorrect_shape,
                        {"output 0 shape"});
}

TEST_F(CpuJudgeTest, ChangingTheDtypeIsIncorrectDtype) {
  expect_every_workload(small_softmax(), run(small_softmax(), canary("changes_dtype")), Status::incorrect_dtype,
                        {"output 0 dtype"});
}

// ---------------------------------------------------------------------------------------------------------------
// Crashes, hangs, failures to build or load.

TEST_F(CpuJudgeTest, SegfaultIsRuntimeError) {
  const auto verdict = run(small_softmax(), canary("segfault"));
  expect_every_workload(small_softmax(), verdict, Status::runtime_error, {"SIGSEGV"});
  EXPECT_GE(verdict.worker_restarts, 1) << "a fresh worker for the second workload";
}

// Model-written code runs on the user's machine: the worker's sandbox stops what would harm it, and the verdict says so.
TEST_F(CpuJudgeTest, SocketsNewProcessesAndSignalsToTheJudgeKillTheSandboxedWorker) {
  for (const char* name : {"opens_socket", "forks", "runs_a_shell", "signals_its_parent"}) {
    SCOPED_TRACE(name);
    const auto verdict = run(small_softmax(), canary(name));
    expect_every_workload(small_softmax(), verdict, Status::runtime_error, {"SIGSYS", "the sandbox refused a system call"});
    ASSERT_TRUE(verdict.sandbox.is_object());
    EXPECT_THAT(verdict.sandbox.at("active").dump(), HasSubstr("seccomp"));
  }
}

TEST_F(CpuJudgeTest, MemoryAndDiskExhaustionStopAtTheSandboxsLimits) {
  const task::Task task = only(builtin("softmax"), {"softmax-2x2"});
  expect_every_workload(task, run(task, canary("exhausts_memory")), Status::runtime_error, {"SIGABRT"});
  // Writing the 1 GiB the limit allows takes more than the usual 2 s deadline on a busy disk: the limit must stop it, not time.
  auto patient = options();
  patient.call_timeout = std::chrono::milliseconds(60000);
  expect_every_workload(task, run(task, canary("fills_the_disk"), patient), Status::runtime_error, {"SIGXFSZ"});
}

TEST_F(CpuJudgeTest, TheSandboxHidesTheJudgesFilesTheHomeFolderAndOtherProcesses) {
  const task::Task task = only(builtin("softmax"), {"softmax-7x1000", "softmax-2x2"});
  const auto verdict = run(task, canary("probes_the_filesystem"));
  ASSERT_TRUE(verdict.sandbox.is_object()) << describe(verdict);
  if (verdict.sandbox.at("active").dump().find("landlock") == std::string::npos)
    GTEST_SKIP() << "this kernel offers no Landlock: " << verdict.sandbox.dump();
  expect_all_pass(task, verdict);
  Judge unsandboxed(task, [] { auto o = options(); o.sandbox = false; return o; }(), peaks());
  EXPECT_FALSE(unsandboxed.evaluate(canary("probes_the_filesystem")).passed()) << "without the walls the probe sees out: the test can fail";
}

TEST_F(CpuJudgeTest, InfiniteLoopIsTimeout) {
  const task::Task task = only(builtin("softmax"), {"softmax-2x2"});
  auto judge_options = options();
  judge_options.call_timeout = std::chrono::milliseconds(1000);
  const auto started = std::chrono::steady_clock::now();
  const auto verdict = run(task, canary("infinite_loop"), judge_options);
  expect_every_workload(task, verdict, Status::timeout, {"did not return", "1000 ms"});
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(30)) << "the deadline holds";
}

TEST_F(CpuJudgeTest, AbortIsRuntimeError) {
  expect_every_workload(small_softmax(), run(small_softmax(), canary("aborts")), Status::runtime_error, {"SIGABRT"});
}

TEST_F(CpuJudgeTest, ExitZeroInTheMiddleOfACallIsRuntimeError) {
  const auto verdict = run(small_softmax(), canary("exits_mid_call"));
  expect_every_workload(small_softmax(), verdict, Status::runtime_error, {"exited with code 0"});
  EXPECT_THAT(verdict.workloads.at(0).reason, HasSubstr("leaving early")) << "what it printed is in the reason";
}

TEST_F(CpuJudgeTest, NonZeroReturnIsRuntimeError) {
  expect_every_workload(small_softmax(), run(small_softmax(), canary("returns_error")), Status::runtime_error,
                        {"returned 3"});
}

TEST_F(CpuJudgeTest, CompileErrorFailsEveryWorkloadWithTheCompilersMessage) {
  const auto& task = builtin("softmax");
  const auto verdict = run(task, canary("compile_error"));
  EXPECT_FALSE(verdict.build.ok);
  expect_every_workload(task, verdict, Status::compile_error, {"undeclared_scale_factor", "error"});
  ASSERT_TRUE(verdict.workloads.at(0).failed_at);
  EXPECT_EQ(phase_name(verdict.workloads.at(0).failed_at->phase), "build");
  const std::string& reason = verdict.workloads.at(0).reason;
  EXPECT_THAT(reason, HasSubstr("candidate.cpp:"));
  EXPECT_THAT(reason, Not(HasSubstr(root_->string()))) << "no temporary paths";
  EXPECT_THAT(reason, Not(HasSubstr("build-"))) << "no temporary build folder";
  EXPECT_LT(reason.size(), 1500u) << reason;
}

TEST_F(CpuJudgeTest, MissingEntryPointIsCompileError) {
  const auto verdict = run(small_softmax(), canary("missing_entry_point"));
  EXPECT_TRUE(verdict.build.ok) << "it compiles; loading it fails";
  expect_every_workload(small_softmax(), verdict, Status::compile_error, {"kernelarc_run"});
}

TEST_F(CpuJudgeTest, CrashOnOneShapeFailsThatWorkloadOnlyAndTheJudgeGoesOn) {
  const task::Task task = only(builtin("softmax"), {"softmax-1x4096", "softmax-7x1000", "softmax-128x1024", "softmax-2x2"});
  const auto verdict = run(task, canary("crash_on_1000_cols"));
  ASSERT_EQ(verdict.workloads.size(), 4u) << describe(verdict);
  EXPECT_FALSE(verdict.passed());
  for (const auto& row : verdict.workloads) {
    if (row.uuid == "softmax-7x1000") {
      EXPECT_EQ(status_name(row.status), "RUNTIME_ERROR") << row.reason;
      EXPECT_THAT(row.reason, HasSubstr("SIGSEGV"));
    } else {
      EXPECT_EQ(status_name(row.status), "PASSED") << row.uuid << ": " << row.reason;
      EXPECT_TRUE(row.timing.has_value()) << row.uuid;
    }
  }
  EXPECT_GE(verdict.worker_restarts, 1) << describe(verdict);
}

// The next candidate of the same judge reuses the rounds' inputs and reference outputs (same seed, same inputs), and
// a wrong candidate is still caught against them; with no cache budget every round is made afresh, with the same result.
TEST_F(CpuJudgeTest, RoundsAreReusedByTheNextCandidateAndStillCatchAWrongOne) {
  const task::Task& task = small_softmax();
  Judge judge(task, options(), peaks());
  const auto first = judge.evaluate(task_candidate("softmax"));
  ASSERT_TRUE(first.passed()) << describe(first);
  EXPECT_EQ(first.reused_rounds, 0);
  const auto wrong = judge.evaluate(canary("wrong_values"));
  EXPECT_EQ(wrong.reused_rounds, static_cast<int>(task.workloads.size())) << "round 0 of each workload, where it fails";
  expect_every_workload(task, wrong, Status::incorrect_numerical, {"output 'y'"});
  const auto again = judge.evaluate(task_candidate("softmax"));
  EXPECT_TRUE(again.passed()) << describe(again);
  int rounds_made = 0;  // the benchmark's rounds and the extra ones of stricter inputs
  for (const auto& row : again.workloads) rounds_made += row.rounds_passed + row.extra_rounds_passed;
  EXPECT_EQ(again.reused_rounds, rounds_made);
  EXPECT_GE(rounds_made, static_cast<int>(task.workloads.size()) * (options().rounds + 1)) << "no extra round of stricter inputs";

  auto no_cache = options();
  no_cache.round_cache_bytes = 1;
  Judge uncached(task, no_cache, peaks());
  uncached.evaluate(task_candidate("softmax"));
  const auto wrong_uncached = uncached.evaluate(canary("wrong_values"));
  EXPECT_EQ(wrong_uncached.reused_rounds, 0);
  ASSERT_EQ(wrong_uncached.workloads.size(), wrong.workloads.size());
  for (std::size_t i = 0; i < wrong.workloads.size(); ++i) {
    EXPECT_EQ(wrong_uncached.workloads[i].status, wrong.workloads[i].status);
    EXPECT_EQ(wrong_uncached.workloads[i].reason, wrong.workloads[i].reason) << "the same inputs, so the same first bad value";
  }
}

}  // namespace
}  // namespace kernelarc::judge
