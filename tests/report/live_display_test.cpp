// The run's live display: what a terminal shows, and the plain lines a pipe gets instead.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdio.h>

#include <cstdlib>

#include <fmt/format.h>

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
  s.start_candidate = 11;  // the store's ids, which a second run in the same store does not start at 1
  s.best_candidate = 13;
  s.agent_status = {{"agent-1", "tiling", 3, 1, 2, 0, "promoted", best_ns, 13},
                    {"agent-2", "precision", 1, 0, 0, 1, "rejected: INCORRECT_NUMERICAL", 0}};
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
  EXPECT_EQ(lines[0], "softmax on cpu: 5/64 judged in 1m15s, about 14m45s left, 1 promotions, board 4 entries, 0 plateaus");
  EXPECT_THAT(lines[0], HasSubstr("board 4 entries"));
  EXPECT_EQ(lines[1], "  incumbent 1.00 us (candidate 13), 4.00x faster than the start, 25.0% of the roofline");
  EXPECT_EQ(lines[2], "  agent-1   tiling         3 judged  best 1.00 us (candidate 13)     last promoted");
  EXPECT_THAT(lines[3], HasSubstr("rejected: INCORRECT_NUMERICAL"));
  EXPECT_THAT(lines[3], HasSubstr("best -"));
}

TEST(LiveDisplayTest, OnATerminalTheBlockIsRedrawnUnderTheLog) {
  Captured out;
  LiveDisplay display(out.file(), true, "softmax on cpu", [] { return TerminalSize{120, 40}; });
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
  EXPECT_THAT(table, HasSubstr("  start: candidate 11, 4.00 us\n  best:  candidate 13, 1.00 us, 4.00x faster than the start, 25.0% of the roofline\n"));
  EXPECT_THAT(table, ::testing::ContainsRegex("agent-1 +tiling +3 +1 +2 +0 +1.00 us +13\n"));
  EXPECT_THAT(table, HasSubstr("{\"VEC\":4}"));
  EXPECT_THAT(table, HasSubstr("agent-2"));
  const auto json = summary_json(s);
  EXPECT_DOUBLE_EQ(json.at("speedup").get<double>(), 4.0);
  EXPECT_EQ(json.at("best_candidate").get<int>(), 13);
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

// The start judged again at the end: the faster of its two times is the speed-up's reference.
TEST(RunSummaryTest, TheSpeedUpIsAgainstTheStartMeasuredAgain) {
  auto s = state(1000, 0);
  s.start_again = engine::Measured{1, true, "", 3000, 0.01, 0.2, std::nullopt};
  auto table = summary_table("softmax on cpu", s);
  EXPECT_THAT(table, HasSubstr("  start: candidate 11, 4.00 us, 3.00 us measured again at the end (the faster is the reference)\n"));
  EXPECT_THAT(table, HasSubstr("best:  candidate 13, 1.00 us, 3.00x faster than the start"));
  EXPECT_DOUBLE_EQ(summary_json(s).at("speedup").get<double>(), 3.0);
  EXPECT_DOUBLE_EQ(summary_json(s).at("start_again_ns").get<double>(), 3000);
  // Slower when measured again (a busy moment): load only adds time, so the faster first time stays the reference.
  s.start_again->time_ns = 9000;
  table = summary_table("softmax on cpu", s);
  EXPECT_THAT(table, HasSubstr("best:  candidate 13, 1.00 us, 4.00x faster than the start"));
}

// Cut to the terminal: no line reaches the last column, and agents that do not fit are counted, the log keeping 2 rows.
TEST(LiveDisplayTest, TheBlockFitsTheTerminalsWidthAndHeight) {
  auto s = state(1000, 0);
  for (int i = 3; i <= 12; ++i) s.agent_status.push_back({fmt::format("agent-{}", i), "memory", 1, 0, 1, 0, "backup", 1500, 20});
  const auto wide = LiveDisplay::block("softmax on cpu", s, 64, TerminalSize{200, 50});
  EXPECT_EQ(wide.size(), 14u) << "everything fits";
  const auto small = LiveDisplay::block("softmax on cpu", s, 64, TerminalSize{80, 10});
  ASSERT_EQ(small.size(), 8u);
  for (const auto& line : small) EXPECT_LE(line.size(), 79u) << line;
  EXPECT_EQ(small[0], "softmax on cpu: 5/64 judged in 1m15s, about 14m45s left, 1 promotions, board...");
  EXPECT_EQ(small[7], "  ... and 7 more agents");
  EXPECT_EQ(LiveDisplay::rows_taken({std::string(79, 'x'), std::string(100, 'y'), ""}, 50), 2u + 2u + 1u) << "re-wrapped at 50 columns";
}

// A terminal that shrinks below the block's minimum gets plain status lines; one that grows again gets the block back.
TEST(LiveDisplayTest, ATerminalTooSmallGetsPlainLines) {
  Captured out;
  LiveDisplay display(out.file(), true, "softmax on cpu", [] { return TerminalSize{30, 6}; });
  display.update(state(1000, 0), 64);
  display.line("a log line");
  display.close();
  EXPECT_EQ(out.text(),
            "status: 5/64 judged in 1m15s, about 14m45s left; incumbent 1.00 us (candidate 13), 4.00x faster than the start, 25.0% of the "
            "roofline; board 4 entries; 0 plateaus\na log line\n");
}

}  // namespace
}  // namespace kernelarc::report
