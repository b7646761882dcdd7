// Exported CUDA sources build with nvcc into the candidate ABI (no GPU needed): every built-in CUDA template, the
// kernel-only ones with their generated host launcher, and the kernel.cu of a solution.json.
#include <dlfcn.h>
#include <algorithm>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include <nlohmann/json.hpp>

#include "common/parallel.h"
#include "judge/cuda/cuda_compiler.h"
#include "report/export.h"
#include "report/kernel_launcher.h"
#include "report_store.h"
#include "task/task_library.h"

namespace kernelarc::report {
namespace {

namespace fs = std::filesystem;

void expect_loads_with_entry_point(const judge::BuildResult& built, const std::string& what) {
  ASSERT_TRUE(built.ok) << what << ":\n" << built.diagnostics;
  void* library = dlopen(built.library.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(library, nullptr) << what << ": " << dlerror();
  EXPECT_NE(dlsym(library, "kernelarc_run"), nullptr) << what;
  dlclose(library);
}

void expect_builds_with_entry_point(const judge::cuda::CudaCompiler& compiler, const std::string& source, const std::string& what) {
  expect_loads_with_entry_point(compiler.build_library({source, {}, {}}), what);
}

TEST(ExportCudaBuildTest, EveryBuiltInCudaTemplateExportsToASourceThatBuilds) {
  testing::TemporaryDirectory directory;
  auto store = store::Store::open(directory.path() / "runs.db");
  judge::cuda::CudaCompilerOptions options;
  options.cache_directory = directory.path() / "cache";
  const judge::cuda::CudaCompiler compiler(options);
  int kernel_only = 0;
  std::vector<std::pair<std::string, std::string>> sources;  // what, exported source
  const auto directories = task::task_directories(KERNELARC_TASKS);
  ASSERT_GE(directories.size(), 4u);
  for (const auto& directory : directories) {
    const std::string name = directory.filename().string();
    const auto task = task::load_task(directory);
    for (const auto& tmpl : task.definition.templates) {
      if (tmpl.device != "cuda") continue;
      // A full source is exported as it is; one suffices to show the inlined ABI header builds.
      if (tmpl.form == task::TemplateForm::full && std::string(name) != "softmax") continue;
      const auto run = testing::record_run(store, task, tmpl, "cuda:0", {{testing::moved_knobs(tmpl), "first", 1000}});
      ExportRequest request;
      request.run_id = run.run_id;
      const auto exported = export_candidate(store, request);
      EXPECT_EQ(exported.kernel_form, tmpl.form == task::TemplateForm::kernel) << name << "/" << tmpl.name;
      sources.emplace_back(std::string(name) + "/" + tmpl.name, exported.text);
      if (!exported.kernel_form) continue;
      ++kernel_only;
      if (std::string(name) != "add_rmsnorm") continue;
      // The solution's kernel.cu includes the ABI header it ships; the judge's build has the same headers.
      request.format = ExportFormat::solution_json;
      const auto solution = nlohmann::json::parse(export_candidate(store, request).text);
      for (const auto& file : solution["sources"])
        if (file["path"] == "kernel.cu") sources.emplace_back("solution kernel.cu", file["content"].get<std::string>());
    }
  }
  // Built over every core (the test runs alone), loaded here.
  std::vector<judge::BuildResult> built(sources.size());
  common::for_each_chunk(static_cast<std::int64_t>(sources.size()), 1, [&](std::int64_t index, std::int64_t, std::int64_t) {
    built[static_cast<std::size_t>(index)] = compiler.build_library({sources[static_cast<std::size_t>(index)].second, {}, {}});
  });
  for (std::size_t i = 0; i < sources.size(); ++i) expect_loads_with_entry_point(built[i], sources[i].first);
  EXPECT_GE(kernel_only, static_cast<int>(directories.size()));  // every task has a kernel-only template
}

// A GEMM solution exported for the B200 names sm_100a in its CUDA flags, and its kernel.cu builds there: the tma_cuda
// template's mma.sync tile (no wgmma on a B200), its TMA loads and its generated launcher. Run where a B200 exists.
TEST(ExportCudaBuildTest, AGemmSolutionExportedForTheB200BuildsForSm100a) {
  testing::TemporaryDirectory directory;
  auto store = store::Store::open(directory.path() / "runs.db");
  const auto task = task::load_task(fs::path(KERNELARC_TASKS) / "gemm_bf16");
  const auto tma = std::find_if(task.definition.templates.begin(), task.definition.templates.end(),
                                [](const auto& t) { return t.name == "tma_cuda"; });
  ASSERT_NE(tma, task.definition.templates.end());
  const auto run = testing::record_run(store, task, *tma, "cuda:0", {{testing::moved_knobs(*tma), "first", 1000}});
  ExportRequest request;
  request.run_id = run.run_id;
  request.format = ExportFormat::solution_json;
  request.target_hardware = {"B200"};
  const auto solution = nlohmann::json::parse(export_candidate(store, request).text);
  EXPECT_THAT(solution["spec"]["compile_options"]["cuda_cflags"].dump(), ::testing::HasSubstr("-gencode=arch=compute_100a,code=sm_100a"));
  std::string kernel;
  std::set<std::string> shipped;
  for (const auto& file : solution["sources"]) {
    shipped.insert(file["path"].get<std::string>());
    if (file["path"] == "kernel.cu") kernel = file["content"].get<std::string>();
  }
  ASSERT_FALSE(kernel.empty());
  EXPECT_TRUE(shipped.count("kernelarc/gemm_sm90.cuh")) << "the kernel includes the GEMM header: solution.json ships it beside it";
  judge::cuda::CudaCompilerOptions options;
  options.cache_directory = directory.path() / "cache";
  options.architecture = "sm_100a";
  expect_builds_with_entry_point(judge::cuda::CudaCompiler(options), kernel, "gemm_bf16/tma_cuda for sm_100a");
}

// Every axis kind, dynamic shared memory, "let" bindings and num_sms in one generated launcher.
TEST(ExportCudaBuildTest, ALauncherWithConstAndExpressionAxesAndSharedMemoryBuilds) {
  task::Definition definition;
  definition.name = "scale";
  definition.axes = {{"rows", task::AxisKind::variable, 0, std::nullopt, ""},
                     {"V", task::AxisKind::constant, 4, std::nullopt, ""},
                     {"total", task::AxisKind::expression, 0, task::Expression::parse("rows * cols"), ""},
                     {"cols", task::AxisKind::variable, 0, std::nullopt, ""}};
  definition.inputs = {{"x", std::vector<std::string>{"rows", "cols"}, task::DType::float32, ""}};
  definition.outputs = {{"y", std::vector<std::string>{"rows", "cols"}, task::DType::float32, ""}};
  task::LaunchGeometry launch;
  launch.let = {{"per_block", task::Expression::parse("BLOCK * V")},
                {"blocks", task::Expression::parse("min(ceil_div(total, per_block), num_sms * 8)")}};
  launch.grid = {task::Expression::parse("blocks"), task::Expression::parse("1")};
  launch.block = {task::Expression::parse("BLOCK")};
  launch.shared_bytes = task::Expression::parse("BLOCK * 4 * (V // 2) + max(total % 2, 0)");
  const std::string kernel = R"(
extern "C" __global__ void __launch_bounds__(BLOCK) scale(const float* x, float* y, long long rows, long long cols) {
  extern __shared__ float staging[];
  const long long i = (long long)blockIdx.x * BLOCK + threadIdx.x;
  staging[threadIdx.x] = i < rows * cols ? x[i] : 0.0f;
  __syncthreads();
  if (i < rows * cols) y[i] = 2.0f * staging[threadIdx.x];
}
)";
  const std::string source = "#define BLOCK 128\n" + kernel + "\n#include <kernelarc/candidate_abi.h>\n" +
                             kernel_launcher_cpp(definition, launch, launched_kernel_name(kernel, launch), {"BLOCK"});
  testing::TemporaryDirectory directory;
  judge::cuda::CudaCompilerOptions options;
  options.cache_directory = directory.path() / "cache";
  expect_builds_with_entry_point(judge::cuda::CudaCompiler(options), source, "synthetic launcher");
}

}  // namespace
}  // namespace kernelarc::report
