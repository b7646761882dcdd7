// The device backends' registry (judge/backend.h): the CPU's is always there, a name it does not know is refused naming
// the known ones, and the judge's protocol defaults come from the device's backend.
#include "judge/backend.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "judge/judge.h"
#include "task/roofline.h"
#include "task/task_library.h"

namespace kernelarc::judge {
namespace {

using ::testing::HasSubstr;

TEST(BackendTest, TheCpuBackendIsAlwaysAvailableAndFirst) {
  const auto backends = available_backends();
  ASSERT_FALSE(backends.empty());
  EXPECT_EQ(backends.front()->kind(), "cpu");
  EXPECT_EQ(&backend_for("cpu"), &cpu_backend());
  EXPECT_EQ(find_backend("cpu"), &cpu_backend());
  EXPECT_EQ(device_unavailable_reason("cpu"), std::nullopt);
  EXPECT_FALSE(cpu_backend().device_memory()) << "the shared buffer is the CPU candidate's memory";
}

TEST(BackendTest, DeviceNamesAreParsedAndWrittenBackTheSameWay) {
  EXPECT_EQ(parse_device("cpu")->text(), "cpu");
  EXPECT_EQ(parse_device("cuda")->text(), "cuda:0") << "plain cuda is the first GPU";
  const auto third = parse_device("cuda:2");
  ASSERT_TRUE(third.has_value());
  EXPECT_EQ(third->kind, "cuda");
  EXPECT_EQ(third->ordinal, 2);
  for (const char* wrong : {"", "gpu", "tpu", "cuda:", "cuda:x", "cuda:1a", "cpu:0", "CPU", "cuda:99999"})
    EXPECT_EQ(parse_device(wrong), std::nullopt) << wrong;
  EXPECT_EQ(known_device_names(), "cpu or cuda:N") << "a device this build lacks is still a name it knows";
}

TEST(BackendTest, AnUnknownDeviceIsRefusedNamingTheKnownOnes) {
  try {
    backend_for("tpu:0");
    FAIL() << "an unknown device must be refused";
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(), "unknown device \"tpu:0\" (expected cpu or cuda:N)");
  }
  EXPECT_EQ(find_backend("tpu:0"), nullptr);
  EXPECT_THAT(device_unavailable_reason("tpu:0").value_or(""), HasSubstr("expected cpu or cuda:N"));
}

TEST(BackendTest, TheCudaBackendIsThereExactlyWhenTheBuildHasIt) {
  if (cuda_backend() == nullptr) {
    EXPECT_EQ(find_backend("cuda:0"), nullptr);
    EXPECT_THROW(backend_for("cuda:0"), std::runtime_error);
    EXPECT_THAT(device_unavailable_reason("cuda:0").value_or(""), HasSubstr("this build has no CUDA support"));
    EXPECT_EQ(available_backends().size(), 1u);
    return;
  }
  const Backend& cuda = backend_for("cuda:1");
  EXPECT_EQ(&cuda, cuda_backend());
  EXPECT_EQ(cuda.kind(), "cuda");
  EXPECT_TRUE(cuda.device_memory());
  EXPECT_EQ(cuda.own_native_reference(), "cuda");
  EXPECT_TRUE(cuda.library_lookups_allowed()) << "the CUDA runtime in every GPU candidate needs dlopen";
  EXPECT_EQ(available_backends().size(), 2u);
  // No driver here, or a GPU: either way the answer is a reason or none, never a throw.
  EXPECT_NO_THROW(device_unavailable_reason("cuda:0"));
}

void expect_protocol(const JudgeProtocol& protocol, int rounds, int warmup, int iterations, int rechecks, int unseen_calls,
                     double roofline_margin) {
  EXPECT_EQ(protocol.rounds, rounds);
  EXPECT_EQ(protocol.warmup, warmup);
  EXPECT_EQ(protocol.iterations, iterations);
  EXPECT_EQ(protocol.rechecks, rechecks);
  EXPECT_EQ(protocol.unseen_calls, unseen_calls);
  EXPECT_EQ(protocol.roofline_margin, roofline_margin);
}

TEST(BackendTest, TheJudgesProtocolDefaultsComeFromTheBackend) {
  // A run's search on the CPU is light; eval's protocol is the thorough one; measured CPU peaks get a margin of 2.
  expect_protocol(cpu_backend().protocol(ProtocolUse::search), 2, 1, 5, 1, 1, 2.0);
  expect_protocol(cpu_backend().protocol(ProtocolUse::evaluation), 10, 10, 50, 5, 3, 2.0);
  if (const Backend* cuda = cuda_backend()) {
    expect_protocol(cuda->protocol(ProtocolUse::search), 5, 5, 20, 5, 3, 1.0);
    expect_protocol(cuda->protocol(ProtocolUse::evaluation), 10, 10, 50, 5, 3, 1.0);
    expect_protocol(cuda->protocol(ProtocolUse::screening), 1, 2, 10, 0, 0, 1.0);
    EXPECT_FALSE(cuda->protocol(ProtocolUse::screening).stricter_rounds);
  }
  // Screening ranks configurations: one round, a few timed calls, none of the extra calls of the hack checks.
  expect_protocol(cpu_backend().protocol(ProtocolUse::screening), 1, 1, 5, 0, 0, 2.0);
  EXPECT_FALSE(cpu_backend().protocol(ProtocolUse::screening).stricter_rounds);
  EXPECT_TRUE(cpu_backend().protocol(ProtocolUse::search).stricter_rounds);
  // The checks of each correctness call (inputs unchanged, a second call with another poison) are left out only where
  // nothing is decided: a full judgement keeps them on every device.
  for (const Backend* backend : {&cpu_backend(), cuda_backend()}) {
    if (!backend) continue;
    EXPECT_TRUE(backend->protocol(ProtocolUse::search).checks_each_call) << backend->display_name();
    EXPECT_TRUE(backend->protocol(ProtocolUse::evaluation).checks_each_call) << backend->display_name();
    EXPECT_FALSE(backend->protocol(ProtocolUse::screening).checks_each_call) << backend->display_name();
  }
  EXPECT_TRUE(JudgeOptions{}.checks_each_call);
  // One untimed call at least before the timed ones, whatever --warmup says: the first call after the probes is cold.
  JudgeOptions no_warmup;
  no_warmup.warmup = 0;
  EXPECT_EQ(no_warmup.warmup_calls(), 1);
  no_warmup.warmup = 7;
  EXPECT_EQ(no_warmup.warmup_calls(), 7);
  // JudgeOptions starts from the thorough protocol, and takes a backend's whole.
  JudgeOptions options;
  expect_protocol({options.rounds, options.warmup, options.iterations, options.rechecks, options.unseen_calls, options.roofline_margin}, 10,
                  10, 50, 5, 3, 1.0);
  options.use_protocol(cpu_backend().protocol(ProtocolUse::search));
  expect_protocol({options.rounds, options.warmup, options.iterations, options.rechecks, options.unseen_calls, options.roofline_margin}, 2, 1,
                  5, 1, 1, 2.0);
}

TEST(BackendTest, TheCpuBackendWallsAndEnvironmentAreItsOwn) {
  SandboxPolicy policy;
  cpu_backend().adjust_candidate_policy(policy);
  EXPECT_FALSE(policy.signal_handlers) << "the worker flushes the caches on its main thread";
  EXPECT_GT(policy.address_space_bytes, 0u) << "half the memory at most";
  EXPECT_FALSE(cpu_backend().python_solution_children());
  EXPECT_EQ(cpu_backend().candidate_environment(false).at("KERNELARC_WORKER_SPIN_MS"), "0");
  EXPECT_EQ(cpu_backend().candidate_environment(true).at("OMP_WAIT_POLICY"), "PASSIVE");
  EXPECT_FALSE(cpu_backend().builds_while_timing()) << "compiles would disturb the CPU's timing";
  EXPECT_EQ(cpu_backend().clock_mhz(0), std::nullopt);
}

}  // namespace
}  // namespace kernelarc::judge

namespace kernelarc::judge {
namespace {

// A CPU has no tensor cores: a bf16 GEMM task (math tensor_core_bf16) is judged there against the CPU's fp32 rate, so
// the CPU backend can judge it, and its roofline is one the CPU can reach (tasks/gemm_bf16 on its small workloads).
TEST(BackendTest, TheCpuJudgesTensorCoreMathAtItsFp32Rate) {
  PeakOverrides overrides;
  overrides.bandwidth_gbps = 20;
  overrides.gflops = 100;
  const auto peaks = cpu_backend().peaks(0, CompilerOptions{}, overrides, nullptr);
  EXPECT_DOUBLE_EQ(peaks.flops_per_second.at("fp32"), 100e9);
  for (const char* kind : {"tensor_core_bf16", "tensor_core_fp16", "tensor_core_fp8"})
    EXPECT_DOUBLE_EQ(peaks.flops_per_second.at(kind), 100e9) << kind;
  const auto task = task::load_task(std::filesystem::path(KERNELARC_TASKS) / "gemm_bf16");
  ASSERT_EQ(task.definition.roofline.math, "tensor_core_bf16");
  const auto workload =
      std::find_if(task.workloads.begin(), task.workloads.end(), [](const auto& w) { return w.uuid == "gemm_bf16-1x4096x4096"; });
  ASSERT_NE(workload, task.workloads.end());
  const auto estimate = task::estimate_roofline(task, task::resolve_workload(task, *workload), peaks);
  EXPECT_DOUBLE_EQ(estimate.flops, 2.0 * 4096 * 4096);
  // 2 * (4096 + 4096 * 4096 + 4096) bytes at 20 GB/s against 2 * 4096^2 FLOP at 100 GFLOP/s: the weight's bytes rule.
  EXPECT_EQ(estimate.bound, "memory");
  EXPECT_NEAR(estimate.seconds, 2.0 * (4096 + 4096.0 * 4096 + 4096) / 20e9, 1e-12);
}

}  // namespace
}  // namespace kernelarc::judge
