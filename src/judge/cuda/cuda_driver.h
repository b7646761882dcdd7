// The CUDA driver API, loaded at run time with dlopen("libcuda.so.1"): the same binary starts on
// machines without a driver and says so, instead of failing to load.
#pragma once

#include <cuda.h>

#include <optional>
#include <stdexcept>
#include <string>

namespace kernelarc::judge::cuda {

class CudaError : public std::runtime_error {
 public:
  CudaError(CUresult code, const std::string& message) : std::runtime_error(message), code_(code) {}
  CUresult code() const { return code_; }

 private:
  CUresult code_;
};

// The entry points the judge uses, resolved through cuGetProcAddress so versioned names are right.
struct DriverApi {
  decltype(&::cuInit) init = nullptr;
  decltype(&::cuDriverGetVersion) driver_get_version = nullptr;
  decltype(&::cuDeviceGetCount) device_get_count = nullptr;
  decltype(&::cuDeviceGet) device_get = nullptr;
  decltype(&::cuDeviceGetName) device_get_name = nullptr;
  decltype(&::cuDeviceGetAttribute) device_get_attribute = nullptr;
  decltype(&::cuDeviceTotalMem) device_total_mem = nullptr;
  decltype(&::cuDeviceGetPCIBusId) device_get_pci_bus_id = nullptr;
  decltype(&::cuDevicePrimaryCtxRetain) primary_ctx_retain = nullptr;
  decltype(&::cuDevicePrimaryCtxRelease) primary_ctx_release = nullptr;
  decltype(&::cuCtxSetCurrent) ctx_set_current = nullptr;
  decltype(&::cuCtxSynchronize) ctx_synchronize = nullptr;
  decltype(&::cuCtxResetPersistingL2Cache) ctx_reset_persisting_l2 = nullptr;
  decltype(&::cuCtxGetLimit) ctx_get_limit = nullptr;
  decltype(&::cuCtxSetLimit) ctx_set_limit = nullptr;
  decltype(&::cuMemAlloc) mem_alloc = nullptr;
  decltype(&::cuMemFree) mem_free = nullptr;
  decltype(&::cuMemGetInfo) mem_get_info = nullptr;
  decltype(&::cuMemcpyHtoD) memcpy_htod = nullptr;
  decltype(&::cuMemcpyDtoH) memcpy_dtoh = nullptr;
  decltype(&::cuMemcpyDtoD) memcpy_dtod = nullptr;
  decltype(&::cuMemsetD8) memset_d8 = nullptr;
  decltype(&::cuMemsetD8Async) memset_d8_async = nullptr;
  decltype(&::cuMemHostRegister) mem_host_register = nullptr;
  decltype(&::cuMemHostUnregister) mem_host_unregister = nullptr;
  decltype(&::cuModuleLoadData) module_load_data = nullptr;
  decltype(&::cuModuleUnload) module_unload = nullptr;
  decltype(&::cuModuleGetFunction) module_get_function = nullptr;
  decltype(&::cuModuleGetFunctionCount) module_get_function_count = nullptr;
  decltype(&::cuModuleEnumerateFunctions) module_enumerate_functions = nullptr;
  decltype(&::cuFuncGetName) func_get_name = nullptr;
  decltype(&::cuFuncGetAttribute) func_get_attribute = nullptr;
  decltype(&::cuFuncSetAttribute) func_set_attribute = nullptr;
  decltype(&::cuLaunchKernel) launch_kernel = nullptr;
  decltype(&::cuTensorMapEncodeTiled) tensor_map_encode_tiled = nullptr;
  decltype(&::cuStreamCreate) stream_create = nullptr;
  decltype(&::cuStreamDestroy) stream_destroy = nullptr;
  decltype(&::cuStreamSynchronize) stream_synchronize = nullptr;
  decltype(&::cuStreamQuery) stream_query = nullptr;
  decltype(&::cuEventCreate) event_create = nullptr;
  decltype(&::cuEventDestroy) event_destroy = nullptr;
  decltype(&::cuEventRecord) event_record = nullptr;
  decltype(&::cuEventSynchronize) event_synchronize = nullptr;
  decltype(&::cuEventElapsedTime) event_elapsed_time = nullptr;
  decltype(&::cuGetErrorName) get_error_name = nullptr;
  decltype(&::cuGetErrorString) get_error_string = nullptr;
};

// The loaded driver, or nullopt with the reason in `why` (no libcuda.so.1, cuInit failed, no device).
const DriverApi* load_driver(std::string* why = nullptr);

// Throws CudaError naming the call and the driver's error name ("CUDA_ERROR_ILLEGAL_ADDRESS").
void check(const DriverApi& api, CUresult result, const char* what);
std::string error_name(const DriverApi& api, CUresult result);

// Errors after which the context is unusable: the worker must end and a fresh one take over.
bool is_sticky(CUresult result);

}  // namespace kernelarc::judge::cuda
