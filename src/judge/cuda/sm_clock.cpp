#include "judge/cuda/sm_clock.h"

#include <dlfcn.h>

#include <map>
#include <mutex>

#include "judge/cuda/cuda_driver.h"

namespace kernelarc::judge::cuda {

namespace {

// The few NVML declarations needed; the CUDA toolkit here ships no nvml.h.
using NvmlReturn = int;
constexpr NvmlReturn kNvmlSuccess = 0;
using NvmlDevice = struct nvmlDevice_st*;
constexpr int kNvmlClockSm = 1;  // NVML_CLOCK_SM in nvmlClockType_t

struct Nvml {
  NvmlReturn (*init)() = nullptr;
  NvmlReturn (*handle_by_pci_bus_id)(const char*, NvmlDevice*) = nullptr;
  NvmlReturn (*clock_info)(NvmlDevice, int, unsigned*) = nullptr;
  bool ok = false;
};

// Loaded and initialised once; never shut down, as other threads may be reading a clock.
Nvml load() {
  Nvml nvml;
  void* library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) return nvml;
  nvml.init = reinterpret_cast<decltype(nvml.init)>(dlsym(library, "nvmlInit_v2"));
  nvml.handle_by_pci_bus_id =
      reinterpret_cast<decltype(nvml.handle_by_pci_bus_id)>(dlsym(library, "nvmlDeviceGetHandleByPciBusId_v2"));
  nvml.clock_info = reinterpret_cast<decltype(nvml.clock_info)>(dlsym(library, "nvmlDeviceGetClockInfo"));
  nvml.ok = nvml.init && nvml.handle_by_pci_bus_id && nvml.clock_info && nvml.init() == kNvmlSuccess;
  return nvml;
}

}  // namespace

std::optional<unsigned> sm_clock_mhz(const std::string& pci_bus_id) {
  static const Nvml nvml = load();
  if (!nvml.ok) return std::nullopt;
  NvmlDevice device = nullptr;
  if (nvml.handle_by_pci_bus_id(pci_bus_id.c_str(), &device) != kNvmlSuccess) return std::nullopt;
  unsigned megahertz = 0;
  if (nvml.clock_info(device, kNvmlClockSm, &megahertz) != kNvmlSuccess) return std::nullopt;
  return megahertz;
}

std::optional<unsigned> sm_clock_mhz_of_device(int ordinal) {
  static std::mutex mutex;
  static std::map<int, std::string> bus_ids;
  std::string bus_id;
  {
    std::lock_guard lock(mutex);
    if (!bus_ids.count(ordinal)) {
      const DriverApi* api = load_driver();
      CUdevice device = 0;
      char text[64] = {};
      if (!api || api->device_get(&device, ordinal) != CUDA_SUCCESS || api->device_get_pci_bus_id(text, sizeof text, device) != CUDA_SUCCESS)
        return std::nullopt;
      bus_ids[ordinal] = text;
    }
    bus_id = bus_ids[ordinal];
  }
  return sm_clock_mhz(bus_id);
}

}  // namespace kernelarc::judge::cuda
