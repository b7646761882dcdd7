// Exports from a store written through the Store API (real template sources, nothing judged): what the source and the
// solution.json carry, which candidate is chosen, and every refusal.
#include "report/export.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <cmath>
#include <regex>

#include "judge/abi_header.h"
#include "judge/build_cache.h"
#include "report/expression_printer.h"
#include "report/kernel_launcher.h"
#include "report/torch_binding.h"
#include "report_store.h"

namespace kernelarc::report {
namespace {

namespace fs = std::filesystem;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;
using nlohmann::json;
using testing::RecordedCandidate;

const task::Task& builtin(const std::string& name) {
  static std::map<std::string, task::Task> tasks;
  auto found = tasks.find(name);
  if (found == tasks.end()) found = tasks.emplace(name, task::load_task(fs::path(KERNELARC_TASKS) / name)).first;
  return found->second;
}

std::string export_error(const store::Store& store, const ExportRequest& request) {
  try {
    export_candidate(store, request);
  } catch (const ExportError& error) {
    return error.what();
  }
  ADD_FAILURE() << "expected an ExportError";
  return {};
}

class ExportTest : public ::testing::Test {
 protected:
  testing::TemporaryDirectory directory_;
  store::Store store_ = store::Store::open(directory_.path() / "runs.db");
};

TEST_F(ExportTest, CpuSourceCarriesTheHeaderTheKnobDefinesAndTheBestCandidate) {
  const auto& task = builtin("softmax");
  const auto& tmpl = testing::first_template(task, "cpu", task::TemplateForm::full);
  const auto moved = testing::moved_knobs(tmpl);
  ASSERT_NE(moved, testing::first_knobs(tmpl)) << "the test needs a knob with a second allowed value";
  const auto run = testing::record_run(store_, task, tmpl, "cpu",
                                       {{testing::first_knobs(tmpl), "first", 2000}, {moved, "promoted", 1000}, {moved, "backup", 1500}});
  ExportRequest request;
  request.run_id = run.run_id;
  request.exported_at = "2030-01-02T03:04:05Z";
  const auto exported = export_candidate(store_, request);
  EXPECT_EQ(exported.candidate_id, run.candidate_ids[1]) << "the promoted candidate is the run's best, not the last judged";
  EXPECT_EQ(exported.extension, ".cpp");
  EXPECT_FALSE(exported.kernel_form);
  EXPECT_EQ(exported.task, "softmax");
  EXPECT_EQ(exported.device, "cpu");
  const std::string& text = exported.text;
  EXPECT_THAT(text, HasSubstr(fmt::format("task softmax, run {} (run on cpu), candidate {}", run.run_id, run.candidate_ids[1])));
  EXPECT_THAT(text, HasSubstr("exported 2030-01-02T03:04:05Z"));
  EXPECT_THAT(text, HasSubstr("Template " + tmpl.name + " (full form)"));
  EXPECT_THAT(text, ContainsRegex("Measured: [0-9.]+ us, the geometric mean"));
  for (const auto& [name, value] : moved) EXPECT_THAT(text, HasSubstr(fmt::format("\n#define {} {}\n", name, value)));
  // The defines come before the source, whose own #ifndef defaults they override.
  const auto first_define = text.find("#define " + moved.begin()->first);
  const auto source = judge::read_text_file(tmpl.source);
  const std::string body = source.substr(source.find("KERNELARC_CANDIDATE"));
  ASSERT_NE(text.find(body), std::string::npos) << "the candidate's source is in the file";
  EXPECT_LT(first_define, text.find(body));
  // Self-contained: the ABI header is inlined where the source included it.
  EXPECT_THAT(text, HasSubstr("inlined by kernelarc export"));
  EXPECT_THAT(text, HasSubstr("#define KERNELARC_CANDIDATE"));
  EXPECT_THAT(text, Not(ContainsRegex("#include <kernelarc/candidate_abi.h>")));
  EXPECT_TRUE(exported.notes.empty()) << exported.notes.front();
}

TEST_F(ExportTest, AChosenCandidateAndAStoppedRunAreExported) {
  const auto& task = builtin("softmax");
  const auto& tmpl = testing::first_template(task, "cpu", task::TemplateForm::full);
  const auto run = testing::record_run(store_, task, tmpl, "cpu",
                                       {{testing::first_knobs(tmpl), "first", 2000}, {testing::moved_knobs(tmpl), "promoted", 1000},
                                        {testing::first_knobs(tmpl), "backup", 2100}},
                                       /*finished=*/false);
  ExportRequest request;
  request.run_id = run.run_id;
  EXPECT_EQ(export_candidate(store_, request).candidate_id, run.candidate_ids[1]) << "a stopped run: its last incumbent";
  request.candidate_id = run.candidate_ids[2];
  EXPECT_EQ(export_candidate(store_, request).candidate_id, run.candidate_ids[2]);
}

TEST_F(ExportTest, ACandidateMeasuredTwiceCountsAtItsSlowerMeasurementAsTheControllerDoes) {
  const auto& task = builtin("softmax");
  const auto& tmpl = testing::first_template(task, "cpu", task::TemplateForm::full);
  RecordedCandidate promoted{testing::moved_knobs(tmpl), "promoted", 1000};
  promoted.again_ns = 1100;
  const auto run = testing::record_run(store_, task, tmpl, "cpu", {{testing::first_knobs(tmpl), "first", 2000}, promoted});
  ExportRequest request;
  request.run_id = run.run_id;
  const auto exported = export_candidate(store_, request);
  double log_sum = 0, factor = 1;
  int visible = 0;
  for (const auto& workload : task.workloads) {
    if (!workload.held_out) log_sum += std::log(1100 * factor), ++visible;
    factor *= 1.5;
  }
  EXPECT_NEAR(exported.time_ns, std::exp(log_sum / visible), 1e-6 * exported.time_ns);
  EXPECT_THAT(exported.text, HasSubstr("(the slower of 2 measurements)"));
  EXPECT_THAT(exported.text, HasSubstr("1.100 us")) << "the first workload's row is from the slower measurement";
}

TEST_F(ExportTest, KernelOnlyCudaCandidateGetsAHostLauncherFromTheTemplateGeometry) {
  const auto& task = builtin("matmul");
  const auto& tmpl = testing::first_template(task, "cuda", task::TemplateForm::kernel);
  const auto run = testing::record_run(store_, task, tmpl, "cuda:0", {{testing::moved_knobs(tmpl), "first", 5000}});
  ExportRequest request;
  request.run_id = run.run_id;
  const auto exported = export_candidate(store_, request);
  EXPECT_EQ(exported.extension, ".cu");
  EXPECT_TRUE(exported.kernel_form);
  const std::string& text = exported.text;
  EXPECT_THAT(text, HasSubstr("kernel-only"));
  EXPECT_THAT(text, HasSubstr("KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream)"));
  EXPECT_THAT(text, HasSubstr("if (num_inputs != 2 || num_outputs != 1) return 1;"));
  // Var axes read from the first tensor that names them: a is [M, K], b is [K, N].
  EXPECT_THAT(text, HasSubstr("const long long kernelarc_axis_M = inputs[0]->shape[0];"));
  EXPECT_THAT(text, HasSubstr("const long long kernelarc_axis_K = inputs[0]->shape[1];"));
  EXPECT_THAT(text, HasSubstr("const long long kernelarc_axis_N = inputs[1]->shape[1];"));
  EXPECT_THAT(text, HasSubstr("kernelarc_expr_ceil_div(((double)(kernelarc_axis_N)), ((double)(TILE)))"));
  EXPECT_THAT(text, HasSubstr("long long kernelarc_axes[] = {kernelarc_axis_M, kernelarc_axis_N, kernelarc_axis_K};"));
  EXPECT_THAT(text, HasSubstr("(const void*)matmul_tiled, dim3("));
  EXPECT_THAT(text, HasSubstr("(cudaStream_t)stream"));
  // The ABI header comes before the launcher that uses it; the kernel source comes first.
  EXPECT_LT(text.find("matmul_tiled("), text.find("#define KERNELARC_CANDIDATE"));
  EXPECT_LT(text.find("#define KERNELARC_CANDIDATE"), text.find("KERNELARC_CANDIDATE(inputs"));
}

// A template that includes the shared device header is exported with it inlined: the .cu builds without KernelArc.
TEST_F(ExportTest, TheSharedDeviceHeaderIsInlined) {
  const auto& task = builtin("post_rmsnorm");
  const auto& tmpl = testing::first_template(task, "cuda", task::TemplateForm::kernel);
  ASSERT_THAT(judge::read_text_file(tmpl.source), HasSubstr("#include <kernelarc/device.cuh>"));
  const auto run = testing::record_run(store_, task, tmpl, "cuda:0", {{testing::first_knobs(tmpl), "first", 3000}});
  ExportRequest request;
  request.run_id = run.run_id;
  const auto exported = export_candidate(store_, request);
  EXPECT_THAT(exported.text, HasSubstr("/* ---- include/kernelarc/device.cuh (inlined by kernelarc export) ---- */"));
  EXPECT_THAT(exported.text, HasSubstr("namespace kernelarc::device {"));
  EXPECT_THAT(exported.text, Not(ContainsRegex("#include <kernelarc/device.cuh>")));
  EXPECT_LT(exported.text.find("namespace kernelarc::device {"), exported.text.find("\nusing kernelarc::device::Pack;"));
  EXPECT_THAT(exported.text, HasSubstr("kernelarc_let_fit_threads")) << "the launch's let bindings";
}

TEST_F(ExportTest, SolutionJsonHasEveryFieldAndBindsTheCandidate) {
  const auto& task = builtin("add_rmsnorm");
  const auto& tmpl = testing::first_template(task, "cuda", task::TemplateForm::kernel);
  const auto run = testing::record_run(store_, task, tmpl, "cuda:0", {{testing::first_knobs(tmpl), "first", 3000}});
  ExportRequest request;
  request.run_id = run.run_id;
  request.format = ExportFormat::solution_json;
  const auto exported = export_candidate(store_, request);
  EXPECT_EQ(exported.extension, ".json");
  const json solution = json::parse(exported.text);
  for (const char* field : {"name", "definition", "author", "description", "spec", "sources"}) EXPECT_TRUE(solution.contains(field)) << field;
  EXPECT_EQ(solution["definition"], "add_rmsnorm");
  EXPECT_EQ(solution["author"], "kernelarc");
  EXPECT_TRUE(std::regex_match(solution["name"].get<std::string>(), std::regex("[A-Za-z0-9_]+"))) << solution["name"];
  EXPECT_THAT(solution["description"].get<std::string>(), HasSubstr(fmt::format("run {}", run.run_id)));
  EXPECT_THAT(solution["description"].get<std::string>(), HasSubstr(fmt::format("candidate {}", run.candidate_ids[0])));
  EXPECT_THAT(solution["description"].get<std::string>(), ContainsRegex("[0-9.]+ us geometric mean"));
  const json& spec = solution["spec"];
  EXPECT_EQ(spec["languages"], json::array({"cuda_cpp"}));
  EXPECT_EQ(spec["target_hardware"], json::array({"LOCAL"}));
  EXPECT_EQ(spec["entry_point"], "binding.cpp::run");
  EXPECT_EQ(spec["destination_passing_style"], true);
  EXPECT_EQ(spec["binding"], "torch");
  EXPECT_EQ(spec["dependencies"], json::array());
  for (const char* flags : {"cflags", "cuda_cflags", "ld_flags"}) EXPECT_TRUE(spec["compile_options"][flags].is_array()) << flags;
  std::map<std::string, std::string> sources;
  for (const auto& file : solution["sources"]) sources[file.at("path").get<std::string>()] = file.at("content").get<std::string>();
  for (const char* path : {"kernel.cu", "binding.cpp", "kernelarc/candidate_abi.h", "kernelarc/device.cuh", "dlpack/dlpack.h"}) {
    ASSERT_TRUE(sources.count(path)) << path;
    EXPECT_FALSE(sources[path].empty()) << path;
  }
  // The entry file exists, the kernel has its launcher and includes the ABI header shipped beside it.
  EXPECT_THAT(sources["kernel.cu"], HasSubstr("#include <kernelarc/candidate_abi.h>"));
  EXPECT_THAT(sources["kernel.cu"], HasSubstr("#include <kernelarc/device.cuh>")) << "the template includes it; solution.json carries it";
  EXPECT_EQ(sources["kernelarc/device.cuh"], judge::device_header());
  EXPECT_FALSE(sources.count("kernelarc/gemm_sm90.cuh")) << "a shared header the kernel does not include is not shipped";
  EXPECT_THAT(sources["kernel.cu"], HasSubstr("(const void*)add_rmsnorm_rows, dim3("));
  EXPECT_THAT(sources["kernel.cu"], HasSubstr(judge::read_text_file(tmpl.source).substr(0, 200)));
  EXPECT_THAT(sources["binding.cpp"], HasSubstr("void run(torch::Tensor x, torch::Tensor residual, torch::Tensor weight, double eps, "
                                                "torch::Tensor out, torch::Tensor new_residual)"));

  request.target_hardware = {"B200", "LOCAL"};
  const auto for_b200 = export_candidate(store_, request);
  EXPECT_EQ(json::parse(for_b200.text)["spec"]["target_hardware"], json::array({"B200", "LOCAL"}));
  ASSERT_EQ(for_b200.notes.size(), 2u);
  EXPECT_THAT(for_b200.notes[0], HasSubstr("not on a B200"));
  EXPECT_THAT(for_b200.notes[1], HasSubstr("recorded no GPU architecture"));
}

// The benchmark builds for its GPU's plain architecture (sm_90) unless the solution names one, and a wgmma kernel
// needs sm_90a: the export names the architecture the judge built for, and sm_100a for a B200.
TEST_F(ExportTest, SolutionJsonNamesTheArchitectureTheCandidateWasJudgedOn) {
  const auto& task = builtin("gemm_bf16");
  const auto& tmpl = testing::first_template(task, "cuda", task::TemplateForm::kernel);
  testing::RecordedCandidate nvrtc{testing::first_knobs(tmpl), "first", 3000};
  nvrtc.build_command = {"--gpu-architecture=sm_90a", "--std=c++17", "-lineinfo"};
  const auto run = testing::record_run(store_, task, tmpl, "cuda:0", {nvrtc});
  ExportRequest request;
  request.run_id = run.run_id;
  request.format = ExportFormat::solution_json;
  const auto flags_for = [&](std::vector<std::string> targets) {
    request.target_hardware = std::move(targets);
    const auto exported = export_candidate(store_, request);
    return json::parse(exported.text)["spec"]["compile_options"]["cuda_cflags"];
  };
  const json local = flags_for({"LOCAL"});
  ASSERT_GE(local.size(), 2u);
  EXPECT_EQ(local[0], "-gencode=arch=compute_90a,code=sm_90a");
  EXPECT_EQ(local[1], "-O3") << "the judged flags follow";
  const json both = flags_for({"B200", "LOCAL"});
  EXPECT_EQ(both[0], "-gencode=arch=compute_100a,code=sm_100a");
  EXPECT_EQ(both[1], "-gencode=arch=compute_90a,code=sm_90a");
  EXPECT_EQ(flags_for({"B200"})[1], "-O3") << "B200 alone: sm_100a only";

  testing::RecordedCandidate nvcc = nvrtc;
  nvcc.build_command = {"nvcc", "-O3", "-gencode=arch=compute_100a,code=sm_100a", "-shared"};
  request.run_id = testing::record_run(store_, task, tmpl, "cuda:0", {nvcc}).run_id;
  EXPECT_EQ(flags_for({"LOCAL"})[0], "-gencode=arch=compute_100a,code=sm_100a");

  request.run_id = testing::record_run(store_, task, tmpl, "cuda:0", {{testing::first_knobs(tmpl), "first", 3000}}).run_id;
  EXPECT_EQ(flags_for({"LOCAL"})[0], "-O3") << "no recorded architecture: none named, the benchmark picks";
}

TEST_F(ExportTest, FullFormCudaCandidateIsExportedAsItIs) {
  const auto& task = builtin("softmax");
  const auto& tmpl = testing::first_template(task, "cuda", task::TemplateForm::full);
  const auto run = testing::record_run(store_, task, tmpl, "cuda:0", {{{}, "first", 3000}});
  ExportRequest request;
  request.run_id = run.run_id;
  const auto exported = export_candidate(store_, request);
  EXPECT_EQ(exported.extension, ".cu");
  EXPECT_FALSE(exported.kernel_form);
  EXPECT_THAT(exported.text, Not(HasSubstr("cudaLaunchKernel")));
  EXPECT_THAT(exported.text, HasSubstr("inlined by kernelarc export"));
}

TEST_F(ExportTest, RefusesWhatCannotBeExported) {
  const auto& task = builtin("softmax");
  const auto& cpu = testing::first_template(task, "cpu", task::TemplateForm::full);
  ExportRequest request;
  request.run_id = 42;
  EXPECT_THAT(export_error(store_, request), HasSubstr("the store has no run 42"));

  const auto failed = testing::record_run(store_, task, cpu, "cpu", {{testing::first_knobs(cpu), "rejected", 0, "INCORRECT_NUMERICAL"}});
  request.run_id = failed.run_id;
  EXPECT_THAT(export_error(store_, request), HasSubstr("has no passing best candidate"));
  request.candidate_id = failed.candidate_ids[0];
  EXPECT_THAT(export_error(store_, request), HasSubstr("did not pass: INCORRECT_NUMERICAL"));

  const auto passed = testing::record_run(store_, task, cpu, "cpu", {{testing::first_knobs(cpu), "first", 1000}});
  request.run_id = passed.run_id;
  EXPECT_THAT(export_error(store_, request), HasSubstr(fmt::format("candidate {} is not in run {}", failed.candidate_ids[0], passed.run_id)));
  request.candidate_id.reset();
  request.format = ExportFormat::solution_json;
  EXPECT_THAT(export_error(store_, request), HasSubstr("judged on the CPU: SOL-ExecBench wants a CUDA kernel"));

  const auto& kernel = testing::first_template(task, "cuda", task::TemplateForm::kernel);
  const auto gpu = testing::record_run(store_, task, kernel, "cuda:0", {{testing::first_knobs(kernel), "first", 1000}});
  request.run_id = gpu.run_id;
  request.target_hardware = {"H100"};
  EXPECT_THAT(export_error(store_, request), HasSubstr("unknown target hardware \"H100\""));
  request.target_hardware = {"LOCAL"};
  request.task_directory = directory_.path() / "no-such-task";
  EXPECT_THAT(export_error(store_, request), HasSubstr("cannot be loaded"));
  request.task_directory = fs::path(KERNELARC_TASKS) / "matmul";
  EXPECT_THAT(export_error(store_, request), HasSubstr("holds task matmul, but run"));
}

TEST(ExpressionPrinterTest, PrintsDoubleArithmeticWithPythonSemantics) {
  const CppNames names = {{"N", "n"}, {"TILE", "TILE"}};
  const auto print = [&](const char* text) { return expression_to_cpp(task::Expression::parse(text), names); };
  EXPECT_EQ(print("N"), "((double)(n))");
  EXPECT_EQ(print("2"), "2.0");
  EXPECT_EQ(print("N / 2"), "(((double)(n)) / 2.0)") << "a true division, never C++'s integer one";
  EXPECT_EQ(print("N // TILE"), "kernelarc_expr_floor_div(((double)(n)), ((double)(TILE)))");
  EXPECT_EQ(print("N % 3"), "kernelarc_expr_mod(((double)(n)), 3.0)");
  EXPECT_EQ(print("ceil_div(N, TILE)"), "kernelarc_expr_ceil_div(((double)(n)), ((double)(TILE)))");
  EXPECT_EQ(print("min(N, 4, TILE)"), "fmin(((double)(n)), fmin(4.0, ((double)(TILE))))");
  EXPECT_EQ(print("-2**2"), "(-(pow(2.0, 2.0)))");
  EXPECT_EQ(print("N >= 1"), "(((((double)(n))) >= (1.0)) ? 1.0 : 0.0)") << "a comparison is 1.0 or 0.0";
  EXPECT_THAT(print("N >= 1 and not TILE"), ::testing::AllOf(HasSubstr(" && "), HasSubstr("== 0.0")));
  EXPECT_EQ(print("1.5e3 + True"), "(1500.0 + 1.0)");
  EXPECT_THROW(print("M * 2"), std::invalid_argument);
}

TEST(KernelLauncherTest, FindsTheKernelToLaunch) {
  task::LaunchGeometry launch;
  EXPECT_EQ(launched_kernel_name("extern \"C\" __global__ void __launch_bounds__(256) scale(float* y) {}", launch), "scale");
  EXPECT_EQ(launched_kernel_name("__device__ int f();\nextern \"C\" __global__\nvoid k2(float* y, long long n) {}", launch), "k2");
  EXPECT_THROW(launched_kernel_name("__device__ void helper() {}", launch), std::runtime_error);
  EXPECT_THROW(launched_kernel_name("extern \"C\" __global__ void a() {}\nextern \"C\" __global__ void b() {}", launch), std::runtime_error);
  launch.kernel = "b";
  EXPECT_EQ(launched_kernel_name("extern \"C\" __global__ void a() {}\nextern \"C\" __global__ void b() {}", launch), "b");
}

// A definition with every kind of axis and a geometry with dynamic shared memory (no built-in template has both).
task::Definition launcher_definition() {
  task::Definition definition;
  definition.name = "scale";
  definition.axes = {{"rows", task::AxisKind::variable, 0, std::nullopt, ""},
                     {"V", task::AxisKind::constant, 4, std::nullopt, ""},
                     {"total", task::AxisKind::expression, 0, task::Expression::parse("rows * cols"), ""},
                     {"cols", task::AxisKind::variable, 0, std::nullopt, ""}};
  definition.inputs = {{"x", std::vector<std::string>{"rows", "cols"}, task::DType::float32, ""}};
  definition.outputs = {{"y", std::vector<std::string>{"rows", "cols"}, task::DType::float32, ""}};
  return definition;
}

task::LaunchGeometry launcher_geometry() {
  task::LaunchGeometry launch;
  launch.grid = {task::Expression::parse("ceil_div(total, BLOCK * V)"), task::Expression::parse("1")};
  launch.block = {task::Expression::parse("BLOCK")};
  launch.shared_bytes = task::Expression::parse("BLOCK * 4 * (V // 2)");
  return launch;
}

TEST(KernelLauncherTest, EveryAxisKindAndDynamicSharedMemory) {
  const std::string launcher = kernel_launcher_cpp(launcher_definition(), launcher_geometry(), "scale", {"BLOCK"});
  EXPECT_THAT(launcher, HasSubstr("const long long kernelarc_axis_rows = inputs[0]->shape[0];"));
  EXPECT_THAT(launcher, HasSubstr("const long long kernelarc_axis_cols = inputs[0]->shape[1];"));
  EXPECT_THAT(launcher, HasSubstr("const double kernelarc_axis_V = 4;"));
  EXPECT_THAT(launcher, HasSubstr("const double kernelarc_axis_total = (((double)(kernelarc_axis_rows)) * ((double)(kernelarc_axis_cols)));"));
  EXPECT_THAT(launcher, HasSubstr("&kernelarc_grid[1])) return 2;"));
  EXPECT_THAT(launcher, HasSubstr("&kernelarc_shared_bytes)) return 4;  /* BLOCK * 4 * (V // 2) */"));
  EXPECT_THAT(launcher, HasSubstr("long long kernelarc_axes[] = {kernelarc_axis_rows, kernelarc_axis_cols};"))
      << "the kernel gets the var axes only, in the definition's order";
  EXPECT_THAT(launcher, HasSubstr("cudaFuncAttributeMaxDynamicSharedMemorySize"));

  auto hidden = launcher_definition();
  hidden.axes.push_back({"unused", task::AxisKind::variable, 0, std::nullopt, ""});
  EXPECT_THROW(kernel_launcher_cpp(hidden, launcher_geometry(), "scale", {"BLOCK"}), std::runtime_error);
  EXPECT_THROW(kernel_launcher_cpp(launcher_definition(), launcher_geometry(), "scale", {}), std::invalid_argument) << "BLOCK unknown";
}

// "let" bindings become locals in order; num_sms is read from the device the launch goes to, 132 where CUDA cannot say.
TEST(KernelLauncherTest, LetBindingsAndNumSms) {
  auto launch = launcher_geometry();
  launch.let = {{"per_block", task::Expression::parse("BLOCK * V")}, {"waves", task::Expression::parse("min(ceil_div(total, per_block), num_sms * 2)")}};
  launch.grid = {task::Expression::parse("waves")};
  const std::string launcher = kernel_launcher_cpp(launcher_definition(), launch, "scale", {"BLOCK"});
  EXPECT_THAT(launcher, HasSubstr("cudaDeviceGetAttribute(&kernelarc_sms, cudaDevAttrMultiProcessorCount, kernelarc_device)"));
  EXPECT_THAT(launcher, HasSubstr("kernelarc_sms > 0 ? (double)kernelarc_sms : 132.0;"));
  EXPECT_THAT(launcher, HasSubstr("const double kernelarc_let_per_block = (((double)(BLOCK)) * ((double)(kernelarc_axis_V)));"));
  EXPECT_THAT(launcher, HasSubstr("kernelarc_num_sms"));
  EXPECT_LT(launcher.find("kernelarc_let_per_block ="), launcher.find("kernelarc_let_waves ="));
  EXPECT_LT(launcher.find("const double kernelarc_num_sms"), launcher.find("kernelarc_let_waves ="));
  EXPECT_THAT(launcher, HasSubstr("kernelarc_expr_dimension(((double)(kernelarc_let_waves)), 1, 2147483647LL, &kernelarc_grid[0])"));
  // Without num_sms the launcher asks the device nothing.
  EXPECT_THAT(kernel_launcher_cpp(launcher_definition(), launcher_geometry(), "scale", {"BLOCK"}),
              ::testing::Not(HasSubstr("cudaDeviceGetAttribute")));
}

TEST(TorchBindingTest, OneDescriptionPerTensorInTheDefinitionOrderWithItsDtype) {
  const auto& definition = builtin("add_rmsnorm").definition;
  const std::string binding = torch_binding_cpp(definition, "// preamble\n");
  EXPECT_EQ(binding.rfind("// preamble\n#include <torch/extension.h>", 0), 0u);
  EXPECT_THAT(binding, HasSubstr("#include <ATen/cuda/CUDAContext.h>"));
  EXPECT_LT(binding.find("#include <torch/extension.h>"), binding.find("#include <kernelarc/candidate_abi.h>"));
  // Every describe() call in order: inputs then outputs, each with its torch dtype, rank and DLPack type.
  std::vector<std::string> calls;
  const std::regex describe_call(
      R"re(describe\((\w+), "(\w+)", at::ScalarType::(\w+), (\d), DLDataType\{(\d+), (\d+), (\d+)\}, described_(\w+)\[(\d)\]\))re");
  for (auto it = std::sregex_iterator(binding.begin(), binding.end(), describe_call); it != std::sregex_iterator(); ++it)
    calls.push_back(fmt::format("{} {} {} {} {}/{}/{} {}[{}]", (*it)[1].str(), (*it)[2].str(), (*it)[3].str(), (*it)[4].str(), (*it)[5].str(),
                                (*it)[6].str(), (*it)[7].str(), (*it)[8].str(), (*it)[9].str()));
  EXPECT_THAT(calls, ::testing::ElementsAre("x_contiguous x BFloat16 2 4/16/1 inputs[0]", "residual_contiguous residual BFloat16 2 4/16/1 inputs[1]",
                                            "weight_contiguous weight BFloat16 1 4/16/1 inputs[2]", "eps_tensor eps Float 0 2/32/1 inputs[3]",
                                            "out out BFloat16 2 4/16/1 outputs[0]", "new_residual new_residual BFloat16 2 4/16/1 outputs[1]"));
  EXPECT_THAT(binding, HasSubstr("static thread_local ScalarOnDevice<double> eps_on_device;"));
  EXPECT_THAT(binding, HasSubstr("const torch::Tensor& eps_tensor = eps_on_device.get(eps, at::ScalarType::Float, x.device());"));
  EXPECT_THAT(binding, HasSubstr("kernelarc_run(input_pointers, 4, output_pointers, 2, static_cast<void*>(at::cuda::getCurrentCUDAStream().stream()))"));
  EXPECT_THAT(binding, HasSubstr("PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)"));
  EXPECT_THAT(binding, HasSubstr("m.def(\"run\", &run,"));

  task::Definition odd;
  odd.name = "odd";
  odd.inputs = {{"new", std::vector<std::string>{"n"}, task::DType::int32, ""}, {"flag", std::nullopt, task::DType::boolean, ""}};
  odd.outputs = {{"y", std::vector<std::string>{}, task::DType::float8_e4m3fn, ""}};
  const std::string odd_binding = torch_binding_cpp(odd, "");
  EXPECT_THAT(odd_binding, HasSubstr("void run(torch::Tensor new_, bool flag, torch::Tensor y)"));
  EXPECT_THAT(odd_binding, HasSubstr("describe(y, \"y\", at::ScalarType::Float8_e4m3fn, 0, DLDataType{10, 8, 1}, described_outputs[0])"));
  odd.outputs[0].dtype = task::DType::float4_e2m1;
  EXPECT_THROW(torch_binding_cpp(odd, ""), std::invalid_argument);
}

}  // namespace
}  // namespace kernelarc::report
