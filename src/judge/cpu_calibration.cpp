#include "judge/cpu_calibration.h"

#include <dlfcn.h>
#include <fmt/chrono.h>
#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "common/hash.h"
#include "judge/build_cache.h"

namespace kernelarc::judge {

namespace {

// Built like a candidate so the vector width matches what candidates get.
constexpr const char* kFmaKernel = R"(
#include <chrono>
extern "C" double kernelarc_fma_flops(double seconds) {
  constexpr int kLanes = 64;
  float acc[kLanes];
  for (int i = 0; i < kLanes; ++i) acc[i] = 1.0f + i * 1e-7f;
  const float a = 0.999999f, b = 1e-7f;
  long long rounds = 0;
  const auto start = std::chrono::steady_clock::now();
  double elapsed = 0;
  do {
    for (int r = 0; r < 4096; ++r)
      for (int i = 0; i < kLanes; ++i) acc[i] = acc[i] * a + b;
    rounds += 4096;
    elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  } while (elapsed < seconds);
  float sum = 0;
  for (int i = 0; i < kLanes; ++i) sum += acc[i];
  volatile float sink = sum;
  (void)sink;
  return 2.0 * kLanes * static_cast<double>(rounds) / elapsed;
}
)";

unsigned thread_count() { return std::max(1u, std::thread::hardware_concurrency()); }

double measure_copy_bandwidth() {
  const unsigned threads = thread_count();
  const std::size_t per_thread = std::max<std::size_t>(64u << 20, 4 * 64u << 20) / threads;
  std::vector<std::vector<char>> from(threads, std::vector<char>(per_thread, 1)), to(threads, std::vector<char>(per_thread, 0));
  double best = 0;
  for (int repeat = 0; repeat < 5; ++repeat) {
    std::vector<std::thread> workers;
    const auto start = std::chrono::steady_clock::now();
    for (unsigned t = 0; t < threads; ++t)
      workers.emplace_back([&, t] { std::memcpy(to[t].data(), from[t].data(), per_thread); });
    for (auto& worker : workers) worker.join();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    best = std::max(best, 2.0 * static_cast<double>(per_thread) * threads / seconds);
  }
  return best;
}

double measure_fma_rate(const CpuCompiler& compiler) {
  const auto build = compiler.build({kFmaKernel, {}, {}});
  if (!build.ok) throw std::runtime_error("the calibration kernel does not build:\n" + build.diagnostics);
  void* library = dlopen(build.library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) throw std::runtime_error(fmt::format("cannot load the calibration kernel: {}", dlerror()));
  auto kernel = reinterpret_cast<double (*)(double)>(dlsym(library, "kernelarc_fma_flops"));
  std::vector<double> rates(thread_count());
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < rates.size(); ++t) workers.emplace_back([&, t] { rates[t] = kernel(0.3); });
  for (auto& worker : workers) worker.join();
  dlclose(library);
  double total = 0;
  for (double rate : rates) total += rate;
  return total;
}

std::filesystem::path calibration_file(const std::filesystem::path& cache_directory) {
  return cache_directory / fmt::format("calibration-cpu-{}.json", common::content_hash(cpu_model_name()).substr(0, 12));
}

}  // namespace

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown CPU";
}

task::DevicePeaks calibrate_cpu(const CpuCompiler& compiler) {
  task::DevicePeaks peaks;
  peaks.name = fmt::format("CPU {} ({} threads)", cpu_model_name(), thread_count());
  peaks.bytes_per_second = measure_copy_bandwidth();
  peaks.flops_per_second["fp32"] = measure_fma_rate(compiler);
  peaks.source = fmt::format("calibrated {:%Y-%m-%d}", std::chrono::system_clock::now());
  return peaks;
}

std::optional<task::DevicePeaks> load_cpu_calibration(const std::filesystem::path& cache_directory) {
  std::ifstream in(calibration_file(cache_directory));
  if (!in) return std::nullopt;
  try {
    const auto data = nlohmann::json::parse(in);
    task::DevicePeaks peaks;
    peaks.name = data.at("name").get<std::string>();
    peaks.bytes_per_second = data.at("bytes_per_second").get<double>();
    peaks.flops_per_second = data.at("flops_per_second").get<std::map<std::string, double>>();
    peaks.source = data.at("source").get<std::string>();
    return peaks;
  } catch (const std::exception&) {
    return std::nullopt;  // a damaged cache is measured again
  }
}

void save_cpu_calibration(const std::filesystem::path& cache_directory, const task::DevicePeaks& peaks) {
  std::filesystem::create_directories(cache_directory);
  const auto file = calibration_file(cache_directory);
  // Through a temporary file of this call's own: runs started together on one cache calibrate at once.
  write_file_atomically(file, nlohmann::json{{"name", peaks.name},
                                             {"bytes_per_second", peaks.bytes_per_second},
                                             {"flops_per_second", peaks.flops_per_second},
                                             {"source", peaks.source}}
                                  .dump(2));
}

task::DevicePeaks cpu_peaks(const CpuCompiler& compiler, const std::filesystem::path& cache_directory) {
  if (auto cached = load_cpu_calibration(cache_directory)) return *cached;
  auto peaks = calibrate_cpu(compiler);
  save_cpu_calibration(cache_directory, peaks);
  return peaks;
}

}  // namespace kernelarc::judge
