#include "task/roofline.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace kernelarc::task {

namespace {

struct KnownGpu {
  const char* match;
  const char* name;
  double terabytes_per_second;
  double fp32_tflops;
  double bf16_tflops;  // dense tensor core
  double fp8_tflops;   // dense tensor core; 0 when absent
  int multiprocessors;  // SMs of the variant named
};

// Datasheet (SXM where there is a choice) dense peaks.
constexpr std::array<KnownGpu, 6> kKnownGpus = {{
    {"B200", "NVIDIA B200", 8.0, 80.0, 2250.0, 4500.0, 148},
    {"H200", "NVIDIA H200", 4.8, 67.0, 989.0, 1979.0, 132},
    {"H100 PCIe", "NVIDIA H100 PCIe", 2.0, 51.0, 756.0, 1513.0, 114},
    {"H100", "NVIDIA H100 SXM", 3.35, 67.0, 989.0, 1979.0, 132},
    {"A100", "NVIDIA A100 SXM", 2.039, 19.5, 312.0, 0.0, 108},
    {"L40S", "NVIDIA L40S", 0.864, 91.6, 362.0, 733.0, 142},
}};

}  // namespace

std::optional<DevicePeaks> known_gpu_peaks(std::string_view device_name) {
  for (const auto& gpu : kKnownGpus) {
    if (device_name.find(gpu.match) == std::string_view::npos) continue;
    DevicePeaks peaks;
    peaks.name = gpu.name;
    peaks.bytes_per_second = gpu.terabytes_per_second * 1e12;
    peaks.flops_per_second["fp32"] = gpu.fp32_tflops * 1e12;
    peaks.flops_per_second["tensor_core_bf16"] = gpu.bf16_tflops * 1e12;
    peaks.flops_per_second["tensor_core_fp16"] = gpu.bf16_tflops * 1e12;
    if (gpu.fp8_tflops > 0) peaks.flops_per_second["tensor_core_fp8"] = gpu.fp8_tflops * 1e12;
    peaks.source = "datasheet";
    peaks.multiprocessors = gpu.multiprocessors;
    return peaks;
  }
  return std::nullopt;
}

RooflineEstimate estimate_roofline(const Task& task, const ResolvedWorkload& workload, const DevicePeaks& peaks) {
  const auto& roofline = task.definition.roofline;
  const std::filesystem::path file = task.directory / "definition.json";
  RooflineEstimate estimate;
  const auto tensor_bytes = [](const std::vector<TensorSpec>& specs, const std::vector<std::vector<std::int64_t>>& shapes) {
    double bytes = 0;
    for (std::size_t i = 0; i < specs.size() && i < shapes.size(); ++i) bytes += static_cast<double>(storage_bytes(specs[i].dtype, element_count(shapes[i])));
    return bytes;
  };
  const double input_bytes = tensor_bytes(task.definition.inputs, workload.input_shapes);
  const double output_bytes = tensor_bytes(task.definition.outputs, workload.output_shapes);
  try {
    if (roofline.flops) estimate.flops = roofline.flops->evaluate(workload.axes);
    estimate.bytes = roofline.bytes ? roofline.bytes->evaluate(workload.axes) : input_bytes + output_bytes;
  } catch (const ExpressionError& error) {
    throw TaskError(file, "kernelarc.roofline", error.what());
  }
  if (estimate.flops < 0 || estimate.bytes < 0) throw TaskError(file, "kernelarc.roofline", "gives a negative amount");
  const double memory_seconds = peaks.bytes_per_second > 0 ? estimate.bytes / peaks.bytes_per_second : 0;
  double compute_seconds = 0;
  if (estimate.flops > 0) {
    const auto rate = peaks.flops_per_second.find(roofline.math);
    if (rate == peaks.flops_per_second.end() || rate->second <= 0)
      throw TaskError(file, "kernelarc.roofline.math",
                      fmt::format("device {} has no peak rate for \"{}\"", peaks.name, roofline.math));
    compute_seconds = estimate.flops / rate->second;
  }
  estimate.seconds = std::max(memory_seconds, compute_seconds);
  estimate.bound = compute_seconds > memory_seconds ? "compute" : "memory";
  // The outputs' share of the bytes counted (all of theirs by default; a task's own expression may count fewer).
  const double outputs_counted = input_bytes + output_bytes > 0 ? estimate.bytes * output_bytes / (input_bytes + output_bytes) : 0;
  const double past_the_cache = std::max(0.0, estimate.bytes - std::min(outputs_counted, std::max(0.0, peaks.cache_bytes)));
  estimate.floor_seconds = std::max(peaks.bytes_per_second > 0 ? past_the_cache / peaks.bytes_per_second : 0.0, compute_seconds);
  return estimate;
}

double sol_score(double seconds, double sol_seconds, double baseline_seconds) {
  if (baseline_seconds <= sol_seconds) return seconds <= sol_seconds ? 1.0 : 0.0;
  const double score = 1.0 / (1.0 + (seconds - sol_seconds) / (baseline_seconds - sol_seconds));
  // Faster than speed of light is impossible; the judge flags it, the formula just caps it.
  return std::clamp(score, 0.0, 1.0);
}

}  // namespace kernelarc::task
