// A composed candidate's knobs and source: the parts survive the store's flat knob map, and the source holds each part
// in its own namespace with its knobs, and an entry point that dispatches by the judge's rule.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "engine/candidate_source.h"
#include "engine/composition.h"
#include "task/task.h"

namespace kernelarc::engine {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// add_rmsnorm's kernel-only CUDA template, and a template's default knobs.
const task::Template* rows_cuda(const task::Task& task) {
  for (const auto& t : task.definition.templates)
    if (t.name == "rows_cuda") return &t;
  return nullptr;
}

Knobs default_knobs(const task::Template& tmpl) {
  Knobs knobs;
  for (const auto& knob : tmpl.knobs) knobs[knob.name] = knob.values.front();
  return knobs;
}

std::vector<judge::DispatchPart> two_parts() {
  judge::DispatchPart small, large;
  small.knobs = {{"KEEP_ROW", 0}};
  small.up_to = 20000;
  large.knobs = {{"KEEP_ROW", 1}};
  return {small, large};
}

TEST(CompositionTest, KnobsRoundTripAndNameTheirParts) {
  const auto knobs = composed_knobs(two_parts());
  EXPECT_EQ(knobs, (Knobs{{"@parts", 2}, {"@p0.KEEP_ROW", 0}, {"@p0<=", 20000}, {"@p1.KEEP_ROW", 1}}));
  const auto parts = composed_parts(knobs);
  ASSERT_TRUE(parts.has_value());
  ASSERT_EQ(parts->size(), 2u);
  EXPECT_EQ((*parts)[0].knobs, (Knobs{{"KEEP_ROW", 0}}));
  EXPECT_EQ((*parts)[0].up_to, 20000);
  EXPECT_FALSE((*parts)[1].up_to.has_value());
  EXPECT_FALSE(composed_parts({{"KEEP_ROW", 1}}).has_value());
  // A search goes on from the last part's configuration; a plain configuration is its own base.
  EXPECT_EQ(search_base(knobs), (Knobs{{"KEEP_ROW", 1}}));
  EXPECT_EQ(search_base({{"KEEP_ROW", 0}}), (Knobs{{"KEEP_ROW", 0}}));
}

TEST(CompositionTest, ADispatchAxisRoundTripsAndIsReadFromItsTensorsShape) {
  const auto knobs = composed_knobs(two_parts(), "num_tokens");
  EXPECT_EQ(knobs.at("@by.num_tokens"), 1);
  EXPECT_EQ(composed_axis(knobs), "num_tokens");
  EXPECT_EQ(composed_axis(composed_knobs(two_parts())), "") << "no axis: the product, as composed candidates recorded before it";
  ASSERT_TRUE(composed_parts(knobs).has_value());
  EXPECT_EQ(composed_parts(knobs)->size(), 2u);
  const auto task = task::load_task(fs::path(KERNELARC_TASKS) / "add_rmsnorm");
  const auto source = candidate_source(task, task.definition.templates.front(), knobs, {});
  EXPECT_EQ(source.dispatch_axis, "num_tokens");
  EXPECT_EQ(source.name, "add_rmsnorm.fused.composed.bynum_tokens.KEEP_ROW0_upto20000.KEEP_ROW1");
  EXPECT_THAT(source.source, HasSubstr("const double kernelarc_size = (double)inputs[0]->shape[0];"));
  // An axis the task does not have, or two axes, is refused, not dispatched by a size the entry point cannot read.
  auto other = two_parts();
  EXPECT_THROW(candidate_source(task, task.definition.templates.front(), composed_knobs(other, "M"), {}), std::invalid_argument);
  auto two_axes = knobs;
  two_axes["@by.hidden_size"] = 1;
  EXPECT_THROW(composed_axis(two_axes), std::invalid_argument);
  two_axes.erase("@by.hidden_size");
  two_axes["@by.num_tokens"] = 2;
  EXPECT_THROW(composed_axis(two_axes), std::invalid_argument);
}

TEST(CompositionTest, MalformedKnobsAreRefused) {
  EXPECT_THROW(composed_parts({{"@parts", 2}, {"@p0.A", 1}, {"@p1.A", 2}}), std::invalid_argument);      // part 0 has no bound
  EXPECT_THROW(composed_parts({{"@parts", 2}, {"@p0<=", 5}, {"@p2.A", 2}}), std::invalid_argument);      // no part 2
  EXPECT_THROW(composed_parts({{"@parts", 2}, {"@p0<=", 5}, {"BLOCK", 2}}), std::invalid_argument);      // a plain knob
  EXPECT_THROW(composed_parts({{"@parts", 3}, {"@p0<=", 5}, {"@p1<=", 5}}), std::invalid_argument);     // bounds not increasing
  EXPECT_THROW(composed_parts({{"@parts", 0}}), std::invalid_argument);
}

TEST(CompositionTest, AFullSourceGetsItsPartsInNamespacesAndADispatchingEntryPoint) {
  const auto task = task::load_task(fs::path(KERNELARC_TASKS) / "add_rmsnorm");
  const auto& tmpl = task.definition.templates.front();
  ASSERT_EQ(tmpl.name, "fused");
  const auto source = candidate_source(task, tmpl, composed_knobs(two_parts()), {});
  EXPECT_TRUE(source.knobs.empty());
  ASSERT_EQ(source.dispatch.size(), 2u);
  EXPECT_EQ(source.name, "add_rmsnorm.fused.composed.KEEP_ROW0_upto20000.KEEP_ROW1");  // what tells the parts apart
  const auto& text = source.source;
  // Includes above every part, each part's knobs defined and undefined around its namespace.
  EXPECT_LT(text.find("#include <vector>"), text.find("namespace kernelarc_part0"));
  EXPECT_THAT(text, HasSubstr("#define KEEP_ROW 0\n#define kernelarc_run kernelarc_run_kernelarc_part0\nnamespace kernelarc_part0 {"));
  EXPECT_THAT(text, HasSubstr("#undef KEEP_ROW\n"));
  EXPECT_THAT(text, HasSubstr("const double kernelarc_size = (double)inputs[0]->shape[0] * (double)inputs[0]->shape[1];"));
  EXPECT_THAT(text, HasSubstr("if (kernelarc_size <= 20000.0) return kernelarc_part0::kernelarc_run_kernelarc_part0("));
  EXPECT_THAT(text, HasSubstr("return kernelarc_part1::kernelarc_run_kernelarc_part1("));
}

TEST(CompositionTest, AKernelOnlySourceRenamesEachPartsKernelForTheJudgeToPick) {
  const auto task = task::load_task(fs::path(KERNELARC_TASKS) / "add_rmsnorm");
  const task::Template* rows = rows_cuda(task);
  ASSERT_NE(rows, nullptr);
  const Knobs first = default_knobs(*rows);
  Knobs second = first;
  second["BLOCK"] = 32;
  const auto source = composed_source(task, *rows, {{first, 16, std::nullopt}, {second, std::nullopt, std::nullopt}});
  ASSERT_EQ(source.dispatch.size(), 2u);
  EXPECT_EQ(source.dispatch[0].launch->kernel, "add_rmsnorm_rows_kernelarc_part0");
  EXPECT_EQ(source.dispatch[1].launch->kernel, "add_rmsnorm_rows_kernelarc_part1");
  EXPECT_EQ(source.launch->kernel, "add_rmsnorm_rows_kernelarc_part0");
  EXPECT_THAT(source.source, HasSubstr("#define add_rmsnorm_rows add_rmsnorm_rows_kernelarc_part1"));
  EXPECT_THAT(source.source, ::testing::Not(HasSubstr("KERNELARC_CANDIDATE(")));
}

TEST(CompositionTest, AConfigurationThatTakesTwoRunsOfSizesIsBuiltOnce) {
  const auto task = task::load_task(fs::path(KERNELARC_TASKS) / "add_rmsnorm");
  const auto& fused = task.definition.templates.front();
  const std::vector<judge::DispatchPart> parts = {{{{"KEEP_ROW", 0}}, 100, std::nullopt},
                                                  {{{"KEEP_ROW", 1}}, 20000, std::nullopt},
                                                  {{{"KEEP_ROW", 0}}, std::nullopt, std::nullopt}};
  EXPECT_EQ(part_source_index(parts, 0), 0u);
  EXPECT_EQ(part_source_index(parts, 1), 1u);
  EXPECT_EQ(part_source_index(parts, 2), 0u);
  EXPECT_EQ(configuration_count(parts), 2u);
  const auto full = composed_source(task, fused, parts);
  EXPECT_THAT(full.source, HasSubstr("namespace kernelarc_part1 {"));
  EXPECT_THAT(full.source, ::testing::Not(HasSubstr("namespace kernelarc_part2 {")));
  EXPECT_THAT(full.source, HasSubstr("if (kernelarc_size <= 20000.0) return kernelarc_part1::kernelarc_run_kernelarc_part1("));
  EXPECT_THAT(full.source, HasSubstr("  return kernelarc_part0::kernelarc_run_kernelarc_part0("));

  const task::Template* rows = rows_cuda(task);
  ASSERT_NE(rows, nullptr);
  const Knobs first = default_knobs(*rows);
  Knobs second = first;
  second["BLOCK"] = 32;
  const auto kernels = composed_source(task, *rows, {{first, 16, std::nullopt}, {second, 64, std::nullopt}, {first, std::nullopt, std::nullopt}});
  ASSERT_EQ(kernels.dispatch.size(), 3u);
  EXPECT_EQ(kernels.dispatch[2].launch->kernel, "add_rmsnorm_rows_kernelarc_part0");
  EXPECT_THAT(kernels.source, ::testing::Not(HasSubstr("add_rmsnorm_rows_kernelarc_part2")));
}

}  // namespace
}  // namespace kernelarc::engine
