#include "judge/cuda/cuda_driver.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <mutex>

namespace kernelarc::judge::cuda {

namespace {

struct LoadResult {
  DriverApi api;
  bool ok = false;
  std::string why;
};

LoadResult load() {
  LoadResult result;
  void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    result.why = fmt::format("no NVIDIA driver on this machine (libcuda.so.1 not found: {})", dlerror());
    return result;
  }
  using GetProcAddress = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);
  auto get_proc = reinterpret_cast<GetProcAddress>(dlsym(library, "cuGetProcAddress_v2"));
  if (!get_proc) {
    result.why = "the NVIDIA driver is too old (no cuGetProcAddress_v2; CUDA 12 or newer is needed)";
    return result;
  }
  bool missing = false;
  // `version`: the API version whose signature the slot has (the header's type); CUDA 13 changed a few.
  const auto resolve = [&](auto& slot, const char* name, int version = CUDA_VERSION) {
    void* pointer = nullptr;
    CUdriverProcAddressQueryResult status{};
    if (get_proc(name, &pointer, version, CU_GET_PROC_ADDRESS_DEFAULT, &status) != CUDA_SUCCESS || !pointer) {
      if (!missing) result.why = fmt::format("the NVIDIA driver lacks {}", name);
      missing = true;
      return;
    }
    slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(pointer);
  };
  auto& a = result.api;
  resolve(a.init, "cuInit");
  resolve(a.driver_get_version, "cuDriverGetVersion");
  resolve(a.device_get_count, "cuDeviceGetCount");
  resolve(a.device_get, "cuDeviceGet");
  resolve(a.device_get_name, "cuDeviceGetName");
  resolve(a.device_get_attribute, "cuDeviceGetAttribute");
  resolve(a.device_total_mem, "cuDeviceTotalMem");
  resolve(a.device_get_pci_bus_id, "cuDeviceGetPCIBusId");
  resolve(a.primary_ctx_retain, "cuDevicePrimaryCtxRetain");
  resolve(a.primary_ctx_release, "cuDevicePrimaryCtxRelease");
  resolve(a.ctx_set_current, "cuCtxSetCurrent");
  // CUDA 13's cuCtxSynchronize takes a context; the 12.0 entry point is the no-argument one the slot's type declares.
  resolve(a.ctx_synchronize, "cuCtxSynchronize", 12000);
  resolve(a.ctx_reset_persisting_l2, "cuCtxResetPersistingL2Cache");
  resolve(a.ctx_get_limit, "cuCtxGetLimit");
  resolve(a.ctx_set_limit, "cuCtxSetLimit");
  resolve(a.mem_alloc, "cuMemAlloc");
  resolve(a.mem_free, "cuMemFree");
  resolve(a.mem_get_info, "cuMemGetInfo");
  resolve(a.memcpy_htod, "cuMemcpyHtoD");
  resolve(a.memcpy_dtoh, "cuMemcpyDtoH");
  resolve(a.memcpy_dtod, "cuMemcpyDtoD");
  resolve(a.memset_d8, "cuMemsetD8");
  resolve(a.memset_d8_async, "cuMemsetD8Async");
  resolve(a.mem_host_register, "cuMemHostRegister");
  resolve(a.mem_host_unregister, "cuMemHostUnregister");
  resolve(a.module_load_data, "cuModuleLoadData");
  resolve(a.module_unload, "cuModuleUnload");
  resolve(a.module_get_function, "cuModuleGetFunction");
  resolve(a.module_get_function_count, "cuModuleGetFunctionCount");
  resolve(a.module_enumerate_functions, "cuModuleEnumerateFunctions");
  resolve(a.func_get_name, "cuFuncGetName");
  resolve(a.func_get_attribute, "cuFuncGetAttribute");
  resolve(a.func_set_attribute, "cuFuncSetAttribute");
  resolve(a.launch_kernel, "cuLaunchKernel");
  resolve(a.tensor_map_encode_tiled, "cuTensorMapEncodeTiled");
  resolve(a.stream_create, "cuStreamCreate");
  resolve(a.stream_destroy, "cuStreamDestroy");
  resolve(a.stream_synchronize, "cuStreamSynchronize");
  resolve(a.stream_query, "cuStreamQuery");
  resolve(a.event_create, "cuEventCreate");
  resolve(a.event_destroy, "cuEventDestroy");
  resolve(a.event_record, "cuEventRecord");
  resolve(a.event_synchronize, "cuEventSynchronize");
  resolve(a.event_elapsed_time, "cuEventElapsedTime");
  resolve(a.get_error_name, "cuGetErrorName");
  resolve(a.get_error_string, "cuGetErrorString");
  if (missing) return result;
  if (const CUresult init = a.init(0); init != CUDA_SUCCESS) {
    result.why = fmt::format("the NVIDIA driver did not start (cuInit: {})", error_name(a, init));
    return result;
  }
  int count = 0;
  if (a.device_get_count(&count) != CUDA_SUCCESS || count == 0) {
    result.why = "the NVIDIA driver sees no GPU";
    return result;
  }
  result.ok = true;
  return result;
}

}  // namespace

const DriverApi* load_driver(std::string* why) {
  static const LoadResult loaded = load();
  if (!loaded.ok) {
    if (why) *why = loaded.why;
    return nullptr;
  }
  return &loaded.api;
}

std::string error_name(const DriverApi& api, CUresult result) {
  const char* name = nullptr;
  if (api.get_error_name && api.get_error_name(result, &name) == CUDA_SUCCESS && name) return name;
  return fmt::format("CUDA error {}", static_cast<int>(result));
}

void check(const DriverApi& api, CUresult result, const char* what) {
  if (result == CUDA_SUCCESS) return;
  const char* text = nullptr;
  if (api.get_error_string) api.get_error_string(result, &text);
  throw CudaError(result, fmt::format("{}: {} ({})", what, error_name(api, result), text ? text : "no description"));
}

bool is_sticky(CUresult result) {
  switch (result) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_CONTEXT_IS_DESTROYED:
      return true;
    default:
      return false;
  }
}

}  // namespace kernelarc::judge::cuda
