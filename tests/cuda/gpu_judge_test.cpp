// The CUDA judge on a real GPU: the GPU worker's protocol, the built-in tasks in both candidate forms, a copy kernel
// against the calibrated bandwidth, and the GPU canaries (tests/cuda/candidates, each saying in its first line what it
// does and what it must get). Without a GPU every test here is skipped, and CTest reports it as skipped.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>

#include "common/subprocess.h"
#include "engine/composition.h"
#include "judge/dispatch_rule.h"
#include "judge/cuda/cuda_compiler.h"
#include "judge/cuda/cuda_driver.h"
#include "judge/cuda/gpu_calibration.h"
#include "judge/judge.h"
#include "judge/reference_oracle.h"
#include "../judge/judge_test_support.h"
#include "judge/shared_buffer.h"
#include "judge/worker_process.h"
#include "task/roofline.h"
#include "task/solution_file.h"
#include "task/task.h"

namespace kernelarc::judge {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using ::testing::HasSubstr;
using nlohmann::json;

#define SKIP_WITHOUT_GPU()                                                   \
  do {                                                                       \
    std::string why;                                                         \
    if (!cuda::load_driver(&why)) GTEST_SKIP() << "no GPU here: " << why;    \
  } while (0)

// Paths compiled in for this checkout, overridable where the tests run from a bundle on another machine
// (scripts/device run): KERNELARC_TEST_BINARY and KERNELARC_SOURCE_ROOT.
fs::path binary() {
  const char* bundled = std::getenv("KERNELARC_TEST_BINARY");
  return bundled ? fs::path(bundled) : fs::path(KERNELARC_BINARY);
}
fs::path source_path(const char* compiled, const char* relative) {
  const char* root = std::getenv("KERNELARC_SOURCE_ROOT");
  return root ? fs::path(root) / relative : fs::path(compiled);
}
fs::path tasks_directory() { return source_path(KERNELARC_TASKS, "tasks"); }
fs::path cuda_tasks_directory() { return source_path(KERNELARC_CUDA_TASKS, "tests/cuda/tasks"); }
fs::path cuda_candidates_directory() { return source_path(KERNELARC_CUDA_CANDIDATES, "tests/cuda/candidates"); }
fs::path solutions_directory() { return source_path(KERNELARC_SOLUTIONS, "tests/judge/solutions"); }

// A solution.json of tests/judge/solutions as the CLI would hand it to the judge.
CandidateSource python_solution(const std::string& name) {
  CandidateSource source;
  source.name = name;
  source.source = read_text(solutions_directory() / (name + ".json"));
  source.solution = std::make_shared<const task::SolutionCandidate>(task::read_solution(source.source));
  return source;
}

// Why the PyTorch oracle cannot run on the GPU here (an unusable oracle fails the test: scripts/setup provides one), or
// nothing when it can.
std::optional<std::string> oracle_without_cuda() {
  const auto oracle = find_reference_oracle();
  EXPECT_TRUE(oracle.usable()) << ::testing::PrintToString(oracle.problems);
  if (!oracle.usable()) return "no usable oracle";
  const auto probe = common::run_command({oracle.python.string(), "-c", "import torch; assert torch.cuda.is_available()"}, 2min, 1 << 16);
  if (probe.ok()) return std::nullopt;
  return oracle.python.string() + " has no torch with CUDA: " + probe.output;
}

class GpuJudgeTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string pattern = (fs::temp_directory_path() / "kernelarc-gpu-judge-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    root_ = new fs::path(pattern);
  }
  static void TearDownTestSuite() {
    std::error_code ignored;
    fs::remove_all(*root_, ignored);
    delete root_;
    root_ = nullptr;
  }

  static task::Task load(const fs::path& directory, const std::set<std::string>& uuids = {}) {
    task::Task task = task::load_task(directory);
    if (uuids.empty()) return task;
    task::Task subset = task;
    subset.workloads.clear();
    for (const auto& workload : task.workloads)
      if (uuids.count(workload.uuid)) subset.workloads.push_back(workload);
    EXPECT_EQ(subset.workloads.size(), uuids.size());
    return subset;
  }
  static task::Task small_softmax() { return load(tasks_directory() / "softmax", {"softmax-7x1000", "softmax-2x2", "softmax-256x4097"}); }

  static JudgeOptions options() {
    JudgeOptions options;
    options.device = "cuda:0";
    options.rounds = 3;
    options.warmup = 2;
    options.iterations = 10;
    options.rechecks = 2;
    options.call_timeout = 5000ms;
    options.seed = 0x5eed'4321'abcdULL;
    options.worker_executable = binary();
    options.scratch_directory = *root_ / "scratch";
    options.compiler.cache_directory = *root_ / "cache";
    return options;
  }

  static task::DevicePeaks peaks() {
    std::string why;
    const auto* api = cuda::load_driver(&why);
    CUdevice device = 0;
    char name[256] = {};
    api->device_get(&device, 0);
    api->device_get_name(name, sizeof name, device);
    auto known = task::known_gpu_peaks(name);
    EXPECT_TRUE(known.has_value()) << "no datasheet peaks for " << name;
    return known.value_or(task::DevicePeaks{name, 1e12, {{"fp32", 1e13}}, "test"});
  }

  static CandidateSource file(const fs::path& path) {
    CandidateSource candidate;
    candidate.name = path.stem().string();
    candidate.source = read_text(path);
    return candidate;
  }
  static CandidateSource canary(const std::string& name) { return file(cuda_candidates_directory() / (name + ".cu")); }

  // Two honest copies of 16 MiB (copy-4Mi, which the L2 holds), the second loading each output before it writes it:
  // with cold outputs those loads come from DRAM, half as many bytes again as the plain copy moves, so it must be
  // clearly slower; with the poison left in L2 they were nearly free.
  static void expect_cold_outputs(const CandidateSource& plain_copy, const CandidateSource& reading_copy, const std::string& what) {
    const task::Task task = load(cuda_tasks_directory() / "copy", {"copy-4Mi"});
    auto judge_options = options();
    judge_options.rounds = 1;
    judge_options.iterations = 30;
    Judge judge(task, judge_options, peaks());
    const auto plain = judge.evaluate(plain_copy);
    const auto reading = judge.evaluate(reading_copy);
    ASSERT_TRUE(plain.passed()) << describe(plain);
    ASSERT_TRUE(reading.passed()) << describe(reading);
    const double plain_ns = plain.workloads.front().timing->median_ns, reading_ns = reading.workloads.front().timing->median_ns;
    std::cerr << fmt::format("{}: {:.2f} us; loading the outputs first: {:.2f} us ({:.2f}x)\n", what, plain_ns / 1e3, reading_ns / 1e3,
                             reading_ns / plain_ns);
    EXPECT_GE(reading_ns, 1.25 * plain_ns) << what << ": the outputs were still in L2 when the call started";
  }
  static CandidateSource from_template(const task::Task& task, const std::string& name) {
    for (const auto& tmpl : task.definition.templates)
      if (tmpl.name == name) {
        CandidateSource candidate = file(tmpl.source);
        candidate.form = tmpl.form;
        candidate.launch = tmpl.launch;
        for (const auto& knob : tmpl.knobs) candidate.knobs[knob.name] = knob.values.front();
        return candidate;
      }
    ADD_FAILURE() << "no template " << name;
    return {};
  }

  static void expect_every_workload(const CandidateVerdict& verdict, Status status, const std::string& fragment) {
    ASSERT_FALSE(verdict.workloads.empty()) << describe(verdict);
    for (const auto& row : verdict.workloads) {
      EXPECT_EQ(status_name(row.status), status_name(status)) << describe(verdict);
      EXPECT_THAT(row.reason, HasSubstr(fragment)) << describe(verdict);
    }
  }

  static inline fs::path* root_ = nullptr;
};

TEST_F(GpuJudgeTest, WorkerNamesItsDeviceAndTimesWithCupti) {
  SKIP_WITHOUT_GPU();
  WorkerProcess worker({binary(), "cuda:0", *root_ / "hello.log"});
  const auto reply = worker.request({{"op", "hello"}}, 60s);
  ASSERT_TRUE(reply.ok()) << reply.description << " " << worker.log_tail();
  EXPECT_FALSE(reply.body.value("name", "").empty());
  EXPECT_EQ(reply.body.value("timer", ""), "cupti") << "CUPTI unavailable: " << reply.body.value("timer_why", "");
}

// Ranges move both ways intact, and mapping workload after workload reuses one allocation instead of leaking.
TEST_F(GpuJudgeTest, WorkerMovesRangesAndDoesNotLeakDeviceMemory) {
  SKIP_WITHOUT_GPU();
  WorkerProcess worker({binary(), "cuda:0", *root_ / "ranges.log"});
  const std::size_t bytes = 8u << 20;
  auto buffer = SharedBuffer::create(*root_ / "ranges.buf", bytes);
  for (std::size_t i = 0; i < bytes; ++i) buffer.data()[i] = static_cast<std::byte>(i * 7 + 3);
  auto step = [&](const json& message) {
    const auto reply = worker.request(message, 60s);
    EXPECT_TRUE(reply.ok()) << message.dump() << ": " << reply.description << " " << worker.log_tail();
    return reply.body;
  };
  step({{"op", "map"}, {"file", buffer.file().string()}, {"bytes", bytes}});
  step({{"op", "upload"}, {"ranges", {{0, bytes}}}});
  std::memset(buffer.data(), 0, bytes);
  step({{"op", "download"}, {"ranges", {{4096, bytes - 8192}}}});
  EXPECT_EQ(buffer.data()[0], std::byte{0}) << "a byte outside the downloaded range changed";
  for (std::size_t i = 4096; i < bytes - 4096; i += 997) ASSERT_EQ(buffer.data()[i], static_cast<std::byte>(i * 7 + 3)) << i;
  step({{"op", "flush"}, {"bytes", 0}});  // the flush buffer (twice the L2) is allocated once, here
  const auto free_before = step({{"op", "hello"}}).value("free_bytes", std::size_t{0});
  for (int i = 0; i < 20; ++i) {
    auto other = SharedBuffer::create(*root_ / fmt::format("ranges-{}.buf", i), (i % 2 ? 4u : 8u) << 20);
    step({{"op", "map"}, {"file", other.file().string()}, {"bytes", other.size()}});
    step({{"op", "flush"}, {"bytes", 0}});
  }
  const auto after = step({{"op", "hello"}});
  EXPECT_GE(after.value("free_bytes", std::size_t{0}) + (16u << 20), free_before) << "device memory grew across 20 maps";
  EXPECT_EQ(after.value("pooled_bytes", std::size_t{0}), bytes) << "the pooled buffer should be reused, not reallocated";
}

TEST_F(GpuJudgeTest, BuiltinTasksPassInBothCandidateForms) {
  SKIP_WITHOUT_GPU();
  for (const std::string name : {"softmax", "add_rmsnorm", "matmul"}) {
    const task::Task task = load(tasks_directory() / name);
    Judge judge(task, options(), peaks());
    int judged = 0;
    for (const auto& tmpl : task.definition.templates) {
      if (tmpl.device != "cuda") continue;
      ++judged;
      const auto verdict = judge.evaluate(from_template(task, tmpl.name));
      if (std::getenv("KERNELARC_TEST_VERBOSE")) std::cerr << describe(verdict);
      EXPECT_TRUE(verdict.passed()) << name << " " << tmpl.name << "\n" << describe(verdict);
      for (const auto& row : verdict.workloads)
        if (row.timing) EXPECT_EQ(row.timing->timer, "cupti") << row.uuid;
    }
    EXPECT_EQ(judged, 2) << name << " should have a full and a kernel-only CUDA template";
  }
}

// The bar: a copy kernel submitted as a candidate is timed at no less than 85% of the calibrated bandwidth.
TEST_F(GpuJudgeTest, CopyKernelIsTimedNearTheCalibratedBandwidth) {
  SKIP_WITHOUT_GPU();
  cuda::CudaCompilerOptions compiler_options;
  compiler_options.cache_directory = *root_ / "cache";
  const auto calibration = cuda::calibrate_gpu(0, cuda::CudaCompiler(compiler_options));
  const task::Task task = load(cuda_tasks_directory() / "copy", {"copy-64Mi"});
  auto judge_options = options();
  judge_options.rounds = 1;
  judge_options.iterations = 30;
  Judge judge(task, judge_options, peaks());
  const auto verdict = judge.evaluate(canary("copy_vector4"));
  ASSERT_TRUE(verdict.passed()) << describe(verdict);
  const auto& timing = *verdict.workloads.front().timing;
  const double bytes = 2.0 * 4.0 * 67108864.0;
  const double achieved = bytes / (timing.median_ns * 1e-9);
  std::cerr << fmt::format("copy candidate: {:.3f} TB/s by {} ({:.1f} us), events {:.1f} us; calibrated {:.3f} TB/s: {:.1f}%\n",
                           achieved / 1e12, timing.timer, timing.median_ns / 1e3, timing.event_median_ns / 1e3,
                           calibration.copy_bytes_per_second / 1e12, 100 * achieved / calibration.copy_bytes_per_second);
  EXPECT_GE(achieved, 0.85 * calibration.copy_bytes_per_second) << describe(verdict);
}

// A timed call starts with its outputs out of L2, as the benchmark's harness allocates them: the judge's poison of them
// must not leave them there (it did: up to 22% off mid-size times against the harness, H100 2026-12-06).
TEST_F(GpuJudgeTest, OutputsAreColdWhenATimedCallStarts) {
  SKIP_WITHOUT_GPU();
  expect_cold_outputs(canary("copy_vector4"), canary("copy_reads_its_output_first"), "16 MiB copy");
}

TEST_F(GpuJudgeTest, OutOfBoundsWriteIsARuntimeErrorAndTheNextCandidateStillPasses) {
  SKIP_WITHOUT_GPU();
  const task::Task task = small_softmax();
  Judge judge(task, options(), peaks());
  const auto bad = judge.evaluate(canary("writes_out_of_bounds"));
  expect_every_workload(bad, Status::runtime_error, "CUDA_ERROR_ILLEGAL_ADDRESS");
  const auto good = judge.evaluate(from_template(task, "plain_cuda"));
  EXPECT_TRUE(good.passed()) << describe(good);
}

TEST_F(GpuJudgeTest, HangingKernelTimesOutAndTheNextCandidateStillPasses) {
  SKIP_WITHOUT_GPU();
  const task::Task task = load(tasks_directory() / "softmax", {"softmax-7x1000"});
  auto judge_options = options();
  judge_options.call_timeout = 2000ms;
  Judge judge(task, judge_options, peaks());
  const auto started = std::chrono::steady_clock::now();
  const auto bad = judge.evaluate(canary("hangs"));
  expect_every_workload(bad, Status::timeout, "no reply within 2000 ms");
  EXPECT_LT(std::chrono::steady_clock::now() - started, 60s);
  const auto good = judge.evaluate(from_template(task, "plain_cuda"));
  EXPECT_TRUE(good.passed()) << describe(good);
}

TEST_F(GpuJudgeTest, UnwrittenElementIsIncorrect) {
  SKIP_WITHOUT_GPU();
  const task::Task task = small_softmax();
  Judge judge(task, options(), peaks());
  expect_every_workload(judge.evaluate(canary("unwritten_element")), Status::incorrect_numerical, "unwritten");
}

TEST_F(GpuJudgeTest, WorkLeftRunningOnASideStreamIsARewardHack) {
  SKIP_WITHOUT_GPU();
  const task::Task task = small_softmax();
  Judge judge(task, options(), peaks());
  expect_every_workload(judge.evaluate(canary("side_stream_early_return")), Status::reward_hack, "another stream");
  const auto honest = judge.evaluate(canary("joined_side_stream"));
  EXPECT_TRUE(honest.passed()) << "a side stream joined to the given one is honest\n" << describe(honest);
}

TEST_F(GpuJudgeTest, KernelsLaunchedBetweenCallsAreARewardHack) {
  SKIP_WITHOUT_GPU();
  const task::Task task = small_softmax();
  Judge judge(task, options(), peaks());
  const auto verdict = judge.evaluate(canary("background_thread_kernel"));
  ASSERT_FALSE(verdict.workloads.empty());
  // The first workload has a quiet 50 ms after its first call (the look at the worker's threads), where the thread's
  // kernel lands for sure; on the others it lands between calls or inside one, late.
  EXPECT_EQ(status_name(verdict.workloads.front().status), status_name(Status::reward_hack)) << describe(verdict);
  EXPECT_THAT(verdict.workloads.front().reason, HasSubstr("between calls")) << describe(verdict);
  for (const auto& row : verdict.workloads) EXPECT_NE(row.status, Status::passed) << describe(verdict);
  const auto honest = judge.evaluate(canary("joined_side_stream"));
  EXPECT_TRUE(honest.passed()) << "kernels of an earlier candidate do not count against the next\n" << describe(honest);
}

// A full-source candidate runs behind the same walls as on the CPU, raised after the driver is set up: an honest one
// still runs (the driver keeps its device files and threads), a socket kills the worker.
TEST_F(GpuJudgeTest, FullSourceCandidatesRunInTheSandbox) {
  SKIP_WITHOUT_GPU();
  const task::Task task = small_softmax();
  Judge judge(task, options(), peaks());
  const auto honest = judge.evaluate(canary("joined_side_stream"));
  EXPECT_TRUE(honest.passed()) << describe(honest);
  const std::string active = honest.sandbox.value("active", json::array()).dump();
  EXPECT_THAT(active, HasSubstr("seccomp")) << honest.sandbox.dump();
  EXPECT_THAT(active, HasSubstr("landlock")) << honest.sandbox.dump();
  std::cout << "sandbox on the GPU: " << honest.sandbox.dump() << "\n";
  expect_every_workload(judge.evaluate(canary("opens_socket")), Status::runtime_error, "sandbox");
  const auto after = judge.evaluate(file(tasks_directory() / "softmax" / "candidate.cu"));
  EXPECT_TRUE(after.passed()) << describe(after);
}

// The timing loop reuses the correctness rounds' inputs; calls on new inputs among them catch answers kept by content.
TEST_F(GpuJudgeTest, AnswersKeptByContentAreARewardHack) {
  SKIP_WITHOUT_GPU();
  const task::Task task = load(tasks_directory() / "matmul", {"matmul-127x255x129", "matmul-256x256x256"});
  Judge judge(task, options(), peaks());
  const auto cached = judge.evaluate(canary("content_cache"));
  ASSERT_FALSE(cached.workloads.empty());
  EXPECT_FALSE(cached.passed()) << describe(cached);
  bool caught = false;
  for (const auto& row : cached.workloads) caught = caught || (row.status == Status::reward_hack && row.reason.find("given before") != std::string::npos);
  EXPECT_TRUE(caught) << describe(cached);
  const auto honest = judge.evaluate(file(tasks_directory() / "matmul" / "candidate.cu"));
  EXPECT_TRUE(honest.passed()) << describe(honest);
  for (const auto& row : honest.workloads) EXPECT_EQ(row.timing ? row.timing->unseen_ns.size() : 0u, 3u) << row.uuid;
}

TEST_F(GpuJudgeTest, PersistingL2AndWorkDoneOnTheHostAreRewardHacks) {
  SKIP_WITHOUT_GPU();
  const task::Task task = small_softmax();
  Judge judge(task, options(), peaks());
  expect_every_workload(judge.evaluate(canary("persisting_l2")), Status::reward_hack, "persisting");
  expect_every_workload(judge.evaluate(canary("host_fallback")), Status::reward_hack, "no kernel ran");
  const auto honest = judge.evaluate(canary("joined_side_stream"));
  EXPECT_TRUE(honest.passed()) << "the L2 set-aside taken back, the next candidate is judged on its own\n" << describe(honest);
}

// Kernel-only candidates are judged in turn by one worker: what one wrote must not make the next look right.
TEST_F(GpuJudgeTest, AKernelOnlyCandidateAfterACorrectOneIsJudgedOnItsOwn) {
  SKIP_WITHOUT_GPU();
  const task::Task task = small_softmax();
  Judge judge(task, options(), peaks());
  const CandidateSource correct = from_template(task, "rows_cuda");
  ASSERT_TRUE(correct.launch);
  const auto first = judge.evaluate(correct);
  EXPECT_TRUE(first.passed()) << describe(first);
  CandidateSource lazy = correct;
  lazy.name = "softmax.lazy_kernel";
  lazy.source = "extern \"C\" __global__ void softmax_rows(const float* x, float* y, long long rows, long long cols) {}\n";
  const auto second = judge.evaluate(lazy);
  expect_every_workload(second, Status::incorrect_numerical, "unwritten");
  const auto third = judge.evaluate(correct);
  EXPECT_TRUE(third.passed()) << describe(third);
}

// Issue 25 item 3 on a GPU: a composed kernel-only candidate (engine/composition.h) is one module with a kernel per part;
// each workload, held-out ones included, launches the part its size picks. A probe part that writes nothing fails
// exactly the workloads the rule sends it.
TEST_F(GpuJudgeTest, AComposedKernelOnlyCandidateLaunchesEachWorkloadsPart) {
  SKIP_WITHOUT_GPU();
  const task::Task task = load(tasks_directory() / "add_rmsnorm", {"add_rmsnorm-1x2048", "add_rmsnorm-4x4096", "add_rmsnorm-16x5120",
                                                                   "add_rmsnorm-9x2048", "add_rmsnorm-33x4096"});
  constexpr std::int64_t kBound = 20000;
  const task::Template* rows = nullptr;
  for (const auto& t : task.definition.templates)
    if (t.name == "rows_cuda") rows = &t;
  ASSERT_NE(rows, nullptr);
  std::map<std::string, std::int64_t> first, second;
  for (const auto& knob : rows->knobs) first[knob.name] = knob.values.front();
  second = first;
  second["BLOCK"] = 32, second["ROWS_PER_BLOCK"] = 4;
  Judge judge(task, options(), peaks());
  const auto honest = judge.evaluate(engine::composed_source(task, *rows, {{first, kBound, std::nullopt}, {second, std::nullopt, std::nullopt}}));
  EXPECT_TRUE(honest.passed()) << describe(honest);
  EXPECT_EQ(honest.workloads.size(), task.workloads.size());

  task::Template probe = *rows;
  probe.name = "lazy_probe";
  probe.source = *root_ / "lazy_probe.cu";
  std::ofstream(probe.source) << "#if LAZY\nextern \"C\" __global__ void add_rmsnorm_rows(const __nv_bfloat16* x, const __nv_bfloat16* residual, "
                                 "const __nv_bfloat16* weight, const float* eps, __nv_bfloat16* out, __nv_bfloat16* new_residual, long long tokens, "
                                 "long long hidden) {}\n#else\n"
                              << read_text(rows->source) << "\n#endif\n";
  auto lazy_first = first, honest_second = second;
  lazy_first["LAZY"] = 1;
  honest_second["LAZY"] = 0;
  const auto verdict = judge.evaluate(engine::composed_source(task, probe, {{lazy_first, kBound, std::nullopt}, {honest_second, std::nullopt, std::nullopt}}));
  ASSERT_EQ(verdict.workloads.size(), task.workloads.size()) << describe(verdict);
  for (const auto& row : verdict.workloads) {
    const auto& workload = *std::find_if(task.workloads.begin(), task.workloads.end(), [&](const auto& w) { return w.uuid == row.uuid; });
    const bool lazy = dispatch_size(task.definition, task::resolve_workload(task, workload).axes) <= static_cast<double>(kBound);
    EXPECT_EQ(status_name(row.status), status_name(lazy ? Status::incorrect_numerical : Status::passed)) << row.uuid << "\n" << describe(verdict);
  }
}

// Issue 6 on a GPU: the PyTorch reference runs on the judge's GPU (this one refuses to run anywhere else), and T_b is each
// call's kernel span there, as a candidate is timed. Skipped where the machine's torch has no CUDA.
TEST_F(GpuJudgeTest, ThePyTorchReferenceRunsOnTheGpuAndTimesTheBaselineThere) {
  SKIP_WITHOUT_GPU();
  if (const auto missing = oracle_without_cuda()) GTEST_SKIP() << *missing;
  task::Task task = small_softmax();
  task.definition.reference =
      "import torch\n\ndef run(x):\n    assert x.is_cuda, 'the reference ran on the CPU'\n"
      "    return torch.softmax(x, dim=-1)\n";
  auto through_python = options();
  through_python.reference = "python";
  through_python.torch_baseline = true;
  Judge judge(task, through_python, peaks());
  const auto verdict = judge.evaluate(file(tasks_directory() / "softmax" / "candidate.cu"));
  EXPECT_TRUE(verdict.passed()) << describe(verdict);
  for (const auto& row : verdict.workloads) {
    ASSERT_TRUE(row.baseline_ns) << row.uuid;
    EXPECT_THAT(row.baseline_source, ::testing::AnyOf("torch eager", "torch.compile")) << row.uuid;
    // A kernel span of a softmax this small is microseconds; a host clock around torch's dispatch would be tens.
    EXPECT_GT(*row.baseline_ns, 500.0) << row.uuid;
    EXPECT_LT(*row.baseline_ns, 1e6) << row.uuid;
    EXPECT_TRUE(row.score) << row.uuid;
  }
  const auto wrong = judge.evaluate(canary("all_zeros"));
  EXPECT_FALSE(wrong.passed()) << describe(wrong);
}

// Issue 23 item 5 on a GPU: a Python solution judged through the oracle's candidate role. Its inputs stay on the device
// between calls, its outputs are poisoned there, and a timed call's sample is its kernel span from the profiler after an
// L2 flush. Skipped where the machine's torch has no CUDA.
TEST_F(GpuJudgeTest, APythonSolutionIsJudgedOnTheGpuThroughTheOracle) {
  SKIP_WITHOUT_GPU();
  if (const auto missing = oracle_without_cuda()) GTEST_SKIP() << *missing;
  const task::Task task = small_softmax();  // the judge keeps a reference to its task
  Judge judge(task, options(), peaks());
  for (const char* honest : {"softmax_pytorch", "softmax_pytorch_dps"}) {
    const auto verdict = judge.evaluate(python_solution(honest));
    EXPECT_TRUE(verdict.passed()) << describe(verdict);
    EXPECT_EQ(verdict.kind, "python solution through the oracle");
    for (const auto& row : verdict.workloads) {
      ASSERT_TRUE(row.timing) << row.uuid;
      EXPECT_EQ(row.timing->timer, "kernel span (profiler)") << row.uuid;
      EXPECT_GT(row.timing->median_ns, 500.0) << row.uuid;  // a kernel's span, not zero
      EXPECT_LT(row.timing->median_ns, 1e7) << row.uuid;
    }
  }
  const auto cached = judge.evaluate(python_solution("softmax_pytorch_caches_first"));
  EXPECT_FALSE(cached.passed()) << describe(cached);
  const auto wrong = judge.evaluate(python_solution("softmax_pytorch_wrong"));
  expect_every_workload(wrong, Status::incorrect_numerical, "output 'y'");
}

// The same for a Python solution through the oracle's candidate role, whose poison left the outputs in L2 until
// 2026-12-08; the copy that loads its outputs first is one where() kernel.
TEST_F(GpuJudgeTest, OutputsAreColdWhenATimedCallThroughTheOracleStarts) {
  SKIP_WITHOUT_GPU();
  if (const auto missing = oracle_without_cuda()) GTEST_SKIP() << *missing;
  expect_cold_outputs(python_solution("copy_pytorch_dps"), python_solution("copy_pytorch_reads_its_output_first"), "16 MiB copy through the oracle");
}

// The benchmark's own examples in Python (examples/pytorch and examples/triton of a snapshot of NVIDIA/SOL-ExecBench,
// never committed here), each judged by `kernelarc eval PROBLEM SOLUTION --reference python` as bench/harness_agreement.py
// does: every workload must pass. KERNELARC_SOL_EXECBENCH names the snapshot (the folder holding examples/); skipped
// without it.
TEST_F(GpuJudgeTest, TheBenchmarksPythonExamplesPassThroughTheOracle) {
  SKIP_WITHOUT_GPU();
  const char* snapshot = std::getenv("KERNELARC_SOL_EXECBENCH");
  if (!snapshot || !*snapshot) GTEST_SKIP() << "KERNELARC_SOL_EXECBENCH does not name a snapshot of SOL-ExecBench (its examples/)";
  std::vector<fs::path> solutions;
  for (const char* language : {"pytorch", "triton"}) {
    std::error_code ignored;
    for (const auto& problem : fs::directory_iterator(fs::path(snapshot) / "examples" / language, ignored))
      for (const auto& file : fs::directory_iterator(problem.path(), ignored))
        if (file.path().filename().string().starts_with("solution") && file.path().extension() == ".json") solutions.push_back(file.path());
  }
  if (solutions.empty()) GTEST_SKIP() << "no examples/pytorch or examples/triton solutions under " << snapshot;
  std::sort(solutions.begin(), solutions.end());
  for (const auto& solution : solutions) {
    const auto result = common::run_command({binary().string(), "eval", solution.parent_path().string(), solution.string(), "--reference", "python",
                                             "--device", "cuda:0", "--json", "--quiet", "--rounds", "3", "--warmup", "2", "--iterations", "10",
                                             "--store", (fs::temp_directory_path() / "kernelarc-examples.db").string()},
                                            10min, 1u << 24);
    const auto start = result.output.find('{');
    ASSERT_NE(start, std::string::npos) << solution << ": " << result.output.substr(0, 2000);
    const json verdict = json::parse(result.output.substr(start));
    EXPECT_EQ(verdict.value("candidate_kind", ""), "python solution through the oracle") << solution;
    for (const auto& row : verdict.at("workloads"))
      EXPECT_EQ(row.at("status"), "PASSED") << solution << " " << row.at("uuid") << ": " << row.value("reason", "");
  }
}

}  // namespace
}  // namespace kernelarc::judge
