// The run's live display: what a terminal shows, and the plain lines a pipe gets instead.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdio.h>

#include <cstdlib>

#include "report/live_display.h"
#include "report/run_summary.h"

namespace kernelarc::report {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

engine::RunSummary state(double best_ns, int plateaus) {
  engine::RunSummary s;
  s.judged = 5;
  s.promotions = 1;
  s.plateaus = plateaus;
  s.board_size = 4;
  s.elapsed_s = 75;
  s.start.time_ns = 4000;
  s.best = engine::Measured{2, true, "", best_ns, 0.01, 0.25, std::nullopt};
  s.agent_status = {{"agent-1", "tiling", 3, 1, 2, 0, "promoted", best_ns}, {"agent-2", "precision", 1, 0, 0, 1, "rejected: INCORRECT_NUMERICAL", 0}};
  return s;
}

// Everything written to a memory stream, as a string.
class Captured {
 public:
  Captured() : file_(open_memstream(&data_, &size_)) {}
  ~Captured() {
    std::fclose(file_);
    std::free(data_);
  }
  std::FILE* file() { return file_; }
  std::string text() {
    std::fflush(file_);
    return std::string(data_, size_);
  }

 private:
  char* data_ = nullptr;
  std::size_t size_ = 0;
  std::FILE* file_;
};

TEST(LiveDisplayTest, TheBlockHasALinePerAgentTheIncumbentAndTheBoard) {
  const auto lines = LiveDisplay::block("softmax on cpu", state(1000, 0), 64);
  ASSERT_EQ(lines.size(), 4u) << "a header, the incumbent, two agents";
  EXPECT_THAT(lines[0], HasSubstr("5/64 judged in 1m15s"));
  EXPECT_THAT(lines[0], HasSubstr("board 4 entries"));
  EXPECT_THAT(lines[1], HasSubstr("incumbent 1.00 us, 4.00x the start, 25.0% of the roofline"));
  EXPECT_THAT(lines[2], HasSubstr("agent-1"));
  EXPECT_THAT(lines[2], HasSubstr("tiling"));
  EXPECT_THAT(lines[2], HasSubstr("best 1.00 us"));
  EXPECT_THAT(lines[3], HasSubstr("rejected: INCORRECT_NUMERICAL"));
  EXPECT_THAT(lines[3], HasSubstr("best -"));
}

TEST(LiveDisplayTest, OnATerminalTheBlockIsRedrawnUnderTheLog) {
  Captured out;
  LiveDisplay display(out.file(), true, "softmax on cpu");
  display.update(state(1000, 0), 64);
  display.line("  [6/64] agent-2 ...: backup");
  const auto text = out.text();
  const auto erase = text.find("\x1b[4F\x1b[J");
  ASSERT_NE(erase, std::string::npos) << "the 4 lines of the block are erased before the log line";
  EXPECT_LT(erase, text.find("[6/64]"));
  EXPECT_NE(text.rfind("agent-1"), text.find("agent-1")) << "and drawn again below it";
}

TEST(LiveDisplayTest, ElsewhereAStatusLineOnlyWhenTheIncumbentOrThePlateausChange) {
  Captured out;
  LiveDisplay display(out.file(), false, "softmax on cpu");
  display.update(state(1000, 0), 64);
  display.update(state(1000, 0), 64);
  display.update(state(900, 0), 64);
  display.update(state(900, 1), 64);
  display.line("a log line");
  const auto text = out.text();
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << "no escape codes in a pipe";
  std::size_t statuses = 0;
  for (auto at = text.find("status:"); at != std::string::npos; at = text.find("status:", at + 1)) ++statuses;
  EXPECT_EQ(statuses, 3u);
  EXPECT_THAT(text, HasSubstr("a log line\n"));
}

TEST(RunSummaryTest, TheTableHasEveryAgentAndTheJsonEveryNumber) {
  auto s = state(1000, 1);
  s.stop_reason = "budget of 64 candidates spent";
  s.best_knobs = {{"VEC", 4}};
  const auto table = summary_table("softmax on cpu", s);
  EXPECT_THAT(table, HasSubstr("budget of 64 candidates spent"));
  EXPECT_THAT(table, HasSubstr("start 4.00 us -> best 1.00 us (4.00x)"));
  EXPECT_THAT(table, HasSubstr("{\"VEC\":4}"));
  EXPECT_THAT(table, HasSubstr("agent-2"));
  const auto json = summary_json(s);
  EXPECT_DOUBLE_EQ(json.at("speedup").get<double>(), 4.0);
  EXPECT_EQ(json.at("agents").size(), 2u);
  EXPECT_EQ(json.at("agents")[1].at("rejected").get<int>(), 1);
  EXPECT_TRUE(json.at("sol_score").is_null()) << "no baseline, no score";
  EXPECT_THAT(table, Not(HasSubstr("models:"))) << "no model was asked";
  EXPECT_THAT(table, Not(HasSubstr("sandbox")));
}

// Language models' spend per agent and in all, and the sandbox's walls, when there are any.
TEST(RunSummaryTest, ModelSpendAndTheSandboxAreShown) {
  auto s = state(1000, 1);
  s.agent_status[0].usage = {3, 1, 1200, 300, 0.0125};
  s.agent_status[1].usage = {2, 0, 800, 200, 0.0075};
  s.agent_status[1].failed_proposals = 3;
  s.agent_status[1].retired = true;
  s.sandbox = {{"active", {"seccomp: ...", "landlock v7: ..."}}, {"unavailable", {"network namespace: Operation not permitted"}}};
  const auto table = summary_table("softmax on cpu", s);
  EXPECT_THAT(table, HasSubstr("(gave up)"));
  EXPECT_THAT(table, ::testing::ContainsRegex("all +5 +1 +2000 +500 +0.0200"));
  EXPECT_THAT(table, HasSubstr("sandbox: seccomp: ...; landlock v7: ..."));
  EXPECT_THAT(table, HasSubstr("not available here: network namespace: Operation not permitted"));
  const auto json = summary_json(s);
  EXPECT_EQ(json.at("usage").at("tokens_in").get<std::int64_t>(), 2000);
  EXPECT_DOUBLE_EQ(json.at("usage").at("cost_usd").get<double>(), 0.02);
  EXPECT_EQ(json.at("agents")[1].at("failed_proposals").get<int>(), 3);
  EXPECT_EQ(json.at("sandbox").at("active").size(), 2u);
  const auto lines = LiveDisplay::block("t", s, 64);
  EXPECT_THAT(lines[2], HasSubstr("models: 5 requests (1 failed), 2000 tokens in, 500 out, $0.0200"));
}

}  // namespace
}  // namespace kernelarc::report
