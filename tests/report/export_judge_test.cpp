// Exports checked with real tools: the exported CPU source built by the judge's compiler and judged PASSED, the
// printed launch expressions compiled and compared with the evaluator, the torch binding compiled and run against a
// fake PyTorch (tests/report/fake_torch), and the two commands run as a user runs them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <sstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "common/subprocess.h"
#include "judge/build_cache.h"
#include "judge/judge.h"
#include "judge/verdict.h"
#include "report/export.h"
#include "report/expression_printer.h"
#include "report/torch_binding.h"
#include "report_store.h"

namespace kernelarc::report {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using nlohmann::json;

const task::Task& builtin(const std::string& name) {
  static std::map<std::string, task::Task> tasks;
  auto found = tasks.find(name);
  if (found == tasks.end()) found = tasks.emplace(name, task::load_task(fs::path(KERNELARC_TASKS) / name)).first;
  return found->second;
}

void write(const fs::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary);
  out << text;
  ASSERT_TRUE(out.good()) << file;
}

std::string describe(const judge::CandidateVerdict& verdict) {
  std::string out = verdict.build.ok ? "" : "build: " + verdict.build.diagnostics + "\n";
  for (const auto& row : verdict.workloads) out += row.uuid + ": " + std::string(judge::status_name(row.status)) + " " + row.reason + "\n";
  return out;
}

TEST(ExportJudgeTest, ExportedCpuSourceBuildsWithoutDefinesAndIsJudgedPassed) {
  testing::TemporaryDirectory directory;
  auto store = store::Store::open(directory.path() / "runs.db");
  const auto& task = builtin("matmul");
  const auto& tmpl = testing::first_template(task, "cpu", task::TemplateForm::full);
  const auto knobs = testing::moved_knobs(tmpl);
  const auto run = testing::record_run(store, task, tmpl, "cpu", {{knobs, "first", 1000}});
  ExportRequest request;
  request.run_id = run.run_id;
  const auto exported = export_candidate(store, request);
  ASSERT_EQ(exported.extension, ".cpp");

  // The file alone, no -D and no include folder of ours: the knobs and the ABI are in it.
  const fs::path file = directory.path() / "exported.cpp";
  write(file, exported.text);
  std::vector<std::string> command = {"c++", "-std=c++20", "-O1", "-fPIC", "-shared", "-o", (directory.path() / "exported.so").string()};
  command.insert(command.end(), task.definition.cflags.begin(), task.definition.cflags.end());
  command.push_back(file.string());
  const auto compiled = common::run_command(command, std::chrono::minutes(2));
  ASSERT_TRUE(compiled.ok()) << compiled.describe() << "\n" << compiled.output;

  // The judge, on the two smallest visible workloads.
  task::Task subset = task;
  subset.workloads.clear();
  std::vector<std::pair<std::int64_t, const task::Workload*>> sizes;
  for (const auto& workload : task.workloads) {
    if (workload.held_out) continue;
    std::int64_t elements = 0;
    for (const auto& shape : task::resolve_workload(task, workload).output_shapes) elements += task::element_count(shape);
    sizes.emplace_back(elements, &workload);
  }
  std::sort(sizes.begin(), sizes.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (std::size_t i = 0; i < 2 && i < sizes.size(); ++i) subset.workloads.push_back(*sizes[i].second);
  judge::JudgeOptions options;
  options.rounds = 2;
  options.warmup = 1;
  options.iterations = 3;
  options.rechecks = 1;
  options.seed = 0x5eed;
  options.worker_executable = KERNELARC_BINARY;
  options.scratch_directory = directory.path() / "scratch";
  options.compiler.cache_directory = directory.path() / "cache";
  task::DevicePeaks peaks;
  peaks.name = "test CPU";
  peaks.source = "test";
  peaks.bytes_per_second = 1e15;  // speed of light far below any real time: this test is about correctness
  peaks.flops_per_second = {{"fp32", 1e18}};
  judge::Judge judge(subset, options, peaks);
  const auto verdict = judge.evaluate({exported.candidate_name, exported.text, {}, {}, task::TemplateForm::full, std::nullopt});
  EXPECT_TRUE(verdict.build.ok) << verdict.build.diagnostics;
  EXPECT_TRUE(verdict.passed()) << describe(verdict);
  EXPECT_EQ(verdict.workloads.size(), subset.workloads.size());
}

// The printed C++ computes what the evaluator computes, on the operators and functions launch geometry uses.
TEST(ExpressionPrinterCompiledTest, AgreesWithTheEvaluator) {
  const std::vector<std::string> expressions = {
      "a // b",       "a % b",        "ceil_div(a, b)", "-a // b",          "a / b",        "a ** 2",          "2 ** -1",
      "min(a, b, c)", "max(a, b)",    "abs(b)",         "floor(a / b)",     "ceil(a / b)",  "sqrt(c)",         "log2(c)",
      "a > b and b < c", "not a or b", "a == b",        "a != b",           "(a + b) * c - a", "-2**2",      "a % -b",
      "ceil_div(-a, b)", "True + false", "1e3 / 7",     "a - b - c",        "a // b // 2",  "max(ceil_div(a, 4), 1) * b"};
  const std::vector<std::array<double, 3>> bindings = {{7, -3, 16}, {-7.5, 2, 0.25}, {1024, 128, 3}, {0, 5, 1}, {4097, 256, 1024}};
  const CppNames names = {{"a", "a"}, {"b", "b"}, {"c", "c"}};
  std::string program = "#include <math.h>\n#include <stdio.h>\n" + std::string(expression_helpers_cpp()) + "int main() {\n";
  std::vector<double> expected;
  for (const auto& values : bindings) {
    program += fmt::format("  {{ const double a = {:.17g}, b = {:.17g}, c = {:.17g};\n", values[0], values[1], values[2]);
    for (const auto& text : expressions) {
      const auto expression = task::Expression::parse(text);
      expected.push_back(expression.evaluate({{"a", values[0]}, {"b", values[1]}, {"c", values[2]}}));
      program += fmt::format("    printf(\"%.17g\\n\", (double)({}));\n", expression_to_cpp(expression, names));
    }
    program += "  }\n";
  }
  program += "  return 0;\n}\n";
  testing::TemporaryDirectory directory;
  write(directory.path() / "expressions.cpp", program);
  const auto built = common::run_command({"c++", "-std=c++17", "-o", (directory.path() / "expressions").string(),
                                          (directory.path() / "expressions.cpp").string(), "-lm"},
                                         std::chrono::minutes(2));
  ASSERT_TRUE(built.ok()) << built.output << "\n" << program;
  const auto ran = common::run_command({(directory.path() / "expressions").string()}, std::chrono::seconds(30));
  ASSERT_TRUE(ran.ok()) << ran.describe();
  std::istringstream lines(ran.output);
  for (std::size_t i = 0; i < expected.size(); ++i) {
    std::string line;
    ASSERT_TRUE(std::getline(lines, line)) << "line " << i;
    EXPECT_DOUBLE_EQ(std::stod(line), expected[i]) << expressions[i % expressions.size()] << " with binding " << i / expressions.size();
  }
}

// The binding compiled against a fake PyTorch and called: the candidate must receive every tensor, in the definition's
// order, with its DLPack dtype, shape and device, compact (strides null), on PyTorch's current stream.
TEST(TorchBindingCompiledTest, HandsTheCandidateEveryTensorInTheDefinitionOrder) {
  const auto& task = builtin("add_rmsnorm");
  const auto& definition = task.definition;
  const std::string binding = torch_binding_cpp(definition, "// test\n");
  std::smatch signature;
  ASSERT_TRUE(std::regex_search(binding, signature, std::regex(R"(void run\(([^)]*)\))")));
  const auto resolved = task::resolve_workload(task, task.workloads.front());

  std::vector<std::string> arguments, expected_lines;
  std::string make;
  std::size_t argument = 0;
  const auto add_tensor = [&](const task::TensorSpec& spec, const std::vector<std::int64_t>& shape, const char* side, std::size_t index) {
    std::string sizes;
    for (const auto d : shape) sizes += std::to_string(d) + ",";
    make += fmt::format("  torch::Tensor t{}({{{}}}, at::ScalarType::{});\n", argument, sizes, torch_scalar_type(spec.dtype));
    make += fmt::format("  expected[{}] = t{}.data_ptr();\n", argument, argument);
    arguments.push_back(fmt::format("t{}", argument));
    const auto type = task::to_dlpack(spec.dtype);
    expected_lines.push_back(fmt::format("{} {}: ndim={} dtype={}/{}/{} device=2:0 strides=null offset=0 shape={} data=same", side, index,
                                         shape.size(), type.code, type.bits, type.lanes, sizes));
    ++argument;
  };
  for (std::size_t i = 0; i < definition.inputs.size(); ++i) {
    const auto& spec = definition.inputs[i];
    if (spec.is_scalar()) {
      arguments.push_back("1e-6");
      make += fmt::format("  expected[{}] = nullptr;\n", argument++);
      const auto type = task::to_dlpack(spec.dtype);
      expected_lines.push_back(fmt::format("input {}: ndim=0 dtype={}/{}/{} device=2:0 strides=null offset=0 shape= data=other", i, type.code,
                                           type.bits, type.lanes));
    } else {
      add_tensor(spec, resolved.input_shapes[i], "input", i);
    }
  }
  for (std::size_t i = 0; i < definition.outputs.size(); ++i) add_tensor(definition.outputs[i], resolved.output_shapes[i], "output", i);

  std::string main = "#include <torch/extension.h>\n#include <kernelarc/candidate_abi.h>\n#include <cstdio>\n\n";
  main += "void run(" + signature[1].str() + ");\n";
  main += R"(static void* expected[16];
static const void* scalar_seen[16];  // each scalar's data the call before
static bool first_call = true;
extern "C" int kernelarc_run(const DLTensor* const* inputs, int32_t num_inputs, DLTensor* const* outputs, int32_t num_outputs, void* stream) {
  if (!first_call) {  // later calls say only whether each scalar's device copy was made again
    for (int i = 0; i < num_inputs; ++i)
      if (inputs[i]->ndim == 0) std::printf("scalar %d: %s\n", i, inputs[i]->data == scalar_seen[i] ? "reused" : "made again");
    for (int i = 0; i < num_inputs; ++i) scalar_seen[i] = inputs[i]->data;
    return 0;
  }
  first_call = false;
  for (int i = 0; i < num_inputs; ++i) scalar_seen[i] = inputs[i]->data;
  std::printf("stream %p\n", stream);
  int argument = 0;
  const auto show = [&](const char* side, int index, const DLTensor* t) {
    std::printf("%s %d: ndim=%d dtype=%d/%d/%d device=%d:%d strides=%s offset=%llu shape=", side, index, t->ndim, t->dtype.code, t->dtype.bits,
                t->dtype.lanes, (int)t->device.device_type, t->device.device_id, t->strides ? "set" : "null", (unsigned long long)t->byte_offset);
    for (int d = 0; d < t->ndim; ++d) std::printf("%lld,", (long long)t->shape[d]);
    std::printf(" data=%s\n", t->data == expected[argument++] ? "same" : "other");
  };
  for (int i = 0; i < num_inputs; ++i) show("input", i, inputs[i]);
  for (int i = 0; i < num_outputs; ++i) show("output", i, outputs[i]);
  return 0;
}

int main() {
)";
  main += make;
  const std::string call = fmt::format("run({})", fmt::join(arguments, ", "));
  main += "  " + call + ";\n";
  // The same scalar again: its device copy is reused (a fill per call would be timed); a new value: made again.
  main += "  " + call + ";\n";
  std::vector<std::string> changed = arguments;
  for (auto& a : changed)
    if (a == "1e-6") a = "2e-6";
  main += fmt::format("  run({});\n", fmt::join(changed, ", "));
  // A wrong dtype for the last output: refused before the candidate sees it.
  main += fmt::format("  try {{ t{} = torch::Tensor(t{}.sizes(), at::ScalarType::Double); {}; }} catch (const std::exception& e) {{ std::printf(\"error: %s\\n\", e.what()); }}\n",
                      argument - 1, argument - 1, call);
  main += "  return 0;\n}\n";

  testing::TemporaryDirectory directory;
  write(directory.path() / "binding.cpp", binding);
  write(directory.path() / "main.cpp", main);
  const fs::path abi_include = judge::BuildCache(directory.path() / "cache").abi_include_directory();
  const auto built = common::run_command({"c++", "-std=c++17", "-I" + std::string(KERNELARC_REPORT_TESTS) + "/fake_torch", "-I" + abi_include.string(),
                                          "-DTORCH_EXTENSION_NAME=kernelarc_test", "-o", (directory.path() / "binding").string(),
                                          (directory.path() / "binding.cpp").string(), (directory.path() / "main.cpp").string()},
                                         std::chrono::minutes(2));
  ASSERT_TRUE(built.ok()) << built.output << "\n" << binding << "\n" << main;
  const auto ran = common::run_command({(directory.path() / "binding").string()}, std::chrono::seconds(30));
  ASSERT_TRUE(ran.ok()) << ran.describe() << "\n" << ran.output;
  std::istringstream lines(ran.output);
  std::string line;
  ASSERT_TRUE(std::getline(lines, line));
  EXPECT_EQ(line, "stream 0x5713ea") << "PyTorch's current stream";
  for (const auto& expected : expected_lines) {
    ASSERT_TRUE(std::getline(lines, line)) << "missing: " << expected;
    EXPECT_EQ(line, expected);
  }
  for (const char* expected : {"scalar 3: reused", "scalar 3: made again"}) {
    ASSERT_TRUE(std::getline(lines, line)) << "missing: " << expected;
    EXPECT_EQ(line, expected);
  }
  ASSERT_TRUE(std::getline(lines, line));
  EXPECT_THAT(line, HasSubstr("error: kernelarc: " + definition.outputs.back().name + " must be"));
  EXPECT_FALSE(std::getline(lines, line)) << "the candidate was called with the wrong dtype: " << line;
}

TEST(ReportCliTest, BoardPrintsTheConclusionsAndExportWritesTheFile) {
  testing::TemporaryDirectory directory;
  const fs::path db = directory.path() / "runs.db";
  const auto& task = builtin("softmax");
  const auto& tmpl = testing::first_template(task, "cpu", task::TemplateForm::full);
  testing::RecordedRun run;
  {
    auto store = store::Store::open(db);
    const auto knobs = testing::first_knobs(tmpl);
    run = testing::record_run(store, task, tmpl, "cpu", {{knobs, "first", 2000}, {knobs, "promoted", 1000}, {knobs, "rejected", 0, "TIMEOUT"}});
  }
  const auto kernelarc = [&](std::vector<std::string> arguments) {
    arguments.insert(arguments.begin(), KERNELARC_BINARY);
    return common::run_command(arguments, std::chrono::seconds(60));
  };
  const auto board = kernelarc({"board", "--store", db.string()});
  EXPECT_TRUE(board.ok()) << board.output;
  EXPECT_THAT(board.output, HasSubstr("lesson 2"));
  EXPECT_THAT(board.output, HasSubstr("1.33x faster  lesson 2\n"));
  EXPECT_THAT(board.output, HasSubstr("rejected: INCORRECT_NUMERICAL"));
  EXPECT_LT(board.output.find("lesson 3"), board.output.find("lesson 2")) << "newest first";
  const auto board_json = kernelarc({"board", "--store", db.string(), "--json", "--limit", "1"});
  ASSERT_TRUE(board_json.ok()) << board_json.output;
  const auto entries = json::parse(board_json.output);
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0]["lesson"], "lesson 3");
  EXPECT_EQ(kernelarc({"board", "--store", (directory.path() / "missing.db").string()}).exit_code, 2);
  EXPECT_FALSE(fs::exists(directory.path() / "missing.db")) << "a missing store is reported, not created";
  EXPECT_EQ(kernelarc({"board", "--store", db.string(), "--run", "77"}).exit_code, 2);

  const fs::path out = directory.path() / "out" / "softmax.cpp";
  const auto exported = kernelarc({"export", "--run", std::to_string(run.run_id), "--store", db.string(), "-o", out.string()});
  EXPECT_TRUE(exported.ok()) << exported.output;
  EXPECT_THAT(exported.output, HasSubstr(fmt::format("candidate {} of run {}", run.candidate_ids[1], run.run_id)));
  EXPECT_EQ(judge::read_text_file(out).rfind("// KernelArc export of task softmax", 0), 0u);
  const auto to_stdout = kernelarc({"export", "--run", std::to_string(run.run_id), "--store", db.string(), "--format", "cpp"});
  EXPECT_TRUE(to_stdout.ok()) << to_stdout.output;
  EXPECT_THAT(to_stdout.output, HasSubstr("// KernelArc export of task softmax"));

  const auto missing = kernelarc({"export", "--run", "999", "--store", db.string()});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.output, HasSubstr("the store has no run 999"));
  const auto as_solution = kernelarc({"export", "--run", std::to_string(run.run_id), "--store", db.string(), "--format", "solution-json"});
  EXPECT_EQ(as_solution.exit_code, 2);
  EXPECT_THAT(as_solution.output, HasSubstr("SOL-ExecBench wants a CUDA kernel"));
  const auto as_cu = kernelarc({"export", "--run", std::to_string(run.run_id), "--store", db.string(), "--format", "cu"});
  EXPECT_EQ(as_cu.exit_code, 2);
  EXPECT_THAT(as_cu.output, HasSubstr("its source is cpp, not cu"));
  const auto failed = kernelarc({"export", "--run", std::to_string(run.run_id), "--candidate", std::to_string(run.candidate_ids[2]), "--store", db.string()});
  EXPECT_EQ(failed.exit_code, 2);
  EXPECT_THAT(failed.output, HasSubstr("did not pass: TIMEOUT"));
}

}  // namespace
}  // namespace kernelarc::report
