// A screening's checks on the GPU (judge/device_checks.h): the comparison kernel finds what the host's comparison finds,
// field for field, in every dtype it decodes; and a screening that keeps its inputs and reference on the device gives
// the verdicts, reasons included, of one that brings every output back. Without a GPU every test here is skipped.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "judge/build_cache.h"
#include "judge/comparison.h"
#include "judge/cuda/cuda_compiler.h"
#include "judge/cuda/cuda_driver.h"
#include "judge/cuda/device_comparison.h"
#include "judge/device_findings.h"
#include "judge/judge.h"
#include "judge/screening.h"
#include "task/dtype.h"
#include "task/roofline.h"
#include "task/task.h"

namespace kernelarc::judge {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

fs::path temporary_folder() {
  std::string pattern = (fs::temp_directory_path() / "kernelarc-device-checks-XXXXXX").string();
  EXPECT_NE(mkdtemp(pattern.data()), nullptr);
  return pattern;
}

// What each scenario does to the reference's values to make the candidate's.
enum class Scenario { equal, some_off, nan_and_inf, unwritten, zeros, negative_inf_both };

std::vector<float> answer(Scenario scenario, const std::vector<float>& reference) {
  std::vector<float> out = reference;
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  switch (scenario) {
    case Scenario::equal: break;
    case Scenario::some_off:
      for (std::size_t i = 3; i < out.size(); i += 997) out[i] += 0.75f;
      break;
    case Scenario::nan_and_inf: out[5] = nan, out[17] = inf, out[40000] = -inf; break;
    case Scenario::zeros: std::fill(out.begin(), out.end(), 0.0f); break;
    case Scenario::negative_inf_both: out[3] = -inf; break;
    case Scenario::unwritten: break;  // bytes overwritten with the poison below
  }
  return out;
}

TEST(DeviceComparisonTest, FindsWhatTheHostFindsInEveryDtype) {
  std::string why;
  const cuda::DriverApi* api = cuda::load_driver(&why);
  if (!api) GTEST_SKIP() << "no GPU here: " << why;
  const auto& a = *api;
  const fs::path folder = temporary_folder();
  CUdevice device = 0;
  CUcontext context = nullptr;
  cuda::check(a, a.device_get(&device, 0), "cuDeviceGet");
  cuda::check(a, a.primary_ctx_retain(&context, device), "cuDevicePrimaryCtxRetain");
  cuda::check(a, a.ctx_set_current(context), "cuCtxSetCurrent");
  int multiprocessors = 0;
  cuda::check(a, a.device_get_attribute(&multiprocessors, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device), "SM count");
  cuda::CudaCompilerOptions compiler_options;
  compiler_options.cache_directory = folder / "cache";
  const auto built = cuda::CudaCompiler(compiler_options).build_kernel({comparison_kernel_source(), {}, {}});
  ASSERT_TRUE(built.ok) << built.diagnostics;
  const std::string cubin = read_text_file(built.library);
  CUmodule module = nullptr;
  CUfunction kernel = nullptr;
  cuda::check(a, a.module_load_data(&module, cubin.data()), "cuModuleLoadData");
  cuda::check(a, a.module_get_function(&kernel, module, "kernelarc_compare"), "cuModuleGetFunction");
  CUstream stream = nullptr;
  cuda::check(a, a.stream_create(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  constexpr std::int64_t kCount = 100003;  // odd, and more than a block's worth of every thread
  CUdeviceptr actual = 0, expected = 0, scratch = 0;
  cuda::check(a, a.mem_alloc(&actual, kCount * 4), "cuMemAlloc");
  cuda::check(a, a.mem_alloc(&expected, kCount * 4), "cuMemAlloc");
  cuda::check(a, a.mem_alloc(&scratch, 64), "cuMemAlloc");

  std::mt19937 random(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> reference(kCount);
  for (auto& value : reference) value = normal(random);
  reference[3] = -std::numeric_limits<float>::infinity();  // where the tolerance may allow -inf on both sides
  int compared = 0;
  for (const task::DType dtype : {task::DType::float32, task::DType::float16, task::DType::bfloat16, task::DType::float8_e4m3fn,
                                  task::DType::float8_e5m2}) {
    ASSERT_TRUE(compared_on_device(dtype));
    const std::size_t element_bytes = task::dtype_bits(dtype) / 8;
    std::vector<std::byte> want(kCount * element_bytes), got(kCount * element_bytes);
    task::from_float32(dtype, reference.data(), kCount, want.data());
    for (const Scenario scenario : {Scenario::equal, Scenario::some_off, Scenario::nan_and_inf, Scenario::unwritten, Scenario::zeros,
                                    Scenario::negative_inf_both}) {
      const auto values = answer(scenario, reference);
      task::from_float32(dtype, values.data(), kCount, got.data());
      if (scenario == Scenario::unwritten) std::memset(got.data() + 1000 * element_bytes, 0xFF, 100 * element_bytes);
      for (const bool allow_negative_inf : {false, true}) {
        task::Tolerance tolerance;
        tolerance.max_atol = 1e-2;
        tolerance.max_rtol = 2e-2;
        tolerance.required_matched_ratio = 0.999;
        tolerance.allow_negative_inf = allow_negative_inf;
        const std::byte poison{0xFF};
        const Comparison host = compare_output("y", dtype, {kCount}, got.data(), want.data(), tolerance, poison);
        cuda::check(a, a.memcpy_htod(actual, got.data(), got.size()), "upload");
        cuda::check(a, a.memcpy_htod(expected, want.data(), want.size()), "upload");
        const std::optional<std::uint8_t> device_poison =
            poison_is_finite(dtype, poison) ? std::nullopt : std::optional<std::uint8_t>(0xFF);
        const ComparisonFindings found = cuda::compare_on_device(a, kernel, stream, scratch, actual, expected, kCount, dtype, tolerance.max_atol,
                                                                 tolerance.max_rtol, allow_negative_inf, device_poison, multiprocessors);
        // Through the worker's reply: NaN and infinities survive the JSON.
        const Comparison on_device = comparison_verdict("y", {kCount}, 1, kCount, findings_from_json(findings_to_json(found)), tolerance);
        const std::string where = fmt::format("{} scenario {} allow -inf {}", task::dtype_name(dtype), static_cast<int>(scenario), allow_negative_inf);
        EXPECT_EQ(on_device.passed, host.passed) << where << ": " << host.reason;
        EXPECT_EQ(on_device.reason, host.reason) << where;
        EXPECT_EQ(on_device.mismatched, host.mismatched) << where;
        EXPECT_EQ(on_device.first_bad_index, host.first_bad_index) << where;
        EXPECT_EQ(on_device.max_abs_error, host.max_abs_error) << where;
        EXPECT_EQ(on_device.max_rel_error, host.max_rel_error) << where;
        EXPECT_EQ(on_device.unwritten, host.unwritten) << where;
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, 60);
  a.mem_free(actual);
  a.mem_free(expected);
  a.mem_free(scratch);
  a.stream_destroy(stream);
  a.module_unload(module);
  a.primary_ctx_release(device);
  fs::remove_all(folder);
}

// The same candidates screened twice, the second time in the same worker (the inputs and reference kept from the
// first): with the checks on the device and on the host, the same outcome and reason.
TEST(DeviceChecksTest, AScreeningOnTheDeviceGivesTheHostsVerdicts) {
  std::string why;
  const cuda::DriverApi* api = cuda::load_driver(&why);
  if (!api) GTEST_SKIP() << "no GPU here: " << why;
  const char* root = std::getenv("KERNELARC_SOURCE_ROOT");
  const fs::path tasks = root ? fs::path(root) / "tasks" : fs::path(KERNELARC_TASKS);
  const fs::path folder = temporary_folder();
  const task::Task task = task::load_task(tasks / "softmax");
  CandidateSource correct;
  for (const auto& tmpl : task.definition.templates)
    if (tmpl.form == task::TemplateForm::kernel) {
      correct.name = tmpl.name;
      correct.source = read_text_file(tmpl.source);
      correct.form = tmpl.form;
      correct.launch = tmpl.launch;
      for (const auto& knob : tmpl.knobs) correct.knobs[knob.name] = knob.values.front();
      break;
    }
  ASSERT_FALSE(correct.source.empty()) << "softmax has no kernel-only template";
  CandidateSource lazy = correct, wrong = correct;
  lazy.name = "softmax.writes_nothing";
  lazy.source = "extern \"C\" __global__ void softmax_rows(const float* x, float* y, long long rows, long long cols) {}\n";
  wrong.name = "softmax.writes_halves";
  wrong.source =
      "extern \"C\" __global__ void softmax_rows(const float* x, float* y, long long rows, long long cols) {\n"
      "  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < rows * cols; i += (long long)gridDim.x * blockDim.x)\n"
      "    y[i] = 0.5f;\n}\n";
  CUdevice device = 0;
  char name[256] = {};
  api->device_get(&device, 0);
  api->device_get_name(name, sizeof name, device);
  const task::DevicePeaks peaks = task::known_gpu_peaks(name).value_or(task::DevicePeaks{name, 1e12, {{"fp32", 1e13}}, "test"});
  std::map<bool, std::vector<Screening>> screened;
  for (const bool on_device : {true, false}) {
    JudgeOptions base;
    base.device = "cuda:0";
    base.seed = 0x5eed'0042ULL;
    base.call_timeout = 5000ms;
    base.worker_executable = std::getenv("KERNELARC_TEST_BINARY") ? fs::path(std::getenv("KERNELARC_TEST_BINARY")) : fs::path(KERNELARC_BINARY);
    base.scratch_directory = folder / (on_device ? "device" : "host");
    base.compiler.cache_directory = folder / "cache";
    base.screen_on_device = on_device;  // off by default (JudgeOptions)
    Screener screener(task, screening_options(base), peaks);
    for (const auto* candidate : {&correct, &lazy, &wrong, &correct}) screened[on_device].push_back(screener.screen(*candidate));
  }
  for (std::size_t i = 0; i < screened[true].size(); ++i) {
    const Screening& device_side = screened[true][i];
    const Screening& host_side = screened[false][i];
    EXPECT_EQ(screening_outcome_name(device_side.outcome), screening_outcome_name(host_side.outcome)) << device_side.name;
    ASSERT_EQ(device_side.workloads.size(), host_side.workloads.size());
    for (std::size_t w = 0; w < device_side.workloads.size(); ++w)
      EXPECT_EQ(device_side.workloads[w].reason, host_side.workloads[w].reason) << device_side.name << " on " << device_side.workloads[w].uuid;
  }
  EXPECT_EQ(screening_outcome_name(screened[true][0].outcome), "measured");
  EXPECT_EQ(screening_outcome_name(screened[true][1].outcome), "wrong");
  EXPECT_THAT(screened[true][1].workloads.front().reason, ::testing::HasSubstr("unwritten"));
  EXPECT_EQ(screening_outcome_name(screened[true][2].outcome), "wrong");
  EXPECT_EQ(screening_outcome_name(screened[true][3].outcome), "measured");
  // Kept from the first candidate: the last one's inputs were neither made nor staged again.
  EXPECT_FALSE(screened[true][3].phase_seconds.count("staging")) << "the kept inputs were written again";
  fs::remove_all(folder);
}

}  // namespace
}  // namespace kernelarc::judge
