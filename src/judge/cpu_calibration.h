// Measured peak rates of this CPU, for T_sol on the CPU (GPUs use datasheet peaks instead).
#pragma once

#include <filesystem>
#include <optional>

#include "judge/cpu_compiler.h"
#include "task/roofline.h"

namespace kernelarc::judge {

// Copy bandwidth (read + write bytes) over all cores, and fp32 FMA throughput of code built the
// way candidates are built (so -march=native vectors count). Takes about a second.
task::DevicePeaks calibrate_cpu(const CpuCompiler& compiler);

// The calibration cached for this CPU model, if any.
std::optional<task::DevicePeaks> load_cpu_calibration(const std::filesystem::path& cache_directory);
void save_cpu_calibration(const std::filesystem::path& cache_directory, const task::DevicePeaks& peaks);

// The cached calibration, or a fresh one (then cached).
task::DevicePeaks cpu_peaks(const CpuCompiler& compiler, const std::filesystem::path& cache_directory);

std::string cpu_model_name();

}  // namespace kernelarc::judge
