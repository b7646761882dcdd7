// The rule a composed candidate is dispatched by, as the judge applies it: a workload's size is the product of its var
// axes; it goes to the first part whose bound it does not exceed; a kernel-only candidate's launch is that part's
// kernel, knobs and geometry, and the worker is told the kernel.
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "judge/dispatch_rule.h"
#include "judge/launch_request.h"
#include "judge/worker_messages.h"
#include "task/task.h"

namespace kernelarc::judge {
namespace {

namespace fs = std::filesystem;

TEST(DispatchRuleTest, TheSizeIsTheProductOfTheVarAxesAndEachBoundIsInclusive) {
  const auto task = task::load_task(fs::path(KERNELARC_TASKS) / "add_rmsnorm");
  EXPECT_EQ(dispatch_size(task.definition, {{"num_tokens", 4}, {"hidden_size", 4096}}), 16384);
  // Or one var axis alone, read by generated code from the first tensor that has it.
  EXPECT_EQ(dispatch_size(task.definition, {{"num_tokens", 4}, {"hidden_size", 4096}}, "num_tokens"), 4);
  EXPECT_EQ(dispatch_size_cpp(task.definition, "hidden_size"), "(double)inputs[0]->shape[1]");
  EXPECT_EQ(var_axis_names(task.definition), (std::vector<std::string>{"num_tokens", "hidden_size"}));
  EXPECT_THROW(dispatch_size(task.definition, {{"num_tokens", 4}, {"hidden_size", 4096}}, "batch"), std::invalid_argument);
  EXPECT_THROW(dispatch_size_cpp(task.definition, "batch"), std::invalid_argument);
  const std::vector<DispatchPart> parts = {{{}, 100, std::nullopt}, {{}, 1000, std::nullopt}, {{}, std::nullopt, std::nullopt}};
  EXPECT_EQ(dispatched_part(parts, 1), 0u);
  EXPECT_EQ(dispatched_part(parts, 100), 0u);
  EXPECT_EQ(dispatched_part(parts, 101), 1u);
  EXPECT_EQ(dispatched_part(parts, 1000), 1u);
  EXPECT_EQ(dispatched_part(parts, 1e12), 2u);
  EXPECT_EQ(dispatched_part({{{}, std::nullopt, std::nullopt}}, 5), 0u);
  EXPECT_THROW(dispatched_part({}, 5), std::logic_error);
}

TEST(DispatchRuleTest, AComposedKernelOnlyCandidateLaunchesThePartItsWorkloadsSizePicks) {
  const auto task = task::load_task(fs::path(KERNELARC_TASKS) / "add_rmsnorm");
  const task::Template* rows = nullptr;
  for (const auto& t : task.definition.templates)
    if (t.name == "rows_cuda") rows = &t;
  ASSERT_NE(rows, nullptr);
  CandidateSource candidate;
  candidate.form = task::TemplateForm::kernel;
  std::map<std::string, std::int64_t> small, large;
  for (const auto& knob : rows->knobs) small[knob.name] = large[knob.name] = knob.values.front();
  small["BLOCK"] = 32, small["ROWS_PER_BLOCK"] = 8;
  large["BLOCK"] = 512, large["ROWS_PER_BLOCK"] = 1;
  auto small_launch = *rows->launch, large_launch = *rows->launch;
  small_launch.kernel = "small_kernel";
  large_launch.kernel = "large_kernel";
  candidate.dispatch = {{small, 4096, small_launch}, {large, std::nullopt, large_launch}};
  candidate.launch = small_launch;
  const auto at = [&](std::int64_t tokens, std::int64_t hidden) {
    task::Workload workload = task.workloads.front();
    workload.axes = {{"num_tokens", tokens}, {"hidden_size", hidden}};
    return launch_request(task, task::resolve_workload(task, workload), candidate, 132);
  };
  const auto decode = at(2, 2048);  // size 4096: the bound, part 0
  EXPECT_EQ(decode.at("kernel"), "small_kernel");
  EXPECT_EQ(decode.at("block").at(0), 32 * 8);
  EXPECT_EQ(decode.at("grid").at(0), 1);
  const auto prefill = at(64, 4096);
  EXPECT_EQ(prefill.at("kernel"), "large_kernel");
  EXPECT_EQ(prefill.at("block").at(0), 512);
  EXPECT_EQ(prefill.at("grid").at(0), 64);
  // The worker reads the kernel it is told to launch.
  const auto launch = prefill.get<message::Launch>();
  ASSERT_TRUE(launch.kernel.has_value());
  EXPECT_EQ(*launch.kernel, "large_kernel");
  EXPECT_EQ(nlohmann::json(launch).at("kernel"), "large_kernel");
  // A candidate of one configuration names no kernel per workload: the one loaded is launched.
  candidate.dispatch.clear();
  candidate.knobs = large;
  EXPECT_FALSE(at(64, 4096).contains("kernel"));
  EXPECT_FALSE(at(64, 4096).get<message::Launch>().kernel.has_value());
}

}  // namespace
}  // namespace kernelarc::judge
