#include "task/roofline.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

namespace kernelarc::task {
namespace {

using ::testing::HasSubstr;

TensorSpec tensor(const std::string& name, DType dtype, std::optional<std::vector<std::string>> shape) {
  TensorSpec spec;
  spec.name = name;
  spec.dtype = dtype;
  spec.shape = std::move(shape);
  return spec;
}

// C[M, N] = A[M, K] @ B[K, N] in bfloat16 with an fp32 scalar alpha.
Task gemm_task(std::optional<std::string> flops, std::optional<std::string> bytes, std::string math) {
  Task task;
  task.directory = "/tasks/gemm";
  task.definition.name = "gemm";
  task.definition.inputs = {tensor("a", DType::bfloat16, std::vector<std::string>{"M", "K"}),
                            tensor("b", DType::bfloat16, std::vector<std::string>{"K", "N"}),
                            tensor("alpha", DType::float32, std::nullopt)};
  task.definition.outputs = {tensor("c", DType::bfloat16, std::vector<std::string>{"M", "N"})};
  if (flops) task.definition.roofline.flops = Expression::parse(*flops);
  if (bytes) task.definition.roofline.bytes = Expression::parse(*bytes);
  task.definition.roofline.math = std::move(math);
  return task;
}

ResolvedWorkload gemm_workload(std::int64_t m, std::int64_t n, std::int64_t k) {
  ResolvedWorkload workload;
  workload.axes = {{"M", static_cast<double>(m)}, {"N", static_cast<double>(n)}, {"K", static_cast<double>(k)}};
  workload.input_shapes = {{m, k}, {k, n}, {}};
  workload.output_shapes = {{m, n}};
  return workload;
}

DevicePeaks h200() {
  auto peaks = known_gpu_peaks("NVIDIA H200");
  EXPECT_TRUE(peaks.has_value());
  return peaks.value_or(DevicePeaks{});
}

// ---- datasheet peaks ----

TEST(RooflineTest, KnownPeaksH200) {
  const auto peaks = known_gpu_peaks("NVIDIA H200");
  ASSERT_TRUE(peaks.has_value());
  EXPECT_EQ(peaks->name, "NVIDIA H200");
  EXPECT_DOUBLE_EQ(peaks->bytes_per_second, 4.8e12);
  EXPECT_DOUBLE_EQ(peaks->flops_per_second.at("tensor_core_bf16"), 989e12);
  EXPECT_DOUBLE_EQ(peaks->flops_per_second.at("tensor_core_fp16"), 989e12);
  EXPECT_DOUBLE_EQ(peaks->flops_per_second.at("tensor_core_fp8"), 1979e12);
  EXPECT_DOUBLE_EQ(peaks->flops_per_second.at("fp32"), 67e12);
  EXPECT_EQ(peaks->source, "datasheet");
  // The same card as a driver may spell it.
  const auto nvl = known_gpu_peaks("NVIDIA H200 NVL");
  ASSERT_TRUE(nvl.has_value());
  EXPECT_DOUBLE_EQ(nvl->bytes_per_second, 4.8e12);
}

TEST(RooflineTest, KnownPeaksH100Variants) {
  const auto sxm = known_gpu_peaks("NVIDIA H100 80GB HBM3");
  ASSERT_TRUE(sxm.has_value());
  EXPECT_EQ(sxm->name, "NVIDIA H100 SXM");
  EXPECT_DOUBLE_EQ(sxm->bytes_per_second, 3.35e12);
  EXPECT_DOUBLE_EQ(sxm->flops_per_second.at("tensor_core_bf16"), 989e12);
  EXPECT_DOUBLE_EQ(sxm->flops_per_second.at("tensor_core_fp8"), 1979e12);
  // The PCIe card is slower and must not be taken for the SXM one.
  const auto pcie = known_gpu_peaks("NVIDIA H100 PCIe");
  ASSERT_TRUE(pcie.has_value());
  EXPECT_EQ(pcie->name, "NVIDIA H100 PCIe");
  EXPECT_DOUBLE_EQ(pcie->bytes_per_second, 2.0e12);
  EXPECT_DOUBLE_EQ(pcie->flops_per_second.at("tensor_core_bf16"), 756e12);
}

TEST(RooflineTest, KnownPeaksOthersAndUnknown) {
  const auto a100 = known_gpu_peaks("NVIDIA A100-SXM4-80GB");
  ASSERT_TRUE(a100.has_value());
  EXPECT_DOUBLE_EQ(a100->bytes_per_second, 2.039e12);
  EXPECT_DOUBLE_EQ(a100->flops_per_second.at("tensor_core_bf16"), 312e12);
  EXPECT_EQ(a100->flops_per_second.count("tensor_core_fp8"), 0u);  // Ampere has no fp8 tensor cores
  const auto b200 = known_gpu_peaks("NVIDIA B200");
  ASSERT_TRUE(b200.has_value());
  EXPECT_DOUBLE_EQ(b200->bytes_per_second, 8.0e12);
  EXPECT_FALSE(known_gpu_peaks("NVIDIA GeForce RTX 4090").has_value());
  EXPECT_FALSE(known_gpu_peaks("Tesla V100-SXM2-16GB").has_value());
  EXPECT_FALSE(known_gpu_peaks("").has_value());
  EXPECT_FALSE(known_gpu_peaks("h200").has_value());  // matching is case-sensitive, as drivers report
}

// ---- estimate_roofline ----

TEST(RooflineTest, MemoryBoundExact) {
  // 4.8e9 bytes at 4.8 TB/s is 1 ms; 989e6 flops at 989 TFLOP/s is 1 us.
  const Task task = gemm_task("F", "B", "tensor_core_bf16");
  ResolvedWorkload workload = gemm_workload(1, 1, 1);
  workload.axes["F"] = 989e6;
  workload.axes["B"] = 4.8e9;
  const auto estimate = estimate_roofline(task, workload, h200());
  EXPECT_DOUBLE_EQ(estimate.flops, 989e6);
  EXPECT_DOUBLE_EQ(estimate.bytes, 4.8e9);
  EXPECT_DOUBLE_EQ(estimate.seconds, 1e-3);
  EXPECT_EQ(estimate.bound, "memory");
}

TEST(RooflineTest, ComputeBoundExact) {
  // 8192^3 GEMM in bf16: 2 * 8192^3 flops over 989 TFLOP/s; bytes 3 * 8192^2 * 2 over 4.8 TB/s is far less.
  const Task task = gemm_task("2 * M * N * K", std::nullopt, "tensor_core_bf16");
  const auto estimate = estimate_roofline(task, gemm_workload(8192, 8192, 8192), h200());
  EXPECT_DOUBLE_EQ(estimate.flops, 1099511627776.0);
  EXPECT_DOUBLE_EQ(estimate.bytes, 3.0 * 8192 * 8192 * 2 + 4);
  EXPECT_DOUBLE_EQ(estimate.seconds, 1099511627776.0 / 989e12);
  EXPECT_NEAR(estimate.seconds, 1.11174e-3, 1e-8);
  EXPECT_EQ(estimate.bound, "compute");
}

TEST(RooflineTest, ExactSecondsWithSimplePeaks) {
  DevicePeaks peaks;
  peaks.name = "toy";
  peaks.bytes_per_second = 1000;
  peaks.flops_per_second["fp32"] = 500;
  const Task task = gemm_task("M * N", "K", "fp32");
  // 6 flops at 500/s = 0.012 s; 30 bytes at 1000/s = 0.03 s.
  auto estimate = estimate_roofline(task, gemm_workload(2, 3, 30), peaks);
  EXPECT_DOUBLE_EQ(estimate.seconds, 0.03);
  EXPECT_EQ(estimate.bound, "memory");
  // 600 flops = 1.2 s against 0.03 s.
  estimate = estimate_roofline(task, gemm_workload(20, 30, 30), peaks);
  EXPECT_DOUBLE_EQ(estimate.seconds, 1.2);
  EXPECT_EQ(estimate.bound, "compute");
}

TEST(RooflineTest, DefaultBytesAreInputsPlusOutputs) {
  // a [4, 8] bf16 = 64 B, b [8, 2] bf16 = 32 B, alpha scalar fp32 = 4 B, c [4, 2] bf16 = 16 B: 116 B.
  DevicePeaks peaks;
  peaks.name = "one byte per second";
  peaks.bytes_per_second = 1;
  const Task task = gemm_task(std::nullopt, std::nullopt, "fp32");
  const auto estimate = estimate_roofline(task, gemm_workload(4, 2, 8), peaks);
  EXPECT_DOUBLE_EQ(estimate.bytes, 116);
  EXPECT_DOUBLE_EQ(estimate.flops, 0);
  EXPECT_DOUBLE_EQ(estimate.seconds, 116);
  EXPECT_EQ(estimate.bound, "memory");
}

TEST(RooflineTest, TheFloorLeavesOutTheOutputsTheCacheHolds) {
  // 116 B moved, 16 B of them the output c. Without a cache the floor is T_sol; a cache of 10 B takes 10 B off it, one
  // of 64 B the whole output, never an input's bytes. A compute bound is never lowered.
  DevicePeaks peaks;
  peaks.name = "one byte per second";
  peaks.bytes_per_second = 1;
  peaks.flops_per_second["fp32"] = 1;
  const Task task = gemm_task(std::nullopt, std::nullopt, "fp32");
  EXPECT_DOUBLE_EQ(estimate_roofline(task, gemm_workload(4, 2, 8), peaks).floor_seconds, 116);
  peaks.cache_bytes = 10;
  auto estimate = estimate_roofline(task, gemm_workload(4, 2, 8), peaks);
  EXPECT_DOUBLE_EQ(estimate.seconds, 116) << "T_sol itself is the benchmark's";
  EXPECT_DOUBLE_EQ(estimate.floor_seconds, 106);
  peaks.cache_bytes = 64;
  EXPECT_DOUBLE_EQ(estimate_roofline(task, gemm_workload(4, 2, 8), peaks).floor_seconds, 100);
  // A task's own bytes expression counting half of the traffic counts the outputs' share of it (8 of 58 B): only that
  // comes off, never more than the expression counted of them.
  const Task counted = gemm_task(std::nullopt, "58", "fp32");
  EXPECT_DOUBLE_EQ(estimate_roofline(counted, gemm_workload(4, 2, 8), peaks).floor_seconds, 50);
  const Task compute = gemm_task("1000", std::nullopt, "fp32");
  estimate = estimate_roofline(compute, gemm_workload(4, 2, 8), peaks);
  EXPECT_EQ(estimate.bound, "compute");
  EXPECT_DOUBLE_EQ(estimate.floor_seconds, 1000);
}

TEST(RooflineTest, DefaultBytesCountPackedTypes) {
  Task task;
  task.directory = "/tasks/packed";
  task.definition.inputs = {tensor("q", DType::float4_e2m1, std::vector<std::string>{"N"}),
                            tensor("p", DType::float4_e2m1fn_x2, std::vector<std::string>{"N"}),
                            tensor("z", DType::float64, std::vector<std::string>{})};  // 0-d: one element
  task.definition.outputs = {tensor("o", DType::float8_e4m3fn, std::vector<std::string>{"N"})};
  ResolvedWorkload workload;
  workload.axes = {{"N", 5}};
  workload.input_shapes = {{5}, {5}, {}};
  workload.output_shapes = {{5}};
  DevicePeaks peaks;
  peaks.bytes_per_second = 2;
  const auto estimate = estimate_roofline(task, workload, peaks);
  // 5 nibbles round up to 3 bytes, 5 packed bytes, 8 bytes, 5 bytes.
  EXPECT_DOUBLE_EQ(estimate.bytes, 3 + 5 + 8 + 5);
  EXPECT_DOUBLE_EQ(estimate.seconds, 10.5);
}

TEST(RooflineTest, ErrorWhenMathKindHasNoPeak) {
  const Task task = gemm_task("2 * M * N * K", std::nullopt, "tensor_core_fp8");
  const auto a100 = known_gpu_peaks("NVIDIA A100");
  ASSERT_TRUE(a100.has_value());
  try {
    estimate_roofline(task, gemm_workload(16, 16, 16), *a100);
    FAIL() << "expected a TaskError";
  } catch (const TaskError& error) {
    EXPECT_EQ(error.field(), "kernelarc.roofline.math");
    EXPECT_THAT(std::string(error.what()), HasSubstr("definition.json"));
    EXPECT_THAT(std::string(error.what()), HasSubstr("NVIDIA A100 SXM"));
    EXPECT_THAT(std::string(error.what()), HasSubstr("no peak rate for \"tensor_core_fp8\""));
  }
  // A misspelt math kind is the same error.
  const Task typo = gemm_task("1", std::nullopt, "tensorcore_bf16");
  EXPECT_THROW(estimate_roofline(typo, gemm_workload(1, 1, 1), h200()), TaskError);
  // No flops means no rate is needed.
  const Task memory_only = gemm_task(std::nullopt, "64", "tensor_core_fp8");
  const auto estimate = estimate_roofline(memory_only, gemm_workload(1, 1, 1), *a100);
  EXPECT_DOUBLE_EQ(estimate.seconds, 64 / 2.039e12);
}

TEST(RooflineTest, ExpressionFailuresAreTaskErrors) {
  const Task division = gemm_task("M / (K - K)", std::nullopt, "fp32");
  try {
    estimate_roofline(division, gemm_workload(2, 2, 2), h200());
    FAIL() << "expected a TaskError";
  } catch (const TaskError& error) {
    EXPECT_EQ(error.field(), "kernelarc.roofline");
  }
  const Task unknown = gemm_task(std::nullopt, "4 * L", "fp32");
  EXPECT_THROW(estimate_roofline(unknown, gemm_workload(2, 2, 2), h200()), TaskError);
  const Task negative = gemm_task("0 - M", std::nullopt, "fp32");
  try {
    estimate_roofline(negative, gemm_workload(2, 2, 2), h200());
    FAIL() << "expected a TaskError";
  } catch (const TaskError& error) {
    EXPECT_THAT(std::string(error.what()), HasSubstr("negative"));
  }
}

TEST(RooflineTest, BuiltInMatmulRoofline) {
  const Task task = load_task(KERNELARC_TASKS "/matmul");
  Workload workload;
  workload.uuid = "probe";
  workload.axes = {{"M", 1024}, {"N", 1024}, {"K", 1024}};
  const auto resolved = resolve_workload(task, workload);
  const auto estimate = estimate_roofline(task, resolved, h200());
  EXPECT_DOUBLE_EQ(estimate.flops, 2.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(estimate.bytes, 3.0 * 1024 * 1024 * 4);
  EXPECT_DOUBLE_EQ(estimate.seconds, 2.0 * 1024 * 1024 * 1024 / 67e12);
  EXPECT_EQ(estimate.bound, "compute");
}

// ---- sol_score ----

TEST(RooflineTest, SolScoreAnchors) {
  EXPECT_DOUBLE_EQ(sol_score(3.0, 1.0, 3.0), 0.5);  // at the baseline
  EXPECT_DOUBLE_EQ(sol_score(1.0, 1.0, 3.0), 1.0);  // at the speed of light
  EXPECT_DOUBLE_EQ(sol_score(2.0, 1.0, 3.0), 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(sol_score(5.0, 1.0, 3.0), 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(sol_score(11.0, 1.0, 3.0), 1.0 / 6.0);
  EXPECT_DOUBLE_EQ(sol_score(0.004, 0.001, 0.004), 0.5);
  EXPECT_DOUBLE_EQ(sol_score(0.0025, 0.001, 0.004), 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(sol_score(2e-6, 0.0, 1e-6), 1.0 / 3.0);  // no roofline: S = 1 / (1 + T / T_b)
}

TEST(RooflineTest, SolScoreTowardZeroWhenSlower) {
  double previous = 1.0;
  for (double t : {1.5, 3.0, 10.0, 100.0, 1e6}) {
    const double score = sol_score(t, 1.0, 3.0);
    EXPECT_LT(score, previous) << t;
    EXPECT_GT(score, 0.0) << t;
    previous = score;
  }
  EXPECT_LT(sol_score(1e9, 1.0, 3.0), 1e-8);
}

TEST(RooflineTest, SolScoreFasterThanLightIsCappedAtOne) {
  EXPECT_DOUBLE_EQ(sol_score(0.5, 1.0, 3.0), 1.0);
  EXPECT_DOUBLE_EQ(sol_score(0.0, 1.0, 3.0), 1.0);
}

TEST(RooflineTest, SolScoreDegenerateBaselineAtOrBelowSol) {
  // T_b <= T_sol: 1 when T <= T_sol, else 0.
  EXPECT_DOUBLE_EQ(sol_score(2.0, 2.0, 1.0), 1.0);
  EXPECT_DOUBLE_EQ(sol_score(1.5, 2.0, 1.0), 1.0);
  EXPECT_DOUBLE_EQ(sol_score(2.0000001, 2.0, 1.0), 0.0);
  EXPECT_DOUBLE_EQ(sol_score(1.0, 2.0, 2.0), 1.0);  // T_b == T_sol
  EXPECT_DOUBLE_EQ(sol_score(2.0, 2.0, 2.0), 1.0);
  EXPECT_DOUBLE_EQ(sol_score(3.0, 2.0, 2.0), 0.0);
}

}  // namespace
}  // namespace kernelarc::task
