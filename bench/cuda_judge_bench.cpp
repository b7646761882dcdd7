// The CUDA judge's own cost: an uncached NVRTC build, and candidates judged per minute on a GPU. Compiled into
// kernelarc_judge_bench only where the CUDA toolkit is found (bench/CMakeLists.txt).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <string>

#include "bench_paths.h"
#include "judge/build_cache.h"
#include "judge/cuda/cuda_compiler.h"
#include "judge/cuda/cuda_driver.h"
#include "judge/judge.h"
#include "task/roofline.h"
#include "task/task.h"

namespace {

using namespace kernelarc;
using namespace kernelarc::bench;

// An uncached NVRTC build of a kernel-only candidate (the built-in softmax template): a new knob value
// every iteration, so every build compiles (the target: under 150 ms).
void BM_NvrtcKernelCompile(benchmark::State& state) {
  judge::cuda::CudaCompilerOptions options;
  options.cache_directory = scratch() / "nvrtc-cache";
  const judge::cuda::CudaCompiler compiler(options);
  const std::string source = judge::read_text_file(bench_tasks() / ".." / ".." / "tasks" / "softmax" / "softmax_rows.cu");
  std::int64_t build = 0;
  for (auto _ : state) {
    const auto result = compiler.build_kernel({source, {}, {{"BLOCK", 256}, {"BUILD_NUMBER", ++build}}});
    if (!result.ok || result.cache_hit) state.SkipWithError("expected a fresh, successful build");
  }
}
BENCHMARK(BM_NvrtcKernelCompile)->Unit(benchmark::kMillisecond)->Iterations(10);

// Candidates judged per minute on a GPU (issue 3: a cached candidate of the 16-workload softmax in under 2 s), with
// the full protocol (10 rounds, 10 warm-up and 50 timed calls per workload) and one judge, as a run uses it: the
// first candidate makes every round's inputs and reference outputs, the next ones reuse them. Arg 0: the same
// kernel (cached build); arg 1: a new knob value each time (an NVRTC build each).
void BM_GpuSoftmaxCandidate(benchmark::State& state) {
  std::string why;
  if (!judge::cuda::load_driver(&why)) {
    state.SkipWithError(("no GPU: " + why).c_str());
    return;
  }
  const auto task = task::load_task(bench_tasks() / ".." / ".." / "tasks" / "softmax");
  judge::JudgeOptions options;
  options.device = "cuda:0";
  options.seed = 7;
  options.worker_executable = kernelarc_binary();
  options.compiler.cache_directory = scratch() / "gpu-cache";
  const auto* api = judge::cuda::load_driver();
  CUdevice device = 0;
  char name[256] = {};
  api->device_get(&device, 0);
  api->device_get_name(name, sizeof name, device);
  const auto peaks = task::known_gpu_peaks(name);
  if (!peaks) {
    state.SkipWithError("no datasheet peaks for this GPU");
    return;
  }
  judge::Judge judge(task, options, *peaks);
  judge::CandidateSource candidate;
  for (const auto& tmpl : task.definition.templates)
    if (tmpl.name == "rows_cuda") candidate = {"softmax.rows_cuda", judge::read_text_file(tmpl.source), {}, {{"BLOCK", 256}}, tmpl.form, tmpl.launch};
  const auto first = judge.evaluate(candidate);
  state.counters["first_candidate_s"] = first.judge_seconds;
  std::int64_t build = 0;
  double total = 0;
  int passed = 0;
  std::map<std::string, double> phases;
  for (auto _ : state) {
    if (state.range(0) == 1) candidate.knobs["BUILD_NUMBER"] = ++build;
    // Wall time, not the verdict's judge_seconds: the worker's exit (the CUDA context torn down) comes after the verdict.
    const auto started = std::chrono::steady_clock::now();
    const auto verdict = judge.evaluate(candidate);
    total += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    passed += verdict.passed() ? 1 : 0;
    for (const auto& [phase, seconds] : verdict.phase_seconds) phases[phase] += seconds;
  }
  const auto candidates = static_cast<double>(state.iterations());
  state.counters["seconds_per_candidate"] = total / candidates;
  state.counters["candidates_per_minute"] = 60.0 * candidates / total;
  state.counters["passed"] = passed;
  for (const auto& [phase, seconds] : phases) {
    std::string counter = "s_" + phase;
    std::replace(counter.begin(), counter.end(), ' ', '_');
    state.counters[counter] = seconds / candidates;
  }
}
BENCHMARK(BM_GpuSoftmaxCandidate)->Arg(0)->Arg(1)->Iterations(3)->Unit(benchmark::kSecond);

}  // namespace
