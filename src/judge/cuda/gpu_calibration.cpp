#include "judge/cuda/gpu_calibration.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "judge/build_cache.h"
#include "judge/cuda/cuda_driver.h"

namespace kernelarc::judge::cuda {

namespace {

// 16-byte loads and stores over a grid-stride loop: the same shape as a good copy candidate.
constexpr const char* kCopyKernel = R"(
extern "C" __global__ void kernelarc_copy(const int4* __restrict__ from, int4* __restrict__ to, unsigned long long count) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x)
    to[i] = from[i];
}
)";

}  // namespace

GpuCalibration calibrate_gpu(int ordinal, const CudaCompiler& compiler) {
  std::string why;
  const DriverApi* api = load_driver(&why);
  if (!api) throw std::runtime_error(why);
  const DriverApi& a = *api;
  GpuCalibration out;
  out.ordinal = ordinal;
  CUdevice device;
  check(a, a.device_get(&device, ordinal), "cuDeviceGet");
  char name[256] = {};
  check(a, a.device_get_name(name, sizeof name, device), "cuDeviceGetName");
  out.name = name;
  const auto attribute = [&](CUdevice_attribute which) {
    int value = 0;
    check(a, a.device_get_attribute(&value, which, device), "cuDeviceGetAttribute");
    return value;
  };
  out.compute_major = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  out.compute_minor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  out.multiprocessors = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  out.l2_bytes = attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  out.max_sm_clock_khz = attribute(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
  std::size_t memory = 0;
  check(a, a.device_total_mem(&memory, device), "cuDeviceTotalMem");
  out.memory_bytes = static_cast<long long>(memory);
  check(a, a.driver_get_version(&out.driver_version), "cuDriverGetVersion");

  CUcontext context;
  check(a, a.primary_ctx_retain(&context, device), "cuDevicePrimaryCtxRetain");
  check(a, a.ctx_set_current(context), "cuCtxSetCurrent");
  const auto build = compiler.build_kernel({kCopyKernel, {}, {}});
  if (!build.ok) throw std::runtime_error("the copy kernel does not build:\n" + build.diagnostics);
  const std::string cubin = read_text_file(build.library);
  CUmodule module;
  check(a, a.module_load_data(&module, cubin.data()), "cuModuleLoadData");
  CUfunction copy;
  check(a, a.module_get_function(&copy, module, "kernelarc_copy"), "cuModuleGetFunction");

  // Far larger than L2, so the copy measures memory, not cache.
  const std::size_t bytes = std::max<std::size_t>(1ull << 30, 16 * static_cast<std::size_t>(out.l2_bytes));
  CUdeviceptr from = 0, to = 0;
  check(a, a.mem_alloc(&from, bytes), "cuMemAlloc");
  check(a, a.mem_alloc(&to, bytes), "cuMemAlloc");
  check(a, a.memset_d8(from, 1, bytes), "cuMemsetD8");
  CUevent start, stop;
  check(a, a.event_create(&start, CU_EVENT_DEFAULT), "cuEventCreate");
  check(a, a.event_create(&stop, CU_EVENT_DEFAULT), "cuEventCreate");
  unsigned long long count = bytes / 16;
  void* arguments[] = {&from, &to, &count};
  // The best of a few launch shapes: the ceiling is what a good copy achieves, not what one guess does.
  double best_median = 0;
  for (const unsigned blocks_per_sm : {2u, 4u, 8u, 16u}) {
    for (const unsigned threads : {256u, 512u, 1024u}) {
      const unsigned blocks = static_cast<unsigned>(out.multiprocessors) * blocks_per_sm;
      std::vector<double> seconds;
      for (int i = 0; i < 13; ++i) {
        check(a, a.event_record(start, nullptr), "cuEventRecord");
        check(a, a.launch_kernel(copy, blocks, 1, 1, threads, 1, 1, 0, nullptr, arguments, nullptr), "cuLaunchKernel");
        check(a, a.event_record(stop, nullptr), "cuEventRecord");
        check(a, a.event_synchronize(stop), "cuEventSynchronize");
        float ms = 0;
        check(a, a.event_elapsed_time(&ms, start, stop), "cuEventElapsedTime");
        if (i >= 3) seconds.push_back(ms / 1e3);  // the first launches warm up clocks and TLBs
      }
      std::sort(seconds.begin(), seconds.end());
      const double median = seconds[seconds.size() / 2];
      if (best_median == 0 || median < best_median) {
        best_median = median;
        out.copy_spread = (seconds[seconds.size() * 3 / 4] - seconds[seconds.size() / 4]) / median;
        out.copy_launch = fmt::format("{} blocks x {} threads", blocks, threads);
      }
    }
  }
  out.copy_bytes_per_second = 2.0 * static_cast<double>(bytes) / best_median;
  a.event_destroy(start);
  a.event_destroy(stop);
  a.mem_free(from);
  a.mem_free(to);
  a.module_unload(module);
  a.primary_ctx_release(device);
  out.date = fmt::format("{:%Y-%m-%d %H:%M} UTC", fmt::gmtime(std::chrono::system_clock::now()));
  return out;
}

nlohmann::json to_json(const GpuCalibration& c) {
  return {{"name", c.name}, {"ordinal", c.ordinal}, {"compute_capability", fmt::format("{}.{}", c.compute_major, c.compute_minor)},
          {"multiprocessors", c.multiprocessors}, {"l2_bytes", c.l2_bytes}, {"memory_bytes", c.memory_bytes},
          {"max_sm_clock_khz", c.max_sm_clock_khz}, {"driver_version", c.driver_version},
          {"copy_bytes_per_second", c.copy_bytes_per_second}, {"copy_spread", c.copy_spread}, {"copy_launch", c.copy_launch}, {"date", c.date}};
}

}  // namespace kernelarc::judge::cuda
