// The CUDA build paths need no GPU: NVRTC and nvcc run here, so CI checks them on every push.
#include <dlfcn.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/parallel.h"
#include "judge/build_cache.h"
#include "judge/cuda/cuda_compiler.h"
#include "judge/cuda/cuda_driver.h"
#include "judge/cuda/resource_usage.h"
#include "task/knob_grid.h"
#include "task/task.h"
#include "task/task_library.h"

namespace {

namespace fs = std::filesystem;
using namespace kernelarc::judge;
using ::testing::HasSubstr;
using ::testing::Not;

class CudaBuildTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "kernelarc-cuda-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    directory_ = pattern;
    options_.cache_directory = directory_;
  }
  void TearDown() override { fs::remove_all(directory_); }

  fs::path directory_;
  cuda::CudaCompilerOptions options_;
};

constexpr const char* kScaleKernel = R"(
#include <cuda_bf16.h>
extern "C" __global__ void scale(__nv_bfloat16* y, const __nv_bfloat16* x, int n) {
  __shared__ float staging[BLOCK];
  int i = blockIdx.x * BLOCK + threadIdx.x;
  staging[threadIdx.x] = i < n ? __bfloat162float(x[i]) : 0.0f;
  __syncthreads();
  if (i < n) y[i] = __float2bfloat16(staging[threadIdx.x] * 2.0f);
}
)";

TEST_F(CudaBuildTest, NvrtcBuildsACubinWithResourceUsageAndCachesIt) {
  const cuda::CudaCompiler compiler(options_);
  const auto first = compiler.build_kernel({kScaleKernel, {}, {{"BLOCK", 256}}});
  ASSERT_TRUE(first.ok) << first.diagnostics;
  EXPECT_FALSE(first.cache_hit);
  EXPECT_EQ(first.library.extension(), ".cubin");
  const std::string cubin = read_text_file(first.library);
  ASSERT_GE(cubin.size(), 4u);
  EXPECT_EQ(cubin.substr(0, 4), std::string("\x7f" "ELF"));  // a cubin is an ELF image
  ASSERT_TRUE(first.resources.contains("scale")) << first.resources.dump();
  EXPECT_GT(first.resources["scale"]["registers"].get<int>(), 0);
  EXPECT_EQ(first.resources["scale"]["shared_bytes"].get<int>(), 256 * 4);
  EXPECT_EQ(first.resources["scale"]["spill_store_bytes"].get<int>(), 0);

  const auto second = compiler.build_kernel({kScaleKernel, {}, {{"BLOCK", 256}}});
  ASSERT_TRUE(second.ok);
  EXPECT_TRUE(second.cache_hit);
  EXPECT_EQ(second.cache_key, first.cache_key);
  EXPECT_EQ(second.resources, first.resources);
  EXPECT_LT(second.seconds, 0.01);

  const auto other_knob = compiler.build_kernel({kScaleKernel, {}, {{"BLOCK", 128}}});
  ASSERT_TRUE(other_knob.ok);
  EXPECT_NE(other_knob.cache_key, first.cache_key);
  EXPECT_EQ(other_knob.resources["scale"]["shared_bytes"].get<int>(), 128 * 4);
}

// The judge makes a compiler for every build, a cache hit included: after the first, making one starts no process
// (`nvcc --version` per build cost a screening 0.47 s on the device while a run's compile pool kept the cores busy).
// The toolkit here is the real one's headers beside an nvcc that counts its calls.
TEST_F(CudaBuildTest, ACompilerPerCacheHitStartsNoProcess) {
  const fs::path real = options_.toolkit, toolkit = directory_ / "toolkit", calls = directory_ / "nvcc-calls";
  fs::create_directories(toolkit / "bin");
  fs::create_directory_symlink(real / "include", toolkit / "include");
  {
    std::ofstream nvcc(toolkit / "bin" / "nvcc");
    nvcc << "#!/bin/sh\necho called >> '" << calls.string() << "'\necho 'Build counting'\n";
  }
  fs::permissions(toolkit / "bin" / "nvcc", fs::perms::owner_all);
  auto options = options_;
  options.toolkit = toolkit;
  ::unsetenv("CUDA_HOME");
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(cuda::CudaCompiler(options).build_kernel({kScaleKernel, {}, {{"BLOCK", 64}}}).ok);
  std::ifstream counted(calls);
  int lines = 0;
  for (std::string line; std::getline(counted, line);) ++lines;
  EXPECT_EQ(lines, 1) << "nvcc --version ran for every compiler made";
}

TEST_F(CudaBuildTest, NvrtcCompileErrorIsTrimmedAndNamesTheProblem) {
  const cuda::CudaCompiler compiler(options_);
  const auto result = compiler.build_kernel({"extern \"C\" __global__ void k(float* y) { y[0] = undeclared_value; }", {}, {}});
  EXPECT_FALSE(result.ok);
  EXPECT_THAT(result.diagnostics, HasSubstr("undeclared_value"));
  EXPECT_LT(result.diagnostics.size(), 2000u);
  EXPECT_FALSE(fs::exists(directory_ / "cuda" / (result.cache_key + ".cubin")));
}

TEST_F(CudaBuildTest, NvccBuildsALoadableLibraryExportingTheEntryPoint) {
  const cuda::CudaCompiler compiler(options_);
  const std::string source = R"(
#include <kernelarc/candidate_abi.h>
#include <cuda_runtime.h>
__global__ void fill(float* y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = VALUE; }
KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  const int n = static_cast<int>(outputs[0]->shape[0]);
  fill<<<(n + 255) / 256, 256, 0, static_cast<cudaStream_t>(stream)>>>(static_cast<float*>(outputs[0]->data), n);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
)";
  const auto result = compiler.build_library({source, {}, {{"VALUE", 3}}});
  ASSERT_TRUE(result.ok) << result.diagnostics;
  EXPECT_EQ(result.library.extension(), ".so");
  ASSERT_FALSE(result.resources.empty()) << "nvcc -Xptxas -v output was not parsed";
  EXPECT_GT(result.resources.begin().value()["registers"].get<int>(), 0);
  // dlopen without a driver works: the CUDA runtime loads the driver lazily.
  void* library = dlopen(result.library.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(library, nullptr) << dlerror();
  EXPECT_NE(dlsym(library, "kernelarc_run"), nullptr);
  dlclose(library);
  EXPECT_TRUE(compiler.build_library({source, {}, {{"VALUE", 3}}}).cache_hit);
}

// nvcc runs in the compiler's sandbox: a file outside it, named by #include or .incbin, stays unread (issue 23).
// NVRTC compiles inside the judge's process, so only the trimming keeps such a file out of its diagnostics.
TEST_F(CudaBuildTest, FilesOutsideTheCompilersSandboxStayUnread) {
  const fs::path secret = directory_ / "secret.txt";
  write_file_atomically(secret, "kernelarc_secret_cuda_77ab here;\n");
  const cuda::CudaCompiler compiler(options_);
  const std::string include = "#include \"" + secret.string() + "\"\n";
  const auto library = compiler.build_library({"#include <kernelarc/candidate_abi.h>\n" + include +
                                                   "KERNELARC_CANDIDATE(i, ni, o, no, s) { return 0; }\n",
                                               {},
                                               {}});
  EXPECT_FALSE(library.ok);
  EXPECT_THAT(library.diagnostics, Not(HasSubstr("kernelarc_secret_cuda_77ab")));
  const auto embedded = compiler.build_library({"#include <kernelarc/candidate_abi.h>\nasm(\".section .rodata\\n.incbin \\\"" +
                                                    secret.string() + "\\\"\\n.previous\\n\");\n"
                                                    "KERNELARC_CANDIDATE(i, ni, o, no, s) { return 0; }\n",
                                                {},
                                                {}});
  EXPECT_THAT(embedded.diagnostics, Not(HasSubstr("kernelarc_secret_cuda_77ab")));
  if (embedded.sandbox.dump().find("landlock v") != std::string::npos) EXPECT_FALSE(embedded.ok) << "the assembler read the file";
  const auto kernel = compiler.build_kernel({include + "extern \"C\" __global__ void k(float* y) { y[0] = 1; }", {}, {}});
  EXPECT_FALSE(kernel.ok);
  EXPECT_THAT(kernel.diagnostics, Not(HasSubstr("kernelarc_secret_cuda_77ab")));
}

TEST(ResourceUsageTest, ParsesPtxasVerboseOutputPerKernel) {
  const std::string report =
      "ptxas info    : (C7514) Potential Performance Loss: wgmma.mma_async instructions are serialized due to non wgmma "
      "instructions reading accumulator registers of  a wgmma between start and end of the pipeline stage in the function "
      "'first'\n"
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'first' for 'sm_90a'\n"
      "ptxas info    : Function properties for first\n"
      "    8 bytes stack frame, 4 bytes spill stores, 12 bytes spill loads\n"
      "ptxas info    : Used 40 registers, used 1 barriers, 2048 bytes smem, 360 bytes cmem[0]\n"
      "ptxas info    : Compiling entry function '_Z6secondPf' for 'sm_90a'\n"
      "ptxas info    : Function properties for _Z6secondPf\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 10 registers, used 0 barriers\n";
  const auto kernels = cuda::parse_ptxas_report(report);
  ASSERT_EQ(kernels.size(), 2u);
  const auto& first = kernels.at("first");
  EXPECT_EQ(first.registers, 40);
  EXPECT_EQ(first.shared_bytes, 2048);
  EXPECT_EQ(first.stack_bytes, 8);
  EXPECT_EQ(first.spill_store_bytes, 4);
  EXPECT_EQ(first.spill_load_bytes, 12);
  EXPECT_EQ(first.barriers, 1);
  EXPECT_TRUE(first.wgmma_serialized);
  EXPECT_FALSE(kernels.at("_Z6secondPf").wgmma_serialized);
  EXPECT_EQ(kernels.at("_Z6secondPf").registers, 10);
  EXPECT_EQ(kernels.at("_Z6secondPf").shared_bytes, 0);
}

TEST(CudaDriverTest, LoadsTheDriverOrSaysWhyNot) {
  std::string why;
  const auto* api = cuda::load_driver(&why);
  if (api) GTEST_SKIP() << "a GPU is present; the no-driver message is checked on machines without one";
  EXPECT_THAT(why, Not(::testing::IsEmpty()));
  EXPECT_THAT(why, ::testing::AnyOf(HasSubstr("no NVIDIA driver"), HasSubstr("no GPU"), HasSubstr("did not start")));
}

}  // namespace

namespace {

using Knobs = std::map<std::string, std::int64_t>;

std::string describe(const Knobs& knobs) {
  std::string text;
  for (const auto& [name, value] : knobs) text += (text.empty() ? "" : " ") + name + "=" + std::to_string(value);
  return text;
}

// The rule the search applies (engine::knobs_allowed): every constraint that names only knobs holds.
bool allowed(const kernelarc::task::Template& tmpl, const Knobs& knobs) {
  kernelarc::task::Bindings names;
  for (const auto& [name, value] : knobs) names[name] = static_cast<double>(value);
  for (const auto& constraint : tmpl.constraints) {
    const auto variables = constraint.variables();
    if (std::all_of(variables.begin(), variables.end(), [&](const std::string& v) { return names.count(v) > 0; }) &&
        !constraint.evaluate_condition(names))
      return false;
  }
  return true;
}

// Every value of every knob built at least once, in few builds: the first values, then sweeps that move every knob at
// once (sweep k gives each knob its k-th value, wrapping), each kept where the constraints allow it; a value no allowed
// sweep reached is built with the others at their first values, or with one other knob moved as well, or two (the first
// such configuration allowed). Then `random_count` allowed configurations drawn with a fixed seed.
std::vector<Knobs> configurations_to_build(const kernelarc::task::Template& tmpl, int random_count) {
  Knobs defaults;
  std::size_t most_values = 0;
  for (const auto& knob : tmpl.knobs) defaults[knob.name] = knob.values.front(), most_values = std::max(most_values, knob.values.size());
  std::vector<Knobs> configurations{defaults};
  std::set<std::pair<std::string, std::int64_t>> covered;
  const auto keep = [&](const Knobs& knobs) {
    configurations.push_back(knobs);
    for (const auto& [name, value] : knobs) covered.emplace(name, value);
  };
  for (const auto& [name, value] : defaults) covered.emplace(name, value);
  for (std::size_t k = 1; k < most_values; ++k) {
    Knobs sweep;
    for (const auto& knob : tmpl.knobs) sweep[knob.name] = knob.values[k % knob.values.size()];
    if (allowed(tmpl, sweep)) keep(sweep);
  }
  for (const auto& knob : tmpl.knobs)
    for (const auto value : knob.values) {
      if (covered.contains({knob.name, value})) continue;
      Knobs knobs = defaults;
      knobs[knob.name] = value;
      // The value alone, else with one other knob moved, else with two (PINGPONG needs PERSISTENT and a smaller BN).
      const auto moved_one = [&](const Knobs& from, const std::string& fixed, Knobs& out) {
        for (const auto& other : tmpl.knobs) {
          if (other.name == knob.name || other.name == fixed) continue;
          for (const auto other_value : other.values) {
            Knobs moved = from;
            moved[other.name] = other_value;
            if (allowed(tmpl, moved)) return out = moved, true;
          }
        }
        return false;
      };
      bool found = allowed(tmpl, knobs) || moved_one(knobs, "", knobs);
      for (std::size_t other = 0; other < tmpl.knobs.size() && !found; ++other) {
        if (tmpl.knobs[other].name == knob.name) continue;
        for (const auto other_value : tmpl.knobs[other].values) {
          Knobs moved = knobs;
          moved[tmpl.knobs[other].name] = other_value;
          if ((found = moved_one(moved, tmpl.knobs[other].name, knobs))) break;
        }
      }
      if (found) keep(knobs);
      else ADD_FAILURE() << tmpl.name << ": " << knob.name << "=" << value << " is allowed in no configuration near the first values";
    }
  std::mt19937 draw(20260101);
  for (int attempt = 0, drawn = 0; drawn < random_count && attempt < 10000; ++attempt) {
    Knobs knobs;
    for (const auto& knob : tmpl.knobs) knobs[knob.name] = knob.values[draw() % knob.values.size()];
    if (allowed(tmpl, knobs)) configurations.push_back(knobs), ++drawn;
  }
  return configurations;
}

// The launch geometry of a configuration on a workload: what CUDA accepts for a launch.
void expect_launchable(const kernelarc::task::Task& task, const kernelarc::task::Template& tmpl, const Knobs& knobs) {
  for (const auto& workload : task.workloads) {
    auto names = kernelarc::task::resolve_workload(task, workload).axes;
    for (const auto& [name, value] : knobs) names[name] = static_cast<double>(value);
    names = kernelarc::task::launch_bindings(*tmpl.launch, std::move(names));
    std::int64_t threads = 1;
    for (const auto& dimension : tmpl.launch->block) {
      const auto value = dimension.evaluate_integer(names);
      EXPECT_GE(value, 1) << tmpl.name << " " << describe(knobs) << " on " << workload.uuid << ": " << dimension.text();
      threads *= value;
    }
    EXPECT_LE(threads, 1024) << tmpl.name << " " << describe(knobs) << " on " << workload.uuid;
    for (std::size_t i = 0; i < tmpl.launch->grid.size(); ++i) {
      const auto value = tmpl.launch->grid[i].evaluate_integer(names);
      EXPECT_GE(value, 1) << tmpl.name << " " << describe(knobs) << " on " << workload.uuid << ": " << tmpl.launch->grid[i].text();
      EXPECT_LE(value, i == 0 ? 2147483647 : 65535) << tmpl.name << " " << describe(knobs) << " on " << workload.uuid;
    }
  }
}

// One build the test asks for: NVRTC (kernel set) or nvcc, and what names it in a failure.
struct BuildJob {
  std::string what;
  std::string source;
  Knobs knobs;
  std::string kernel;  // kernel-only: the kernel the cubin must hold
  bool kernel_form = false;
};

// The jobs built over every core, each result at its job's index: the test runs alone (RUN_SERIAL), so both CI cores build.
std::vector<BuildResult> build_all(const cuda::CudaCompiler& compiler, const std::vector<BuildJob>& jobs) {
  std::vector<BuildResult> results(jobs.size());
  kernelarc::common::for_each_chunk(static_cast<std::int64_t>(jobs.size()), 1, [&](std::int64_t begin, std::int64_t, std::int64_t) {
    const auto& job = jobs[static_cast<std::size_t>(begin)];
    results[static_cast<std::size_t>(begin)] =
        job.kernel_form ? compiler.build_kernel({job.source, {}, job.knobs}) : compiler.build_library({job.source, {}, {}});
  });
  return results;
}

// Every CUDA source of the built-in tasks builds: kernel-only templates through NVRTC at every value of every knob and in
// a few random allowed configurations, each launchable on every workload; full-source templates and native CUDA
// references through nvcc.
TEST(BuiltInCudaSourcesTest, EveryTaskBuildsInBothForms) {
  std::string pattern = (fs::temp_directory_path() / "kernelarc-cuda-tasks-XXXXXX").string();
  ASSERT_NE(mkdtemp(pattern.data()), nullptr);
  cuda::CudaCompilerOptions options;
  options.cache_directory = pattern;
  const cuda::CudaCompiler compiler(options);
  constexpr int kRandomConfigurations = 3;
  int kernel_templates = 0, kernel_builds = 0, knob_values = 0, library_builds = 0;
  std::vector<BuildJob> jobs;
  const auto directories = kernelarc::task::task_directories(KERNELARC_TASKS);
  ASSERT_GE(directories.size(), 4u);
  for (const auto& directory : directories) {
    const std::string name = directory.filename().string();
    const auto task = kernelarc::task::load_task(directory);
    ASSERT_TRUE(task.definition.native_reference.count("cuda")) << name;
    jobs.push_back({name + " reference", read_text_file(task.definition.native_reference.at("cuda")), {}, "", false});
    ++library_builds;
    bool has_kernel_form = false, has_full_form = false;
    for (const auto& tmpl : task.definition.templates) {
      if (tmpl.device != "cuda") continue;
      const std::string source = read_text_file(tmpl.source);
      if (tmpl.form == kernelarc::task::TemplateForm::kernel) {
        has_kernel_form = true;
        ++kernel_templates;
        ASSERT_TRUE(tmpl.launch.has_value()) << name << "/" << tmpl.name;
        ASSERT_FALSE(tmpl.launch->kernel.empty()) << name << "/" << tmpl.name << " names the kernel it launches";
        EXPECT_GE(tmpl.knobs.size(), 2u) << name << "/" << tmpl.name << " gives the search one knob or none";
        for (const auto& knob : tmpl.knobs) knob_values += static_cast<int>(knob.values.size());
        std::set<std::pair<std::string, std::int64_t>> built_values;
        for (const auto& knobs : configurations_to_build(tmpl, kRandomConfigurations)) {
          for (const auto& [knob, value] : knobs) built_values.emplace(knob, value);
          expect_launchable(task, tmpl, knobs);
          jobs.push_back({name + "/" + tmpl.name + " " + describe(knobs), source, knobs, tmpl.launch->kernel, true});
          ++kernel_builds;
        }
        std::size_t values = 0;
        for (const auto& knob : tmpl.knobs) values += std::set<std::int64_t>(knob.values.begin(), knob.values.end()).size();
        EXPECT_EQ(built_values.size(), values) << name << "/" << tmpl.name << ": every value of every knob is built";
      } else {
        has_full_form = true;
        jobs.push_back({name + "/" + tmpl.name, source, {}, "", false});
        ++library_builds;
      }
    }
    EXPECT_TRUE(has_kernel_form && has_full_form) << name << " needs a CUDA template in both forms";
  }
  const auto results = build_all(compiler, jobs);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    EXPECT_TRUE(results[i].ok) << jobs[i].what << ":\n" << results[i].diagnostics;
    if (jobs[i].kernel_form) EXPECT_TRUE(results[i].resources.contains(jobs[i].kernel)) << jobs[i].what << ": " << results[i].resources.dump();
  }
  // Each task: its CUDA reference and at least one template in each form.
  EXPECT_GE(library_builds, 2 * static_cast<int>(directories.size()));
  EXPECT_GE(kernel_templates, static_cast<int>(directories.size()));
  EXPECT_GE(knob_values, kernel_templates * 2 * 2) << "each kernel template has knobs with at least two values";
  EXPECT_GE(kernel_builds, kernel_templates * (1 + kRandomConfigurations));
  fs::remove_all(pattern);
}

// A B200 (sm_100a): the judge builds for its device's architecture (Backend::compile_target), so every kernel-only
// template of the built-in tasks builds for Blackwell at its default knobs, the GEMM tiles (kernelarc/gemm_sm90.cuh)
// included: there they multiply on mma.sync, wgmma being sm_90a's. On an architecture with neither (Ada, sm_89) a GEMM
// tile refuses to build with a message saying so, not a page of PTX errors.
TEST(BuiltInCudaSourcesTest, EveryKernelTemplateBuildsForABlackwellB200) {
  EXPECT_EQ(cuda::architecture_for(9, 0), "sm_90a");
  EXPECT_EQ(cuda::architecture_for(10, 0), "sm_100a");
  EXPECT_EQ(cuda::architecture_for(8, 6), "sm_86");
  std::string pattern = (fs::temp_directory_path() / "kernelarc-cuda-sm100-XXXXXX").string();
  ASSERT_NE(mkdtemp(pattern.data()), nullptr);
  cuda::CudaCompilerOptions options;
  options.cache_directory = pattern;
  options.architecture = "sm_100a";
  const cuda::CudaCompiler compiler(options);
  std::vector<BuildJob> jobs;
  for (const auto& directory : kernelarc::task::task_directories(KERNELARC_TASKS)) {
    const auto task = kernelarc::task::load_task(directory);
    for (const auto& tmpl : task.definition.templates)
      if (tmpl.device == "cuda" && tmpl.form == kernelarc::task::TemplateForm::kernel)
        jobs.push_back({directory.filename().string() + "/" + tmpl.name, read_text_file(tmpl.source), kernelarc::task::default_knobs(tmpl),
                        tmpl.launch->kernel, true});
  }
  const auto results = build_all(compiler, jobs);
  int gemm = 0, others = 0;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    ++(jobs[i].source.find("kernelarc/gemm_sm90.cuh") != std::string::npos ? gemm : others);
    EXPECT_TRUE(results[i].ok) << jobs[i].what << ":\n" << results[i].diagnostics;
    EXPECT_TRUE(results[i].resources.contains(jobs[i].kernel)) << jobs[i].what << ": " << results[i].resources.dump();
  }
  EXPECT_GE(gemm, 4);
  EXPECT_GE(others, 8);

  options.architecture = "sm_89";
  const cuda::CudaCompiler ada(options);
  const auto gemm_job = std::find_if(jobs.begin(), jobs.end(), [](const BuildJob& job) { return job.what == "gemm_bf16/tma_cuda"; });
  ASSERT_NE(gemm_job, jobs.end());
  const auto refused = ada.build_kernel({gemm_job->source, {}, gemm_job->knobs});
  EXPECT_FALSE(refused.ok);
  EXPECT_THAT(refused.diagnostics, HasSubstr("needs sm_90a (Hopper) or sm_100a"));
  fs::remove_all(pattern);
}

}  // namespace

namespace {

// The GPU tests' candidates and tasks build here, so a typo costs a CI run, not a run on the GPU machine.
TEST(GpuTestSourcesTest, EveryCanaryAndTestTaskBuilds) {
  std::string pattern = (fs::temp_directory_path() / "kernelarc-cuda-canaries-XXXXXX").string();
  ASSERT_NE(mkdtemp(pattern.data()), nullptr);
  cuda::CudaCompilerOptions options;
  options.cache_directory = pattern;
  const cuda::CudaCompiler compiler(options);
  std::vector<fs::path> sources{fs::path(KERNELARC_CUDA_TASKS) / "copy" / "reference_cuda.cu"};
  for (const auto& entry : fs::directory_iterator(KERNELARC_CUDA_CANDIDATES))
    if (entry.path().extension() == ".cu") sources.push_back(entry.path());
  EXPECT_GE(sources.size(), 8u);
  // Canaries the manifest expects to fail to build (a file read through the compiler) must fail, and say no secret.
  std::set<std::string> must_not_build;
  const fs::path candidates(KERNELARC_CUDA_CANDIDATES);
  std::ifstream manifest_file(candidates.parent_path().parent_path() / "canaries" / "manifest.json");
  const auto manifest = nlohmann::json::parse(manifest_file);  // kept: a loop over a temporary's member would dangle
  for (const auto& entry : manifest.at("entries"))
    if (entry.at("expect") == "COMPILE_ERROR") must_not_build.insert(fs::path(entry.at("canary").get<std::string>()).filename().string());
  std::vector<BuildJob> jobs;
  for (const auto& source : sources) jobs.push_back({source.string(), read_text_file(source), {}, "", false});
  const auto results = build_all(compiler, jobs);
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const auto& source = sources[i];
    const auto& built = results[i];
    if (must_not_build.count(source.filename().string())) {
      EXPECT_FALSE(built.ok) << source << " built, though it reads a file outside the compiler's sandbox";
      EXPECT_THAT(built.diagnostics, ::testing::Not(::testing::HasSubstr("root:"))) << source;
    } else {
      EXPECT_TRUE(built.ok) << source << ":\n" << built.diagnostics;
    }
  }
  EXPECT_NO_THROW(kernelarc::task::load_task(fs::path(KERNELARC_CUDA_TASKS) / "copy"));
  fs::remove_all(pattern);
}

}  // namespace
