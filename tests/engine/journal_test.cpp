// The run journal: every event reads back as it was written, a judged candidate's measurement is stored once (in its
// verdict rows) and read from there, journals written before that still read, and an unreadable event is named.
#include <gmock/gmock.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cmath>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "engine/journal.h"
#include "engine/measurement.h"
#include "engine/recording.h"
#include "store/store.h"

namespace kernelarc::engine {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using nlohmann::json;

judge::CandidateVerdict timed(double median_ns, double spread) {
  judge::CandidateVerdict verdict;
  verdict.name = "softmax_rows";
  verdict.build.ok = true;
  for (const char* uuid : {"w1", "w2"}) {
    judge::WorkloadVerdict row;
    row.uuid = uuid;
    row.timing = judge::TimingStats{};
    row.timing->median_ns = median_ns * (uuid[1] == '1' ? 1.0 : 3.0);
    row.timing->q1_ns = row.timing->median_ns * (1 - spread);
    row.timing->q3_ns = row.timing->median_ns * (1 + spread);
    row.timing->samples_ns = {row.timing->median_ns};
    row.roofline = task::RooflineEstimate{};
    row.roofline->seconds = 1.7e-7;
    row.score = 0.25;
    verdict.workloads.push_back(row);
  }
  return verdict;
}

class JournalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "kernelarc-journal-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    store_.emplace(store::Store::open(dir_ / "runs.db"));
    const auto task_id = store_->upsert_task({0, "softmax", "tasks/softmax", "hash", "{}"});
    run_id_ = store_->begin_run({0, task_id, "run", "cpu", 1, "{}", "running", "{}", "", ""});
  }
  void TearDown() override {
    store_.reset();
    fs::remove_all(dir_);
  }
  std::int64_t candidate(const judge::CandidateVerdict& verdict) {
    judge::CandidateSource source;
    source.name = verdict.name;
    source.source = "int main() {}";
    return record_candidate(*store_, run_id_, source, verdict, {std::nullopt, "agent-1", "ROWS=4"});
  }
  json payload(const std::string& kind) {
    for (const auto& e : store_->events(run_id_))
      if (e.kind == kind) return json::parse(e.payload_json);
    return nullptr;
  }

  fs::path dir_;
  std::optional<store::Store> store_;
  std::int64_t run_id_ = 0;
};

TEST_F(JournalTest, EveryEventReadsBackAsItWasWritten) {
  ModelUsage usage;
  usage.requests = 3, usage.tokens_in = 1200, usage.cost_usd = 0.02;
  std::vector<journal::Event> written = {
      journal::RunStarted{{{"strategies", {"tiling", "memory"}}}, {{"agent-1", "tiling"}, {"agent-2", "memory"}}},
      journal::Sandbox{{{"active", {"seccomp"}}, {"unavailable", json::array()}}},
      journal::Promoted{7, "agent-2", 900, 450},
      journal::StartMeasuredAgain{1, {1, true, "", 880, 0.02, 0.4, 0.5}, 900, 1.5, {"the clock moved"}},
      journal::ProposalFailed{"agent-1", "tiling", "no code block", 2, false, usage},
      journal::ProposalsDiscarded{{{"agent-2", usage}}},
      journal::AgentReassigned{"agent-1", "tiling", "memory", 9, "nothing left"},
      journal::Plateau{12, 16, 0.02, 12, {"memory", "tiling"}, 4},
      journal::BudgetExtended{16, 32},
      journal::RunResumed{12, 2},
      journal::RunFinished{{{"stop_reason", "budget of 32 candidates spent"}, {"judged", 32}}},
  };
  for (const auto& event : written) journal::write(*store_, run_id_, event);
  const auto read = journal::read(*store_, run_id_);
  ASSERT_EQ(read.size(), written.size());
  for (std::size_t i = 0; i < read.size(); ++i) EXPECT_STREQ(journal::kind_of(read[i]), journal::kind_of(written[i]));
  EXPECT_EQ(std::get<journal::RunStarted>(read[0]).strategies(), (std::vector<std::string>{"tiling", "memory"}));
  EXPECT_EQ(std::get<journal::RunStarted>(read[0]).agents[1].strategy, "memory");
  EXPECT_EQ(std::get<journal::Sandbox>(read[1]).walls, std::get<journal::Sandbox>(written[1]).walls);
  EXPECT_EQ(std::get<journal::Promoted>(read[2]).to_ns, 450);
  const auto& again = std::get<journal::StartMeasuredAgain>(read[3]);
  EXPECT_EQ(again.measured.time_ns, 880);
  EXPECT_EQ(again.measured.sol_score, 0.5);
  EXPECT_EQ(again.measurement_warnings, (std::vector<std::string>{"the clock moved"}));
  const auto& failed = std::get<journal::ProposalFailed>(read[4]);
  ASSERT_TRUE(failed.usage);
  EXPECT_EQ(failed.usage->tokens_in, 1200);
  EXPECT_EQ(failed.in_a_row, 2);
  EXPECT_EQ(std::get<journal::ProposalsDiscarded>(read[5]).usage.at("agent-2").requests, 3);
  EXPECT_EQ(std::get<journal::AgentReassigned>(read[6]).to, "memory");
  const auto& plateau = std::get<journal::Plateau>(read[7]);
  EXPECT_EQ(plateau.restart_from, 4);
  EXPECT_EQ(plateau.strategies, (std::vector<std::string>{"memory", "tiling"}));
  EXPECT_EQ(std::get<journal::BudgetExtended>(read[8]).to, 32);
  EXPECT_EQ(std::get<journal::RunResumed>(read[9]).promotions, 2);
  EXPECT_EQ(std::get<journal::RunFinished>(read[10]).result.at("judged"), 32);
}

TEST_F(JournalTest, AJudgedCandidateIsMeasuredFromItsVerdictRowsTheOnlyCopy) {
  const auto first = timed(1000, 0.03), second = timed(1100, 0.05);
  const auto id = candidate(first);
  record_measurement(*store_, id, second, "second measurement before promotion");
  journal::write(*store_, run_id_, journal::Judged{2, id, "agent-1", "tiling", {{"ROWS", 4}}, Decision::promoted, std::nullopt, std::nullopt, 0.7,
                                                   json::object(), nullptr, {}, {}, {}});
  const json raw = payload("judged");
  for (const char* key : {"measured", "measured_again", "time_ns"}) EXPECT_FALSE(raw.contains(key)) << key << " is stored in the verdict rows only";

  const auto read = journal::read(*store_, run_id_);
  ASSERT_EQ(read.size(), 1u);
  const auto& judged = std::get<journal::Judged>(read[0]);
  const Measured expected = measure(2, first), expected_again = measure(2, second);
  EXPECT_EQ(judged.measured.time_ns, expected.time_ns) << "bit for bit: a replay must decide as the run did";
  EXPECT_EQ(judged.measured.spread, expected.spread);
  EXPECT_EQ(judged.measured.sol_fraction, expected.sol_fraction);
  EXPECT_EQ(judged.measured.sol_score, expected.sol_score);
  EXPECT_NEAR(judged.measured.time_ns, 1000 * std::sqrt(3.0), 1e-6);
  ASSERT_TRUE(judged.measured_again);
  EXPECT_EQ(judged.measured_again->time_ns, expected_again.time_ns);
  EXPECT_EQ(judged.measured_again->spread, expected_again.spread);
  EXPECT_EQ(judged.decision, Decision::promoted);
  EXPECT_EQ(judged.knobs, (Knobs{{"ROWS", 4}}));
}

// The live page reads one event at a time as the run writes it: the same event, measured the same way.
TEST_F(JournalTest, OneEventReadAloneReadsAsTheWholeJournalReadsIt) {
  const auto first = timed(1000, 0.03), second = timed(1100, 0.05);
  const auto id = candidate(first);
  record_measurement(*store_, id, second, "second measurement before promotion");
  journal::write(*store_, run_id_, journal::Plateau{8, 4, 0.02, 8, {"tiling"}, std::nullopt});
  journal::write(*store_, run_id_, journal::Judged{2, id, "agent-1", "tiling", {{"ROWS", 4}}, Decision::promoted, std::nullopt, std::nullopt, 0.7,
                                                   json::object(), nullptr, {}, {}, {}});
  const auto records = store_->events(run_id_);
  const auto whole = journal::read_entries(*store_, run_id_);
  ASSERT_EQ(records.size(), 2u);
  ASSERT_EQ(whole.size(), 2u);
  for (std::size_t i = 0; i < records.size(); ++i) {
    const auto alone = journal::read_entry(*store_, records[i]);
    EXPECT_EQ(alone.id, whole[i].id);
    EXPECT_EQ(alone.event.index(), whole[i].event.index());
  }
  const auto judged = std::get<journal::Judged>(journal::read_entry(*store_, records[1]).event);
  EXPECT_EQ(judged.measured.time_ns, measure(2, first).time_ns);
  ASSERT_TRUE(judged.measured_again);
  EXPECT_EQ(judged.measured_again->time_ns, measure(2, second).time_ns);

  store_->add_event({0, run_id_, "judged", json{{"number", 3}, {"candidate", 999}, {"agent", "a"}, {"knobs", json::object()},
                                                {"decision", "backup"}}.dump(), ""});
  EXPECT_THROW(journal::read_entry(*store_, store_->events(run_id_).back()), std::runtime_error) << "a candidate the store lacks is named";
}

TEST_F(JournalTest, AFailedCandidateReadsBackWithItsReason) {
  auto verdict = timed(1000, 0.01);
  verdict.workloads[1].status = judge::Status::incorrect_numerical;
  verdict.workloads[1].reason = "output 'y': 3 of 10 values outside tolerance\nmore";
  verdict.workloads[1].timing.reset();
  const auto id = candidate(verdict);
  journal::write(*store_, run_id_, journal::Judged{3, id, "agent-2", "memory", {}, Decision::rejected, std::nullopt, std::nullopt, 0.1,
                                                   json::object(), nullptr, {}, {}, {}});
  const auto read = journal::read(*store_, run_id_);
  const auto& judged = std::get<journal::Judged>(read.at(0));
  EXPECT_FALSE(judged.measured.passed);
  EXPECT_EQ(judged.measured.reason, "INCORRECT_NUMERICAL on w2: output 'y': 3 of 10 values outside tolerance");
  EXPECT_EQ(judged.measured.reason, measure(3, verdict).reason);
  EXPECT_FALSE(judged.measured_again);
}

TEST_F(JournalTest, AJournalWrittenWhenJudgedEventsCarriedTheirOwnCopyStillReads) {
  const auto id = candidate(timed(500, 0.02));
  const json old = {{"number", 1}, {"candidate", id}, {"agent", "start"}, {"strategy", ""}, {"knobs", {{"ROWS", 1}}}, {"decision", "first"},
                    {"measured", {{"passed", true}, {"reason", ""}, {"time_ns", 123.0}, {"spread", 0.5}}}, {"time_ns", 123.0}};
  store_->add_event({0, run_id_, "judged", old.dump(), ""});
  const auto read = journal::read(*store_, run_id_);
  const auto& judged = std::get<journal::Judged>(read.at(0));
  EXPECT_EQ(judged.measured.time_ns, measure(1, timed(500, 0.02)).time_ns) << "the rows, not the event's copy";
  EXPECT_EQ(judged.decision, Decision::first);
}

TEST_F(JournalTest, AnEventItCannotReadIsNamed) {
  store_->add_event({0, run_id_, "teleported", "{}", ""});
  try {
    journal::read(*store_, run_id_);
    FAIL() << "an unknown kind was read";
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(error.what(), HasSubstr(fmt::format("run {}'s journal cannot be read", run_id_)));
    EXPECT_THAT(error.what(), HasSubstr("(teleported)"));
  }
}

TEST_F(JournalTest, AJudgedEventOfACandidateTheStoreLacksIsNamed) {
  store_->add_event({0, run_id_, "judged", json{{"number", 1}, {"candidate", 999}, {"agent", "start"}, {"knobs", json::object()},
                                                {"decision", "first"}}.dump(), ""});
  EXPECT_THROW(
      {
        try {
          journal::read(*store_, run_id_);
        } catch (const std::runtime_error& error) {
          EXPECT_THAT(error.what(), HasSubstr("candidate 999 is not in the store"));
          throw;
        }
      },
      std::runtime_error);
}

}  // namespace
}  // namespace kernelarc::engine
