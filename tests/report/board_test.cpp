// The conclusions board as printed: which conclusions, in which order, as a table and as JSON.
#include "report/board_printer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "report_store.h"

namespace kernelarc::report {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class BoardPrinterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto softmax = task::load_task(fs::path(KERNELARC_TASKS) / "softmax");
    const auto matmul = task::load_task(fs::path(KERNELARC_TASKS) / "matmul");
    const auto& softmax_cpu = testing::first_template(softmax, "cpu", task::TemplateForm::full);
    const auto& matmul_cpu = testing::first_template(matmul, "cpu", task::TemplateForm::full);
    const auto knobs = testing::first_knobs(softmax_cpu);
    // Conclusions 1 and 2 (softmax run), 3 (matmul run), 4 and 5 (second softmax run).
    first_ = testing::record_run(store_, softmax, softmax_cpu, "cpu", {{knobs, "first"}, {knobs, "promoted"}, {knobs, "rejected", 0, "INCORRECT_NUMERICAL"}});
    matmul_ = testing::record_run(store_, matmul, matmul_cpu, "cpu", {{testing::first_knobs(matmul_cpu), "first"}, {testing::first_knobs(matmul_cpu), "backup"}});
    second_ = testing::record_run(store_, softmax, softmax_cpu, "cpu", {{knobs, "first"}, {knobs, "backup"}, {knobs, "promoted"}});
  }

  static std::vector<std::int64_t> ids(const std::vector<store::ConclusionRecord>& entries) {
    std::vector<std::int64_t> out;
    for (const auto& e : entries) out.push_back(e.id);
    return out;
  }

  testing::TemporaryDirectory directory_;
  store::Store store_ = store::Store::open(directory_.path() / "runs.db");
  testing::RecordedRun first_, matmul_, second_;
};

TEST_F(BoardPrinterTest, EveryTaskNewestFirstAndFiltered) {
  EXPECT_THAT(ids(board_entries(store_, {})), ElementsAre(5, 4, 3, 2, 1));
  EXPECT_THAT(ids(board_entries(store_, {"softmax", std::nullopt, 0})), ElementsAre(5, 4, 2, 1));
  EXPECT_THAT(ids(board_entries(store_, {"matmul", std::nullopt, 0})), ElementsAre(3));
  EXPECT_THAT(ids(board_entries(store_, {std::nullopt, first_.run_id, 0})), ElementsAre(2, 1));
  EXPECT_THAT(ids(board_entries(store_, {"matmul", first_.run_id, 0})), ElementsAre());
  EXPECT_THAT(ids(board_entries(store_, {std::nullopt, std::nullopt, 2})), ElementsAre(5, 4));
  EXPECT_THAT(ids(board_entries(store_, {"no_such_task", std::nullopt, 0})), ElementsAre());
  EXPECT_THROW(board_entries(store_, {std::nullopt, 999, 0}), BoardError);
}

TEST_F(BoardPrinterTest, TableIsAlignedWithEffectsAsRatios) {
  const std::string table = board_table(board_entries(store_, {std::nullopt, first_.run_id, 0}));
  std::istringstream lines(table);
  std::string header, promoted, rejected, extra;
  std::getline(lines, header);
  std::getline(lines, rejected);  // newest first: conclusion 2 is the rejected candidate
  std::getline(lines, promoted);
  EXPECT_FALSE(std::getline(lines, extra)) << table;
  for (const char* column : {"id", "run", "task", "strategy", "change", "outcome", "effect", "lesson"}) EXPECT_THAT(header, HasSubstr(column));
  EXPECT_THAT(promoted, HasSubstr("1.33x faster"));
  EXPECT_THAT(promoted, HasSubstr("lesson 2"));
  EXPECT_THAT(rejected, HasSubstr("rejected: INCORRECT_NUMERICAL"));
  EXPECT_THAT(rejected, ::testing::ContainsRegex("   -  lesson 3$")) << "a rejected candidate was not timed: no effect";
  // Aligned: every column starts at the same place on every line.
  for (const char* column : {"outcome", "lesson"}) {
    const auto at = header.find(column);
    EXPECT_EQ(promoted.find(column == std::string("lesson") ? "lesson 2" : "promoted"), at) << table;
  }
  EXPECT_EQ(rejected.find("rejected"), header.find("outcome")) << table;
  // Cut to a terminal's width.
  std::istringstream narrow(board_table(board_entries(store_, {}), 40));
  for (std::string line; std::getline(narrow, line);) EXPECT_LE(line.size(), 40u) << line;
}

TEST_F(BoardPrinterTest, JsonHasEveryField) {
  const auto json = board_json(board_entries(store_, {"matmul", std::nullopt, 0}));
  ASSERT_EQ(json.size(), 1u);
  const auto& entry = json[0];
  EXPECT_EQ(entry["id"], 3);
  EXPECT_EQ(entry["run"], matmul_.run_id);
  EXPECT_EQ(entry["task"], "matmul");
  EXPECT_EQ(entry["workload_class"], "all");
  EXPECT_EQ(entry["strategy"], "tiling");
  EXPECT_EQ(entry["outcome"], "backup");
  EXPECT_DOUBLE_EQ(entry["effect"].get<double>(), -0.05);
  EXPECT_EQ(entry["lesson"], "lesson 2");
  EXPECT_TRUE(entry["change"].is_string());
  EXPECT_FALSE(entry["created_at"].get<std::string>().empty());
  EXPECT_TRUE(board_json({}).is_array());
}

}  // namespace
}  // namespace kernelarc::report
