// The CPU judge's own overhead (issue: a 1 ms kernel costs under 1.2 ms per timed iteration plus
// the cache flush; a cached compile takes under 10 ms).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bench_paths.h"
#include "judge/build_cache.h"
#include "judge/comparison.h"
#include "judge/cpu_compiler.h"
#include "judge/input_generator.h"
#include "judge/judge.h"
#include "task/roofline.h"
#include "task/task.h"

namespace {

using namespace kernelarc;
using namespace kernelarc::bench;

void BM_CachedCompile(benchmark::State& state) {
  judge::CompilerOptions options;
  options.cache_directory = scratch() / "cache";
  judge::CpuCompiler compiler(options);
  const judge::BuildRequest request{judge::read_text_file(bench_tasks() / "spin_copy" / "spin_candidate.cpp"), {}, {{"SPIN_US", 7}}};
  if (!compiler.build(request).ok) state.SkipWithError("the fixture does not build");
  for (auto _ : state) {
    const auto result = compiler.build(request);
    if (!result.cache_hit) state.SkipWithError("expected a cache hit");
    benchmark::DoNotOptimize(result);
  }
}
BENCHMARK(BM_CachedCompile)->Unit(benchmark::kMillisecond);

// The judge's host-side work per correctness round on a large workload (8 Mi float32 values, a
// 2048 x 4096 softmax): generating one input and comparing one output.
constexpr std::int64_t kLargeRows = 2048, kLargeColumns = 4096;

void BM_GenerateLargeInput(benchmark::State& state) {
  const task::TensorSpec spec{"x", std::vector<std::string>{"rows", "columns"}, task::DType::float32, "logits"};
  std::uint64_t seed = 1;
  for (auto _ : state) benchmark::DoNotOptimize(judge::generate_input(spec, {kLargeRows, kLargeColumns}, {}, ++seed));
  state.SetItemsProcessed(state.iterations() * kLargeRows * kLargeColumns);
}
BENCHMARK(BM_GenerateLargeInput)->Unit(benchmark::kMillisecond);

void BM_CompareLargeOutput(benchmark::State& state) {
  const task::TensorSpec spec{"y", std::vector<std::string>{"rows", "columns"}, task::DType::float32, ""};
  const auto expected = judge::generate_input(spec, {kLargeRows, kLargeColumns}, {}, 1);
  auto actual = expected;
  task::Tolerance tolerance;
  for (auto _ : state) {
    const auto result = judge::compare_output("y", task::DType::float32, {kLargeRows, kLargeColumns}, actual.data(), expected.data(),
                                              tolerance, std::byte{0xFF});
    if (!result.passed) state.SkipWithError("identical outputs must pass");
  }
  state.SetItemsProcessed(state.iterations() * kLargeRows * kLargeColumns);
}
BENCHMARK(BM_CompareLargeOutput)->Unit(benchmark::kMillisecond);

void BM_JudgeTimedIteration(benchmark::State& state) {
  const auto task = task::load_task(bench_tasks() / "spin_copy");
  judge::JudgeOptions options;
  options.rounds = 1;
  options.warmup = 2;
  options.iterations = 30;
  options.seed = 1;
  options.worker_executable = kernelarc_binary();
  options.compiler.cache_directory = scratch() / "cache";
  task::DevicePeaks peaks{"bench", 1e12, {{"fp32", 1e12}}, "fixed"};
  judge::Judge judge(task, options, peaks);
  const judge::CandidateSource candidate{"spin_copy.spin.SPIN_US" + std::to_string(state.range(0)),
                                         judge::read_text_file(task.definition.templates.front().source), {}, {{"SPIN_US", state.range(0)}}};
  double wall = 0, median = 0, overhead = 0, flush = 0, judge_cost = 0, without_flush = 0;
  for (auto _ : state) {
    const auto verdict = judge.evaluate(candidate);
    if (!verdict.passed() || !verdict.workloads.front().timing) {
      state.SkipWithError(verdict.workloads.front().reason.c_str());
      break;
    }
    const auto& timing = *verdict.workloads.front().timing;
    wall = timing.wall_per_iteration_ns / 1e6;
    median = timing.median_ns / 1e6;
    overhead = timing.call_overhead_ns / 1e6;
    flush = timing.flush_ns / 1e6;
    judge_cost = timing.judge_overhead_ns / 1e6;
    double sample_total = 0;
    for (double sample : timing.samples_ns) sample_total += sample;
    // The wall time per iteration less the mean flush: the figure the 1.2 ms target is about.
    without_flush = (sample_total / static_cast<double>(timing.samples_ns.size()) + timing.judge_overhead_ns) / 1e6;
  }
  state.counters["kernel_ms"] = static_cast<double>(state.range(0)) / 1000.0;
  state.counters["measured_ms"] = median;
  state.counters["wall_per_iter_ms"] = wall;
  state.counters["flush_ms"] = flush;
  state.counters["wall_minus_flush_ms"] = without_flush;
  state.counters["judge_overhead_ms"] = judge_cost;
  state.counters["call_overhead_ms"] = overhead;
}
BENCHMARK(BM_JudgeTimedIteration)->Arg(1000)->Arg(100)->Iterations(2)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
