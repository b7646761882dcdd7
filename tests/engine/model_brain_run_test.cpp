// A run whose agents are slow, asynchronous brains that write their own sources (a language model's shape, scripted
// here; the real one against a real HTTP server is tests/llm/): they are asked at once, their sources are judged and
// kept, what they cost is counted and recorded, failures retire an agent, a cost limit stops the run, and a resumed
// run gets the sources and the spend back.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>

#include "engine/run.h"
#include "store/store.h"
#include "task/task.h"

namespace kernelarc::engine {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// The time is 1000 ns over the "speed N" a source's first line declares (the template's: 1).
judge::CandidateVerdict judge_by_declared_speed(const judge::CandidateSource& source) {
  int speed = 1;
  std::sscanf(source.source.c_str(), "// speed %d", &speed);
  judge::CandidateVerdict verdict;
  verdict.name = source.name;
  verdict.build.ok = true;
  judge::WorkloadVerdict row;
  row.uuid = "w";
  judge::TimingStats timing;
  timing.median_ns = 1000.0 / speed;
  timing.q1_ns = timing.median_ns * 0.995;
  timing.q3_ns = timing.median_ns * 1.005;
  row.timing = timing;
  verdict.workloads.push_back(row);
  return verdict;
}

// What every agent's brain shares: how many answers are being worked on, and the script.
struct Script {
  std::chrono::milliseconds delay{50};
  bool answer = true;                 // false: every answer comes to nothing
  std::atomic<int> speed{1};          // the next source declares one more
  std::atomic<int> in_flight{0}, most_in_flight{0}, asked{0};
  ModelUsage per_answer{1, 0, 100, 20, 0.01};
};

class ScriptedModelBrain : public Brain {
 public:
  explicit ScriptedModelBrain(Script& script) : script_(script) {}
  std::optional<Proposal> propose(const ProposalContext& context) override {
    const int now = ++script_.in_flight;
    for (int most = script_.most_in_flight; now > most && !script_.most_in_flight.compare_exchange_weak(most, now);) {
    }
    ++script_.asked;
    for (auto until = std::chrono::steady_clock::now() + script_.delay; std::chrono::steady_clock::now() < until && !cancelled_;)
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    --script_.in_flight;
    {
      std::lock_guard lock(mutex_);
      spent_ += script_.per_answer;
    }
    if (!script_.answer || cancelled_) return std::nullopt;
    const int speed = ++script_.speed;
    EXPECT_FALSE(context.base_source.empty()) << "an asynchronous brain is given the base's source";
    return Proposal{context.base, fmt::format("speed {}", speed), fmt::format("// speed {}\n{}", speed, context.base_source)};
  }
  std::string why_not() const override { return "the script says no"; }
  bool asynchronous() const override { return true; }
  void cancel() override { cancelled_ = true; }
  ModelUsage take_usage() override {
    std::lock_guard lock(mutex_);
    return std::exchange(spent_, {});
  }

 private:
  Script& script_;
  std::atomic<bool> cancelled_{false};
  std::mutex mutex_;
  ModelUsage spent_;
};

class ModelBrainRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "kernelarc-model-run-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    task_ = task::load_task(fs::path(KERNELARC_TASKS) / "softmax");
  }
  void TearDown() override { fs::remove_all(dir_); }

  BrainFactory factory() {
    return [this](const task::Template&, const std::string&, std::uint64_t) { return std::make_unique<ScriptedModelBrain>(script_); };
  }
  RunSummary run(RunOptions options, store::Store& store, JudgeFunction judge = judge_by_declared_speed) {
    options.template_name = "rows";
    engine::Run optimisation(task_, options, std::move(judge), factory(), store);
    return optimisation.execute();
  }
  static int count(store::Store& store, std::int64_t run_id, const std::string& kind) {
    int n = 0;
    for (const auto& e : store.events(run_id)) n += e.kind == kind;
    return n;
  }

  fs::path dir_;
  task::Task task_;
  Script script_;
};

TEST_F(ModelBrainRunTest, AgentsAreAskedAtOnceAndTheirSourcesAreJudgedAndKept) {
  script_.delay = std::chrono::milliseconds(200);
  RunOptions options;
  options.agents = 4;
  options.budget = 9;
  auto store = store::Store::open(dir_ / "runs.db");
  const auto started = std::chrono::steady_clock::now();
  const auto summary = run(options, store);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  EXPECT_EQ(summary.judged, 9);
  EXPECT_EQ(script_.most_in_flight, 4) << "every agent's answer worked on at the same time";
  EXPECT_LT(seconds, 8 * 0.2 * 0.75) << "8 answers of 200 ms one after the other would take 1.6 s";
  ASSERT_TRUE(summary.best);
  EXPECT_LT(summary.best->time_ns, 1000.0 / 8) << "a later, faster source was promoted";
  ASSERT_TRUE(summary.best_knobs.count(kSourceKnob));

  // Each candidate's record holds the source its brain wrote, and the best one's time is that of the fastest source.
  int fastest = 1;
  for (const auto& c : store.candidates(summary.run_id)) {
    if (c.proposer == "start") continue;
    int speed = 0;
    ASSERT_EQ(std::sscanf(c.source.c_str(), "// speed %d", &speed), 1) << c.name;
    EXPECT_THAT(c.name, HasSubstr("softmax.proposed-"));
    fastest = std::max(fastest, speed);
  }
  EXPECT_DOUBLE_EQ(summary.best->time_ns, 1000.0 / fastest);

  // Every answer's cost is in the summary: the judged ones and those still in flight when the budget ran out.
  const auto usage = summary.usage();
  EXPECT_EQ(usage.requests, script_.asked.load());
  EXPECT_EQ(usage.tokens_in, 100 * usage.requests);
  EXPECT_NEAR(usage.cost_usd, 0.01 * static_cast<double>(usage.requests), 1e-9);
  EXPECT_EQ(count(store, summary.run_id, "proposals_discarded"), 1) << "the answers in flight at the end";
}

TEST_F(ModelBrainRunTest, AgentsWhoseAnswersComeToNothingGiveUpAndTheRunSaysSo) {
  script_.answer = false;
  script_.delay = std::chrono::milliseconds(5);
  RunOptions options;
  options.agents = 2;
  auto store = store::Store::open(dir_ / "runs.db");
  const auto summary = run(options, store);
  EXPECT_EQ(summary.judged, 1) << "only the starting candidate";
  EXPECT_THAT(summary.stop_reason, HasSubstr("every agent gave up after 3"));
  EXPECT_EQ(count(store, summary.run_id, "proposal_failed"), 6);
  for (const auto& agent : summary.agent_status) {
    EXPECT_TRUE(agent.retired);
    EXPECT_EQ(agent.failed_proposals, 3);
    EXPECT_EQ(agent.usage.requests, 3) << "failed answers cost too";
  }
}

TEST_F(ModelBrainRunTest, TheCostLimitStopsTheRunCleanly) {
  RunOptions options;
  options.agents = 2;
  options.budget = 100;
  options.max_cost_usd = 0.045;
  auto store = store::Store::open(dir_ / "runs.db");
  const auto summary = run(options, store);
  EXPECT_THAT(summary.stop_reason, HasSubstr("cost limit of $"));
  EXPECT_GE(summary.usage().cost_usd, 0.045);
  EXPECT_LT(summary.judged, 10);
  EXPECT_EQ(store.run(summary.run_id)->status, "finished");
  EXPECT_TRUE(summary.best);
}

TEST_F(ModelBrainRunTest, AResumedRunGetsItsSourcesAndItsSpendBack) {
  RunOptions options;
  options.agents = 2;
  options.budget = 8;
  options.template_name = "rows";
  std::int64_t run_id = 0;
  ModelUsage spent_before;
  {
    auto store = store::Store::open(dir_ / "runs.db");
    int calls = 0;
    engine::Run doomed(task_, options, [&](const judge::CandidateSource& source) {
      if (++calls == 7) throw std::runtime_error("killed");
      return judge_by_declared_speed(source);
    }, factory(), store);
    EXPECT_THROW(doomed.execute(), std::runtime_error);
    run_id = store.runs().front().id;
    for (const auto& e : store.events(run_id)) {
      const auto payload = nlohmann::json::parse(e.payload_json);
      if (payload.contains("usage")) spent_before += usage_from(payload.at("usage"));
    }
    // Which proposals were judged before the seventh call died depends on which agent answered first.
    int judged_proposals = 0;
    for (const auto& c : store.candidates(run_id)) judged_proposals += c.proposer != "start";
    ASSERT_GE(judged_proposals, 2);
    EXPECT_EQ(spent_before.requests, judged_proposals) << "each judged proposal's answer was recorded with it";
  }
  auto store = store::Store::open(dir_ / "runs.db");
  engine::Run resumed(task_, run_options_from_store(*store.run(run_id)), judge_by_declared_speed, factory(), store);
  const auto summary = resumed.resume(run_id);
  EXPECT_EQ(summary.judged, 8);
  EXPECT_GE(summary.usage().requests, spent_before.requests + 5) << "the spend before the kill is counted with the rest";
  // The incumbent from before the kill is a source of a brain's: the resumed run judges its children from it.
  ASSERT_TRUE(summary.best);
  EXPECT_LT(summary.best->time_ns, 1000.0 / 4);
  for (const auto& c : store.candidates(run_id))
    if (c.proposer != "start") EXPECT_THAT(c.source, HasSubstr("// speed ")) << c.name;
}

}  // namespace
}  // namespace kernelarc::engine
