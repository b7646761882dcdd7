// A composed candidate through the real CPU judge and through export: judged on every workload, held-out ones
// included, each by the part the rule picks; its exported source dispatches the same way. Every CPU template composes
// and builds.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "engine/composition.h"
#include "judge/build_cache.h"
#include "judge/cpu_compiler.h"
#include "judge/dispatch_rule.h"
#include "judge/judge.h"
#include "report/export.h"
#include "report_store.h"
#include "task/task_library.h"

namespace kernelarc::report {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

constexpr std::int64_t kBound = 20000;  // add_rmsnorm sizes (num_tokens * hidden_size) up to here go to part 0

// add_rmsnorm cut to small workloads on both sides of kBound, a held-out one on each side.
task::Task small_add_rmsnorm() {
  auto task = task::load_task(fs::path(KERNELARC_TASKS) / "add_rmsnorm");
  const std::set<std::string> kept = {"add_rmsnorm-1x2048", "add_rmsnorm-4x4096", "add_rmsnorm-16x5120", "add_rmsnorm-9x2048",
                                      "add_rmsnorm-33x4096"};
  std::erase_if(task.workloads, [&](const task::Workload& w) { return !kept.count(w.uuid); });
  return task;
}

// The fused CPU template with one more knob: WRONG=1 scales every output, so which part ran on a workload shows in its verdict.
task::Template probe_template(const task::Task& task, const fs::path& folder) {
  task::Template probe = task.definition.templates.front();
  std::string text = judge::read_text_file(probe.source);
  const auto end = text.rfind("  return 0;\n}");
  text.insert(end, "#if WRONG\n  for (int64_t i = 0; i < tokens * hidden; ++i) out[i] = kernelarc_float_to_bf16(2.0f * kernelarc_bf16_to_float(out[i]) + 1.0f);\n#endif\n");
  probe.source = folder / "probe.cpp";
  std::ofstream(probe.source) << text;
  probe.name = "probe";
  probe.knobs.push_back({"WRONG", {0, 1}, "algorithmic", "scale every output"});
  return probe;
}

std::vector<judge::DispatchPart> probe_parts(std::int64_t small_wrong, std::int64_t large_wrong) {
  return {{{{"KEEP_ROW", 0}, {"WRONG", small_wrong}}, kBound, std::nullopt}, {{{"KEEP_ROW", 1}, {"WRONG", large_wrong}}, std::nullopt, std::nullopt}};
}

judge::JudgeOptions quick_options(const fs::path& folder) {
  judge::JudgeOptions options;
  options.rounds = 2;
  options.warmup = 1;
  options.iterations = 3;
  options.rechecks = 1;
  options.seed = 0x5eed;
  options.worker_executable = KERNELARC_BINARY;
  options.scratch_directory = folder / "scratch";
  options.compiler.cache_directory = folder / "cache";
  return options;
}

task::DevicePeaks test_peaks() {
  task::DevicePeaks peaks;
  peaks.name = "test CPU";
  peaks.source = "test";
  peaks.bytes_per_second = 1e15;  // this test is about correctness
  peaks.flops_per_second = {{"fp32", 1e18}};
  return peaks;
}

// Each workload's status by uuid, and whether the rule sends it to part 1 (above kBound).
std::map<std::string, std::string> statuses(const judge::CandidateVerdict& verdict) {
  std::map<std::string, std::string> out;
  for (const auto& row : verdict.workloads) out[row.uuid] = std::string(judge::status_name(row.status));
  return out;
}

bool above_bound(const task::Task& task, const std::string& uuid) {
  for (const auto& w : task.workloads)
    if (w.uuid == uuid) return judge::dispatch_size(task.definition, task::resolve_workload(task, w).axes) > static_cast<double>(kBound);
  ADD_FAILURE() << uuid;
  return false;
}

TEST(CompositionJudgeTest, AComposedCandidateIsJudgedOnEveryWorkloadEachByThePartItsSizePicks) {
  testing::TemporaryDirectory directory;
  const auto task = small_add_rmsnorm();
  const auto probe = probe_template(task, directory.path());
  judge::Judge judge(task, quick_options(directory.path()), test_peaks());

  // Honest parts: every workload passes, the held-out ones included.
  const auto honest = engine::composed_source(task, task.definition.templates.front(),
                                              {{{{"KEEP_ROW", 0}}, kBound, std::nullopt}, {{{"KEEP_ROW", 1}}, std::nullopt, std::nullopt}});
  const auto passed = judge.evaluate(honest);
  ASSERT_TRUE(passed.build.ok) << passed.build.diagnostics;
  EXPECT_EQ(passed.workloads.size(), task.workloads.size());
  EXPECT_TRUE(passed.passed());
  EXPECT_EQ(std::count_if(passed.workloads.begin(), passed.workloads.end(), [](const auto& row) { return row.held_out; }), 2);

  // A wrong part fails exactly the workloads its class holds: the rule is the one that ran, held-out ones included.
  for (const auto& [small_wrong, large_wrong] : {std::pair{0, 1}, std::pair{1, 0}}) {
    const auto verdict = judge.evaluate(engine::composed_source(task, probe, probe_parts(small_wrong, large_wrong)));
    ASSERT_TRUE(verdict.build.ok) << verdict.build.diagnostics;
    ASSERT_EQ(verdict.workloads.size(), task.workloads.size());
    for (const auto& [uuid, status] : statuses(verdict)) {
      const bool wrong = above_bound(task, uuid) ? large_wrong : small_wrong;
      EXPECT_EQ(status, wrong ? "INCORRECT_NUMERICAL" : "PASSED") << uuid << " (WRONG in part " << (above_bound(task, uuid) ? 1 : 0) << ")";
    }
  }

  // A configuration that takes runs of sizes on both sides of another's is built once and runs on both.
  const std::vector<judge::DispatchPart> around = {{{{"KEEP_ROW", 0}, {"WRONG", 0}}, 10000, std::nullopt},
                                                   {{{"KEEP_ROW", 1}, {"WRONG", 1}}, kBound, std::nullopt},
                                                   {{{"KEEP_ROW", 0}, {"WRONG", 0}}, std::nullopt, std::nullopt}};
  const auto around_source = engine::composed_source(task, probe, around);
  EXPECT_EQ(around_source.source.find("namespace kernelarc_part2 {"), std::string::npos);
  const auto around_verdict = judge.evaluate(around_source);
  ASSERT_TRUE(around_verdict.build.ok) << around_verdict.build.diagnostics;
  const auto around_status = statuses(around_verdict);
  EXPECT_EQ(around_status.at("add_rmsnorm-1x2048"), "PASSED");               // 2048: part 0
  EXPECT_EQ(around_status.at("add_rmsnorm-4x4096"), "INCORRECT_NUMERICAL");  // 16384: part 1
  EXPECT_EQ(around_status.at("add_rmsnorm-9x2048"), "INCORRECT_NUMERICAL");  // 18432, held out: part 1
  EXPECT_EQ(around_status.at("add_rmsnorm-16x5120"), "PASSED");              // 81920: part 2, part 0's text
  EXPECT_EQ(around_status.at("add_rmsnorm-33x4096"), "PASSED");              // held out: part 2

  // Told apart by num_tokens alone (up to 8 tokens: part 0), 9x2048 goes to part 1, though its product (18432) is below
  // kBound: the judge follows the candidate's axis.
  auto by_tokens = probe_parts(0, 1);
  by_tokens[0].up_to = 8;
  const auto verdict = judge.evaluate(engine::composed_source(task, probe, by_tokens, "num_tokens"));
  ASSERT_TRUE(verdict.build.ok) << verdict.build.diagnostics;
  const auto by_uuid = statuses(verdict);
  EXPECT_EQ(by_uuid.at("add_rmsnorm-4x4096"), "PASSED");
  EXPECT_EQ(by_uuid.at("add_rmsnorm-9x2048"), "INCORRECT_NUMERICAL");
  EXPECT_EQ(by_uuid.at("add_rmsnorm-16x5120"), "INCORRECT_NUMERICAL");
}

TEST(CompositionJudgeTest, AnExportedComposedCandidateDispatchesAsTheJudgedOne) {
  testing::TemporaryDirectory directory;
  const auto task = small_add_rmsnorm();
  const auto probe = probe_template(task, directory.path());
  auto store = store::Store::open(directory.path() / "runs.db");
  const auto& fused = task.definition.templates.front();
  // Recorded as a run records a composed candidate (its knobs name its parts); the export reads the parts from them.
  const auto composed = engine::composed_source(task, probe, probe_parts(0, 1));
  const auto knobs = engine::composed_knobs(composed.dispatch);
  auto full_task = task::load_task(fs::path(KERNELARC_TASKS) / "add_rmsnorm");
  const auto run = testing::record_run(store, full_task, fused, "cpu", {{{{"KEEP_ROW", 0}}, "first", 1000}, {knobs, "promoted", 800, "PASSED", 0, composed.source}});
  ExportRequest request;
  request.run_id = run.run_id;
  const auto exported = export_candidate(store, request);
  EXPECT_EQ(exported.candidate_id, run.candidate_ids.back());
  EXPECT_THAT(exported.text, HasSubstr("Part 0 of 2: KEEP_ROW=0 WRONG=0; calls whose size (the product of the var axes) is at most 20000."));
  EXPECT_THAT(exported.text, ::testing::Not(HasSubstr("#define @")));

  // The exported file alone, judged: the same workloads pass and fail as the composed candidate's own.
  judge::Judge judge(task, quick_options(directory.path()), test_peaks());
  const auto own = judge.evaluate(composed);
  const auto from_export = judge.evaluate({exported.candidate_name, exported.text, {}, {}, task::TemplateForm::full, std::nullopt});
  ASSERT_TRUE(from_export.build.ok) << from_export.build.diagnostics;
  EXPECT_EQ(statuses(from_export), statuses(own));
  EXPECT_EQ(statuses(from_export).at("add_rmsnorm-33x4096"), "INCORRECT_NUMERICAL");  // held out, above the bound: part 1
  EXPECT_EQ(statuses(from_export).at("add_rmsnorm-9x2048"), "PASSED");                // held out, below it: part 0
}

// Two configurations of every CPU template composed and built: the composition holds for each template's text.
TEST(CompositionJudgeTest, EveryCpuTemplateComposesAndBuilds) {
  testing::TemporaryDirectory directory;
  judge::CompilerOptions options;
  options.cache_directory = directory.path() / "cache";
  const judge::CpuCompiler compiler(options);
  int composed = 0;
  for (const auto& folder : task::task_directories(KERNELARC_TASKS)) {
    const auto task = task::load_task(folder);
    for (const auto& tmpl : task.definition.templates) {
      if (tmpl.device != "cpu") continue;
      const auto first = testing::first_knobs(tmpl), moved = testing::moved_knobs(tmpl);
      const auto source = engine::composed_source(task, tmpl, {{first, 4096, std::nullopt}, {moved, std::nullopt, std::nullopt}});
      std::vector<std::string> flags = task.definition.cflags;
      const auto built = compiler.build({source.source, flags, {}});
      EXPECT_TRUE(built.ok) << task.definition.name << "/" << tmpl.name << ":\n" << built.diagnostics.substr(0, 3000);
      ++composed;
    }
  }
  EXPECT_GE(composed, 13);
}

}  // namespace
}  // namespace kernelarc::report
