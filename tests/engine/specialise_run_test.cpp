// The end of a run: a candidate composed of the configurations best on each class of sizes, judged by the same judge
// on every workload, recorded like any candidate, promoted only when it wins; `specialise` 1 turns it off.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "brains/brains.h"
#include "engine/composition.h"
#include "engine/run.h"
#include "judge/dispatch_rule.h"
#include "store/store.h"
#include "task/task.h"

namespace kernelarc::engine {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

constexpr double kSmall = 100000;  // sizes (batch_size * hidden) up to here are "decode" rows

// ROWS_PER_STEP 1 is best up to kSmall, 4 above; ONE_PASS helps everywhere; ROWS_PER_STEP 2 with ONE_PASS 1 is wrong.
// `size` is the product of the var axes, or the axis the test scripts the times by (scripted_axis_, its bound `small`).
double scripted_ns(const Knobs& knobs, double size, double small) {
  const auto rows = knobs.at("ROWS_PER_STEP");
  const double base = size <= small ? (rows == 1 ? 1000.0 : 1500.0) : 4000.0 / static_cast<double>(rows);
  return base * (knobs.at("ONE_PASS") ? 0.8 : 1.0);
}

class SpecialiseRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "kernelarc-specialise-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    task_ = task::load_task(fs::path(KERNELARC_TASKS) / "softmax");
    auto& rows = task_.definition.templates.front();
    std::erase_if(rows.knobs, [](const task::Knob& knob) { return knob.name != "ROWS_PER_STEP" && knob.name != "ONE_PASS"; });
    rows.constraints.clear();
    task_.workloads.back().held_out = true;  // one the search never sees: the composed candidate is judged on it too
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A judge of every workload: a composed candidate's time on each is its part's, picked by the judge's rule.
  judge::CandidateVerdict judge(const judge::CandidateSource& source) {
    judged_.push_back(source);
    judge::CandidateVerdict verdict;
    verdict.name = source.name;
    verdict.build.ok = true;
    for (const auto& workload : task_.workloads) {
      const auto axes = task::resolve_workload(task_, workload).axes;
      const double size = judge::dispatch_size(task_.definition, axes, scripted_axis_);
      const Knobs& knobs = source.dispatch.empty()
                               ? source.knobs
                               : source.dispatch[judge::dispatched_part(source.dispatch, judge::dispatch_size(task_.definition, axes, source.dispatch_axis))].knobs;
      judge::WorkloadVerdict row;
      row.uuid = workload.uuid;
      row.held_out = workload.held_out;
      if (knobs.at("ROWS_PER_STEP") == 2 && knobs.at("ONE_PASS") == 1) {
        row.status = judge::Status::incorrect_numerical;
        row.reason = "wrong";
      } else {
        judge::TimingStats timing;
        timing.median_ns = scripted_ns(knobs, size, small_);
        timing.q1_ns = timing.median_ns * (1 - spread_ / 2);
        timing.q3_ns = timing.median_ns * (1 + spread_ / 2);
        row.timing = timing;
      }
      verdict.workloads.push_back(row);
    }
    return verdict;
  }

  // The judge's times as a screening of the visible workloads gives them (the screened run ranks its classes on those).
  judge::Screening screen(const judge::CandidateSource& source) {
    const auto verdict = judge(source);
    judged_.pop_back();  // screened, not judged
    judge::Screening screening;
    screening.name = source.name;
    screening.knobs = source.knobs;
    screening.build.ok = true;
    screening.outcome = judge::ScreeningOutcome::measured;
    for (const auto& row : verdict.workloads) {
      if (row.held_out) continue;
      screening.workloads.push_back({row.uuid, false, row.status, row.reason, row.timing, std::nullopt});
      if (row.status != judge::Status::passed) screening.outcome = judge::ScreeningOutcome::wrong;
    }
    return screening;
  }

  RunSummary run(std::size_t specialise, bool screening = false) {
    auto store = store::Store::open(dir_ / "runs.db");
    RunOptions options;
    options.agents = 2;
    options.budget = 8;
    options.specialise = specialise;
    options.remeasure_start = false;
    options.screen_round = 3;
    options.finalists = 1;
    options.scouts = 0;  // the rounds as the tests lay them out
    engine::Run optimisation(task_, options, [this](const judge::CandidateSource& source) { return judge(source); }, brains::brain_factory("search"),
                             store);
    if (screening) optimisation.screen_with([this](const judge::CandidateSource& source, int) { return screen(source); });
    return optimisation.execute();
  }

  fs::path dir_;
  task::Task task_;
  std::vector<judge::CandidateSource> judged_;
  double spread_ = 0.01;  // every measurement's (q3 - q1) / median
  std::string scripted_axis_;  // the size the times depend on: empty, the product of the var axes
  double small_ = kSmall;      // the largest of those sizes that is "decode"
};

TEST_F(SpecialiseRunTest, ARunEndsWithTheComposedCandidateJudgedAndPromotedWhenItWins) {
  const auto summary = run(4);
  ASSERT_FALSE(judged_.empty());
  const auto& composed = judged_.back();
  ASSERT_EQ(composed.dispatch.size(), 2u);
  EXPECT_EQ(composed.dispatch[0].knobs, (Knobs{{"ONE_PASS", 1}, {"ROWS_PER_STEP", 1}}));
  EXPECT_EQ(composed.dispatch[1].knobs, (Knobs{{"ONE_PASS", 1}, {"ROWS_PER_STEP", 4}}));
  ASSERT_TRUE(composed.dispatch[0].up_to.has_value());
  // The border lies between the largest visible size up to kSmall and the smallest above it.
  double below = 0, above = 1e300;
  for (const auto& w : task_.workloads) {
    if (w.held_out) continue;
    const double size = judge::dispatch_size(task_.definition, task::resolve_workload(task_, w).axes);
    if (size <= kSmall) below = std::max(below, size);
    else above = std::min(above, size);
  }
  EXPECT_EQ(*composed.dispatch[0].up_to, static_cast<std::int64_t>((below + above) / 2));
  EXPECT_TRUE(composed.knobs.empty());  // its knobs are #defined per part inside its source, not given to the compiler
  EXPECT_EQ(composed.dispatch_axis, "") << "the times follow the product of the var axes, so the classes are drawn on it";
  EXPECT_THAT(composed.source, HasSubstr("namespace kernelarc_part1"));
  // Faster than either configuration alone: promoted, the run's result.
  auto store = store::Store::open(dir_ / "runs.db");
  const auto candidates = store.candidates(summary.run_id);
  ASSERT_FALSE(candidates.empty());
  EXPECT_EQ(summary.best_candidate, candidates.back().id);
  EXPECT_EQ(candidates.back().proposer, "specialise");
  EXPECT_THAT(candidates.back().knobs_json, HasSubstr("\"@parts\":2"));
  EXPECT_THAT(candidates.back().hypothesis, HasSubstr("composed by shape class"));
  // Every workload, the held-out one included, has its verdict rows (twice: measured again before promotion).
  const auto verdicts = store.verdicts(candidates.back().id);
  EXPECT_EQ(verdicts.size(), 2 * task_.workloads.size());
  EXPECT_TRUE(std::any_of(verdicts.begin(), verdicts.end(), [](const store::VerdictRecord& v) { return v.held_out; }));
  // The journal's last judged event is the composed candidate, promoted.
  std::string last_judged;
  for (const auto& event : store.events(summary.run_id))
    if (event.kind == "judged") last_judged = event.payload_json;
  EXPECT_THAT(last_judged, HasSubstr("\"@parts\":2"));
  EXPECT_THAT(last_judged, HasSubstr("\"decision\":\"promoted\""));
}

// A screening run judges few configurations in full (here the start and at most one a round): its classes come from the
// screenings of every configuration, and the composed candidate is judged in full.
TEST_F(SpecialiseRunTest, AScreeningRunComposesFromItsScreenings) {
  const auto summary = run(4, true);
  ASSERT_FALSE(judged_.empty());
  const auto& composed = judged_.back();
  ASSERT_EQ(composed.dispatch.size(), 2u);
  EXPECT_EQ(composed.dispatch[0].knobs, (Knobs{{"ONE_PASS", 1}, {"ROWS_PER_STEP", 1}}));
  EXPECT_EQ(composed.dispatch[1].knobs, (Knobs{{"ONE_PASS", 1}, {"ROWS_PER_STEP", 4}}));
  EXPECT_GT(summary.screened, summary.judged) << "most configurations were only screened";
  auto store = store::Store::open(dir_ / "runs.db");
  EXPECT_EQ(store.verdicts(store.candidates(summary.run_id).back().id).size(), 2 * task_.workloads.size())
      << "the composed candidate judged in full on every workload, held-out one included, measured again before promotion";
}

// Where the best configuration follows one var axis (a GEMM's rows), classes of the product mix workloads that want
// different configurations (softmax's 1x131072 and 32x4096 are one size): the classes are drawn on that axis, and the
// composed candidate's own source, record and judge dispatch by it.
TEST_F(SpecialiseRunTest, ClassesFollowTheVarAxisThatSeparatesTheConfigurationsBest) {
  scripted_axis_ = "batch_size";
  small_ = 16;  // 16 rows or fewer is "decode"
  const auto summary = run(4, true);
  const auto& composed = judged_.back();
  ASSERT_EQ(composed.dispatch.size(), 2u);
  EXPECT_EQ(composed.dispatch_axis, "batch_size");
  EXPECT_EQ(composed.dispatch[0].knobs, (Knobs{{"ONE_PASS", 1}, {"ROWS_PER_STEP", 1}}));
  ASSERT_TRUE(composed.dispatch[0].up_to.has_value());
  double below = 0, above = 1e300;  // the border: between the most visible rows up to 16 and the fewest above
  for (const auto& w : task_.workloads) {
    if (w.held_out) continue;
    const double rows = task::resolve_workload(task_, w).axes.at("batch_size");
    if (rows <= small_) below = std::max(below, rows);
    else above = std::min(above, rows);
  }
  EXPECT_EQ(*composed.dispatch[0].up_to, static_cast<std::int64_t>((below + above) / 2));
  EXPECT_THAT(composed.source, HasSubstr("var axis batch_size"));
  auto store = store::Store::open(dir_ / "runs.db");
  const auto candidates = store.candidates(summary.run_id);
  EXPECT_THAT(candidates.back().knobs_json, HasSubstr("\"@by.batch_size\":1"));
  EXPECT_THAT(candidates.back().hypothesis, HasSubstr("classes of batch_size"));
  EXPECT_EQ(summary.best_candidate, candidates.back().id) << "every workload takes its best configuration: it wins";
}

TEST_F(SpecialiseRunTest, AResumedRunWhoseIncumbentIsComposedSearchesFromItsParts) {
  task_.definition.templates.front().knobs.push_back({"PREFETCH_LINES", {0, 4, 16}, "memory", "no effect in this judge"});
  RunOptions options;
  options.agents = 2;
  options.budget = 14;
  options.remeasure_start = false;
  std::int64_t run_id = 0;
  const auto make = [&](store::Store& store) {
    return engine::Run(task_, options, [this](const judge::CandidateSource& source) { return judge(source); }, brains::brain_factory("search"),
                       store);
  };
  {
    auto store = store::Store::open(dir_ / "runs.db");
    auto first = make(store);
    const auto summary = first.execute();
    run_id = summary.run_id;
    ASSERT_FALSE(judged_.back().dispatch.empty());
    ASSERT_EQ(summary.best_candidate, store.candidates(run_id).back().id) << "the run should end with its composed candidate promoted";
  }
  const auto composed_before = std::count_if(judged_.begin(), judged_.end(), [](const auto& s) { return !s.dispatch.empty(); });
  auto store = store::Store::open(dir_ / "runs.db");
  auto again = make(store);
  const auto resumed = again.resume(run_id, 24);
  EXPECT_GT(resumed.judged, 16);  // the first run's 14, its composed candidate measured, and more from the parts' configurations
  // Every candidate after the resume that is not composed is a plain configuration of the template's knobs.
  for (const auto& source : judged_)
    if (source.dispatch.empty()) EXPECT_EQ(source.knobs.count("@parts"), 0u) << source.name;
  EXPECT_GE(std::count_if(judged_.begin(), judged_.end(), [](const auto& s) { return !s.dispatch.empty(); }), composed_before);
}

TEST_F(SpecialiseRunTest, AGainWithinTheMeasurementsSpreadIsNoClass) {
  // The small class gains 9% over the visible workloads (1.5x on 3 of 14): real under a 5% spread, noise under 60%.
  spread_ = 0.05;
  run(4);
  EXPECT_FALSE(judged_.back().dispatch.empty());
  judged_.clear();
  spread_ = 0.6;
  run(4);
  for (const auto& source : judged_) EXPECT_TRUE(source.dispatch.empty()) << source.name;
}

TEST_F(SpecialiseRunTest, SpecialiseOneJudgesNoComposedCandidate) {
  run(1);
  for (const auto& source : judged_) EXPECT_TRUE(source.dispatch.empty()) << source.name;
}

TEST_F(SpecialiseRunTest, OneConfigurationBestEverywhereGivesNoComposedCandidate) {
  task_.workloads.erase(std::remove_if(task_.workloads.begin(), task_.workloads.end(),
                                       [&](const task::Workload& w) {
                                         return judge::dispatch_size(task_.definition, task::resolve_workload(task_, w).axes) > kSmall;
                                       }),
                        task_.workloads.end());
  run(4);
  for (const auto& source : judged_) EXPECT_TRUE(source.dispatch.empty()) << source.name;
}

}  // namespace
}  // namespace kernelarc::engine
