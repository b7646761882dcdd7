// A template's knob grid: defaults, the order of the combinations, the constraints that skip some, bad input named.
#include "task/knob_grid.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

namespace kernelarc::task {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// softmax's CPU template: THREADS 1,2; ROWS_PER_STEP 1,2,4; VEC 1,4,8,16; ONE_PASS, FAST_EXP, STORE_EXP 0,1;
// PREFETCH_LINES 0,4,16; the constraint "ONE_PASS * STORE_EXP == 0".
Template softmax_rows_template() {
  static const Task task = load_task(fs::path(KERNELARC_TASKS) / "softmax");
  for (const auto& tmpl : task.definition.templates)
    if (tmpl.name == "rows") return tmpl;
  throw std::runtime_error("softmax has no template rows");
}

TEST(KnobGridTest, NothingSweptIsTheDefaultConfigurationAlone) {
  const auto grid = expand_knob_grid(softmax_rows_template(), {});
  ASSERT_EQ(grid.configurations.size(), 1u);
  EXPECT_EQ(grid.configurations[0], default_knobs(softmax_rows_template()));
  EXPECT_EQ(grid.configurations[0].at("VEC"), 1);
  EXPECT_TRUE(grid.skipped.empty());
}

TEST(KnobGridTest, EveryCombinationWithTheLastKnobFastestAndTheOthersAtTheirDefaults) {
  const auto grid = expand_knob_grid(softmax_rows_template(), {{"THREADS", {2, 1}}, {"VEC", {4, 16, 4}}});
  ASSERT_EQ(grid.configurations.size(), 4u);  // the repeated 4 counts once
  const std::vector<std::pair<std::int64_t, std::int64_t>> expected{{2, 4}, {2, 16}, {1, 4}, {1, 16}};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(grid.configurations[i].at("THREADS"), expected[i].first) << i;
    EXPECT_EQ(grid.configurations[i].at("VEC"), expected[i].second) << i;
    EXPECT_EQ(grid.configurations[i].at("PREFETCH_LINES"), 0) << i;
    EXPECT_EQ(grid.configurations[i].size(), 7u) << i;
  }
}

TEST(KnobGridTest, ACombinationThatBreaksAConstraintIsSkippedWithTheConstraintItBreaks) {
  const auto grid = expand_knob_grid(softmax_rows_template(), {{"ONE_PASS", {0, 1}}, {"STORE_EXP", {0, 1}}});
  EXPECT_EQ(grid.configurations.size(), 3u);
  ASSERT_EQ(grid.skipped.size(), 1u);
  EXPECT_EQ(grid.skipped[0].knobs.at("ONE_PASS"), 1);
  EXPECT_EQ(grid.skipped[0].knobs.at("STORE_EXP"), 1);
  EXPECT_EQ(grid.skipped[0].constraint, "ONE_PASS * STORE_EXP == 0");
  for (const auto& knobs : grid.configurations) EXPECT_FALSE(broken_knob_constraint(softmax_rows_template(), knobs));
}

TEST(KnobGridTest, OneKnobAtATimeIsTheDefaultThenEachOtherValueOfEachKnobInTheTemplatesOrder) {
  Template tmpl = softmax_rows_template();
  tmpl.constraints.push_back(Expression::parse("VEC <= 8"));
  const auto grid = single_knob_changes(tmpl);
  // THREADS 1 more value, ROWS_PER_STEP 2, VEC 3 (16 refused), ONE_PASS, FAST_EXP, STORE_EXP 1 each, PREFETCH_LINES 2.
  ASSERT_EQ(grid.configurations.size(), 1u + 1 + 2 + 2 + 1 + 1 + 1 + 2);
  EXPECT_EQ(grid.configurations[0], default_knobs(tmpl));
  KnobValues threads_2 = default_knobs(tmpl);
  threads_2["THREADS"] = 2;
  EXPECT_EQ(grid.configurations[1], threads_2);
  KnobValues prefetch_16 = default_knobs(tmpl);
  prefetch_16["PREFETCH_LINES"] = 16;
  EXPECT_EQ(grid.configurations.back(), prefetch_16);
  for (std::size_t i = 1; i < grid.configurations.size(); ++i) {
    int changed = 0;
    for (const auto& [name, value] : grid.configurations[i]) changed += value != default_knobs(tmpl).at(name);
    EXPECT_EQ(changed, 1) << i;
  }
  ASSERT_EQ(grid.skipped.size(), 1u);
  EXPECT_EQ(grid.skipped[0].knobs.at("VEC"), 16);
  EXPECT_EQ(grid.skipped[0].constraint, "VEC <= 8");
}

TEST(KnobGridTest, BadInputIsNamedWithWhatWouldBeRight) {
  const auto message = [](const std::vector<std::pair<std::string, std::vector<std::int64_t>>>& swept) {
    try {
      expand_knob_grid(softmax_rows_template(), swept);
    } catch (const std::invalid_argument& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message({{"VECC", {1}}}), "template \"rows\" has no knob VECC (did you mean VEC?); its knobs are THREADS, ROWS_PER_STEP, VEC, "
                                      "ONE_PASS, FAST_EXP, STORE_EXP, PREFETCH_LINES");
  EXPECT_EQ(message({{"VEC", {1, 3}}}), "knob VEC of template \"rows\" does not allow 3; its values are 1, 4, 8, 16");
  EXPECT_EQ(message({{"VEC", {1}}, {"VEC", {4}}}), "knob VEC is given twice; give its values once, separated by commas");
  EXPECT_EQ(message({{"VEC", {}}}), "knob VEC is given no value");
}

}  // namespace
}  // namespace kernelarc::task
