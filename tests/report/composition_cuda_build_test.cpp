// Composed CUDA candidates without a GPU: two configurations of every kernel-only template composed into one module
// that NVRTC builds with each part's kernel in it, a full CUDA source composed and built by nvcc, and the export of a
// composed kernel-only candidate, whose generated launcher picks the part by the judge's rule, built by nvcc.
#include <dlfcn.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/parallel.h"
#include "engine/composition.h"
#include "judge/build_cache.h"
#include "judge/cuda/cuda_compiler.h"
#include "report/export.h"
#include "report_store.h"
#include "task/task_library.h"

namespace kernelarc::report {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

struct Composed {
  std::string what;
  judge::CandidateSource source;
};

TEST(CompositionCudaBuildTest, EveryCudaTemplateComposesAndBuilds) {
  testing::TemporaryDirectory directory;
  judge::cuda::CudaCompilerOptions options;
  options.cache_directory = directory.path() / "cache";
  const judge::cuda::CudaCompiler compiler(options);
  std::vector<Composed> composed;
  for (const auto& folder : task::task_directories(KERNELARC_TASKS)) {
    const auto task = task::load_task(folder);
    for (const auto& tmpl : task.definition.templates) {
      if (tmpl.device != "cuda") continue;
      // A full CUDA source composes as a CPU one does (tested on every CPU template); one shows nvcc takes it.
      if (tmpl.form == task::TemplateForm::full && task.definition.name != "softmax") continue;
      composed.push_back({task.definition.name + "/" + tmpl.name,
                          engine::composed_source(task, tmpl, {{testing::first_knobs(tmpl), 4096, std::nullopt},
                                                               {testing::moved_knobs(tmpl), std::nullopt, std::nullopt}})});
    }
  }
  ASSERT_GE(composed.size(), 13u);
  std::vector<judge::BuildResult> built(composed.size());
  common::for_each_chunk(static_cast<std::int64_t>(composed.size()), 1, [&](std::int64_t index, std::int64_t, std::int64_t) {
    const auto& source = composed[static_cast<std::size_t>(index)].source;
    built[static_cast<std::size_t>(index)] = source.form == task::TemplateForm::kernel ? compiler.build_kernel({source.source, {}, {}})
                                                                                       : compiler.build_library({source.source, {}, {}});
  });
  for (std::size_t i = 0; i < composed.size(); ++i) {
    EXPECT_TRUE(built[i].ok) << composed[i].what << ":\n" << built[i].diagnostics.substr(0, 4000);
    if (composed[i].source.form != task::TemplateForm::kernel) continue;
    // The judge loads each part's kernel by its name: both are symbols of the cubin (extern "C": unmangled).
    ASSERT_EQ(composed[i].source.dispatch.size(), 2u);
    const std::string cubin = judge::read_text_file(built[i].library);
    for (const auto& part : composed[i].source.dispatch)
      EXPECT_NE(cubin.find(part.launch->kernel + '\0'), std::string::npos) << composed[i].what << ": no " << part.launch->kernel;
  }
}

TEST(CompositionCudaBuildTest, AComposedKernelOnlyCandidateExportsALauncherThatDispatchesAndBuilds) {
  testing::TemporaryDirectory directory;
  auto store = store::Store::open(directory.path() / "runs.db");
  const auto task = task::load_task(fs::path(KERNELARC_TASKS) / "add_rmsnorm");
  const auto& rows = testing::template_named(task, "rows_cuda");
  const auto composed =
      engine::composed_source(task, rows, {{testing::first_knobs(rows), 4096, std::nullopt}, {testing::moved_knobs(rows), std::nullopt, std::nullopt}});
  const auto run = testing::record_run(store, task, rows, "cuda:0",
                                       {{testing::first_knobs(rows), "first", 1000},
                                        {engine::composed_knobs(composed.dispatch), "promoted", 800, "PASSED", 0, composed.source}});
  ExportRequest request;
  request.run_id = run.run_id;
  const auto exported = export_candidate(store, request);
  EXPECT_TRUE(exported.kernel_form);
  EXPECT_THAT(exported.text, HasSubstr("if (kernelarc_size <= 4096.0) {  /* part 0 */"));
  EXPECT_THAT(exported.text, HasSubstr("(const void*)kernelarc_part0::add_rmsnorm_rows_kernelarc_part0"));
  EXPECT_THAT(exported.text, HasSubstr("(const void*)kernelarc_part1::add_rmsnorm_rows_kernelarc_part1"));
  judge::cuda::CudaCompilerOptions options;
  options.cache_directory = directory.path() / "cache";
  const judge::cuda::CudaCompiler compiler(options);
  const auto built = compiler.build_library({exported.text, {}, {}});
  ASSERT_TRUE(built.ok) << built.diagnostics.substr(0, 4000);
  void* library = dlopen(built.library.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(library, nullptr) << dlerror();
  EXPECT_NE(dlsym(library, "kernelarc_run"), nullptr);
  dlclose(library);
  request.format = ExportFormat::solution_json;
  EXPECT_THAT(export_candidate(store, request).text, HasSubstr("composed of 2 configurations over 2 classes"));
}

}  // namespace
}  // namespace kernelarc::report
