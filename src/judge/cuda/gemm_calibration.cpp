#include "judge/cuda/gemm_calibration.h"

#include <cublasLt.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <vector>

#include "common/runtime_library.h"
#include "task/dtype.h"

namespace kernelarc::judge::cuda {

namespace {

struct CublasLt {
  decltype(&::cublasLtCreate) create = nullptr;
  decltype(&::cublasLtDestroy) destroy = nullptr;
  decltype(&::cublasLtGetStatusString) status_string = nullptr;
  decltype(&::cublasLtMatmulDescCreate) desc_create = nullptr;
  decltype(&::cublasLtMatmulDescDestroy) desc_destroy = nullptr;
  decltype(&::cublasLtMatmulDescSetAttribute) desc_set = nullptr;
  decltype(&::cublasLtMatrixLayoutCreate) layout_create = nullptr;
  decltype(&::cublasLtMatrixLayoutDestroy) layout_destroy = nullptr;
  decltype(&::cublasLtMatmulPreferenceCreate) preference_create = nullptr;
  decltype(&::cublasLtMatmulPreferenceDestroy) preference_destroy = nullptr;
  decltype(&::cublasLtMatmulPreferenceSetAttribute) preference_set = nullptr;
  decltype(&::cublasLtMatmulAlgoGetHeuristic) heuristic = nullptr;
  decltype(&::cublasLtMatmul) matmul = nullptr;
};

struct LoadResult {
  CublasLt api;
  bool ok = false;
  std::string why;
};

LoadResult load() {
  LoadResult result;
  common::RuntimeLibrary library("cuBLASLt", {"libcublasLt.so.13", "libcublasLt.so", "/usr/local/cuda/lib64/libcublasLt.so.13",
                                              "/usr/local/cuda/lib64/libcublasLt.so"});
  const auto resolve = [&](auto& slot, const char* name) { library.resolve(slot, name); };
  auto& a = result.api;
  resolve(a.create, "cublasLtCreate");
  resolve(a.destroy, "cublasLtDestroy");
  resolve(a.status_string, "cublasLtGetStatusString");
  resolve(a.desc_create, "cublasLtMatmulDescCreate");
  resolve(a.desc_destroy, "cublasLtMatmulDescDestroy");
  resolve(a.desc_set, "cublasLtMatmulDescSetAttribute");
  resolve(a.layout_create, "cublasLtMatrixLayoutCreate");
  resolve(a.layout_destroy, "cublasLtMatrixLayoutDestroy");
  resolve(a.preference_create, "cublasLtMatmulPreferenceCreate");
  resolve(a.preference_destroy, "cublasLtMatmulPreferenceDestroy");
  resolve(a.preference_set, "cublasLtMatmulPreferenceSetAttribute");
  resolve(a.heuristic, "cublasLtMatmulAlgoGetHeuristic");
  resolve(a.matmul, "cublasLtMatmul");
  result.ok = library.ok();
  result.why = library.why();
  return result;
}

// Runs its steps in reverse order when the scope ends, on every path out of it.
class Cleanup {
 public:
  Cleanup() = default;
  Cleanup(const Cleanup&) = delete;
  Cleanup& operator=(const Cleanup&) = delete;
  ~Cleanup() {
    for (auto step = steps_.rbegin(); step != steps_.rend(); ++step) (*step)();
  }
  void add(std::function<void()> step) { steps_.push_back(std::move(step)); }

 private:
  std::vector<std::function<void()>> steps_;
};

struct Case {
  const char* dtype;
  cudaDataType_t input_type;
  task::DType storage;
  int size;
};

constexpr Case kCases[] = {{"bf16", CUDA_R_16BF, task::DType::bfloat16, 8192},
                           {"bf16", CUDA_R_16BF, task::DType::bfloat16, 4096},
                           {"fp8_e4m3", CUDA_R_8F_E4M3, task::DType::float8_e4m3fn, 8192}};

// Random values in [-1, 1): constant inputs toggle fewer bits, draw less power and hold higher clocks, so
// they read faster than real data (and than the random-input figures torch reports).
void fill_random(const DriverApi& api, CUdeviceptr target, task::DType dtype, std::uint64_t count, std::uint64_t seed) {
  std::vector<float> values(count);
  std::uint64_t state = seed;
  for (auto& value : values) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    value = static_cast<float>(static_cast<std::int64_t>(state >> 40) - (1ll << 23)) / static_cast<float>(1ll << 23);
  }
  std::vector<std::byte> encoded(task::storage_bytes(dtype, static_cast<std::int64_t>(count)));
  task::from_float32(dtype, values.data(), static_cast<std::int64_t>(count), encoded.data());
  check(api, api.memcpy_htod(target, encoded.data(), encoded.size()), "cuMemcpyHtoD (GEMM inputs)");
}
constexpr std::uint64_t kWorkspaceBytes = 64ull << 20;
constexpr int kWarmups = 5;
constexpr int kTimed = 20;

struct Shared {
  cublasLtHandle_t handle = nullptr;
  CUdeviceptr workspace = 0;
  CUdeviceptr one = 0;  // a device float 1.0f: the per-tensor scale of fp8 inputs
  CUevent start = nullptr, stop = nullptr;
};

void* device_pointer(CUdeviceptr pointer) { return reinterpret_cast<void*>(static_cast<std::uintptr_t>(pointer)); }

void measure_case(const DriverApi& api, const CublasLt& lt, const Shared& shared, const Case& c, GemmRate& rate) {
  const auto lt_check = [&](cublasStatus_t status, const char* what) {
    if (status != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(fmt::format("{}: {}", what, lt.status_string(status)));
  };
  Cleanup cleanup;
  const auto m = static_cast<std::uint64_t>(c.size), n = m, k = m;
  const auto allocate = [&](std::size_t bytes) {
    CUdeviceptr pointer = 0;
    check(api, api.mem_alloc(&pointer, bytes), "cuMemAlloc");
    cleanup.add([&api, pointer] { api.mem_free(pointer); });
    return pointer;
  };
  const std::size_t element_bytes = task::storage_bytes(c.storage, 1);
  const CUdeviceptr a = allocate(k * m * element_bytes), b = allocate(k * n * element_bytes), d = allocate(m * n * 2);
  fill_random(api, a, c.storage, k * m, 1);
  fill_random(api, b, c.storage, k * n, 2);

  cublasLtMatmulDesc_t desc = nullptr;
  lt_check(lt.desc_create(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
  cleanup.add([&lt, desc] { lt.desc_destroy(desc); });
  // "TN" (A transposed): the only fp8 layout Hopper's tensor cores take, and a fast one for bf16 too.
  const std::int32_t transpose = CUBLAS_OP_T, no_transpose = CUBLAS_OP_N;
  lt_check(lt.desc_set(desc, CUBLASLT_MATMUL_DESC_TRANSA, &transpose, sizeof transpose), "cublasLtMatmulDescSetAttribute");
  lt_check(lt.desc_set(desc, CUBLASLT_MATMUL_DESC_TRANSB, &no_transpose, sizeof no_transpose), "cublasLtMatmulDescSetAttribute");
  if (c.input_type == CUDA_R_8F_E4M3) {
    const void* scale = device_pointer(shared.one);
    lt_check(lt.desc_set(desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &scale, sizeof scale), "cublasLtMatmulDescSetAttribute");
    lt_check(lt.desc_set(desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &scale, sizeof scale), "cublasLtMatmulDescSetAttribute");
  }
  const auto layout = [&](cudaDataType_t type, std::uint64_t rows, std::uint64_t columns) {
    cublasLtMatrixLayout_t created = nullptr;
    lt_check(lt.layout_create(&created, type, rows, columns, static_cast<std::int64_t>(rows)), "cublasLtMatrixLayoutCreate");
    cleanup.add([&lt, created] { lt.layout_destroy(created); });
    return created;
  };
  const cublasLtMatrixLayout_t a_layout = layout(c.input_type, k, m), b_layout = layout(c.input_type, k, n),
                               d_layout = layout(CUDA_R_16BF, m, n);

  cublasLtMatmulPreference_t preference = nullptr;
  lt_check(lt.preference_create(&preference), "cublasLtMatmulPreferenceCreate");
  cleanup.add([&lt, preference] { lt.preference_destroy(preference); });
  lt_check(lt.preference_set(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &kWorkspaceBytes, sizeof kWorkspaceBytes),
           "cublasLtMatmulPreferenceSetAttribute");
  cublasLtMatmulHeuristicResult_t best{};
  int found = 0;
  lt_check(lt.heuristic(shared.handle, desc, a_layout, b_layout, d_layout, d_layout, preference, 1, &best, &found),
           "cublasLtMatmulAlgoGetHeuristic");
  if (found == 0) throw std::runtime_error("cuBLASLt has no algorithm for this case");

  const float alpha = 1.0f, beta = 0.0f;
  const auto call = [&] {
    lt_check(lt.matmul(shared.handle, desc, &alpha, device_pointer(a), a_layout, device_pointer(b), b_layout, &beta,
                       device_pointer(d), d_layout, device_pointer(d), d_layout, &best.algo, device_pointer(shared.workspace),
                       kWorkspaceBytes, nullptr),
             "cublasLtMatmul");
  };
  for (int i = 0; i < kWarmups; ++i) call();
  check(api, api.event_record(shared.stop, nullptr), "cuEventRecord");
  check(api, api.event_synchronize(shared.stop), "cuEventSynchronize");
  std::vector<double> milliseconds;
  for (int i = 0; i < kTimed; ++i) {
    check(api, api.event_record(shared.start, nullptr), "cuEventRecord");
    call();
    check(api, api.event_record(shared.stop, nullptr), "cuEventRecord");
    check(api, api.event_synchronize(shared.stop), "cuEventSynchronize");
    float elapsed = 0;
    check(api, api.event_elapsed_time(&elapsed, shared.start, shared.stop), "cuEventElapsedTime");
    milliseconds.push_back(elapsed);
  }
  std::sort(milliseconds.begin(), milliseconds.end());
  const double median = (milliseconds[(kTimed - 1) / 2] + milliseconds[kTimed / 2]) / 2;
  rate.median_ms = median;
  rate.flops_per_second = 2.0 * static_cast<double>(m * n * k) / (median / 1e3);
}

}  // namespace

std::vector<GemmRate> measure_gemm_rates(const DriverApi& api, std::string* why) {
  static const LoadResult loaded = load();
  if (!loaded.ok) {
    if (why) *why = loaded.why;
    return {};
  }
  const CublasLt& lt = loaded.api;
  std::vector<GemmRate> rates;
  for (const Case& c : kCases) rates.push_back({c.dtype, c.size, c.size, c.size, 0, 0, {}});
  try {
    Shared shared;
    Cleanup cleanup;  // after `shared`, so it runs while `shared` still exists
    if (const cublasStatus_t status = lt.create(&shared.handle); status != CUBLAS_STATUS_SUCCESS)
      throw std::runtime_error(fmt::format("cublasLtCreate: {}", lt.status_string(status)));
    cleanup.add([&] { lt.destroy(shared.handle); });
    check(api, api.mem_alloc(&shared.workspace, kWorkspaceBytes), "cuMemAlloc");
    cleanup.add([&] { api.mem_free(shared.workspace); });
    check(api, api.mem_alloc(&shared.one, sizeof(float)), "cuMemAlloc");
    cleanup.add([&] { api.mem_free(shared.one); });
    const float one = 1.0f;
    check(api, api.memcpy_htod(shared.one, &one, sizeof one), "cuMemcpyHtoD");
    check(api, api.event_create(&shared.start, CU_EVENT_DEFAULT), "cuEventCreate");
    cleanup.add([&] { api.event_destroy(shared.start); });
    check(api, api.event_create(&shared.stop, CU_EVENT_DEFAULT), "cuEventCreate");
    cleanup.add([&] { api.event_destroy(shared.stop); });
    for (std::size_t i = 0; i < rates.size(); ++i) {
      try {
        measure_case(api, lt, shared, kCases[i], rates[i]);
      } catch (const std::exception& failure) {
        rates[i].median_ms = rates[i].flops_per_second = 0;
        rates[i].error = failure.what();
      }
    }
  } catch (const std::exception& failure) {
    for (GemmRate& rate : rates) rate.error = failure.what();
  }
  return rates;
}

nlohmann::json to_json(const GemmRate& rate) {
  nlohmann::json out = {{"dtype", rate.dtype}, {"m", rate.m}, {"n", rate.n}, {"k", rate.k},
                        {"median_ms", rate.median_ms}, {"flops_per_second", rate.flops_per_second}};
  if (!rate.error.empty()) out["error"] = rate.error;
  return out;
}

}  // namespace kernelarc::judge::cuda
