#include "judge/cuda/gpu_worker.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "judge/call_tensors.h"
#include "judge/candidate_library.h"
#include "judge/cuda/activity_timer.h"
#include "judge/cuda/cuda_driver.h"
#include "judge/cuda/device_comparison.h"
#include "judge/device_findings.h"
#include "judge/sandbox.h"
#include "judge/shared_buffer.h"
#include "judge/worker.h"
#include "judge/worker_messages.h"
#include "kernelarc/candidate_abi.h"
#include "task/dtype.h"

namespace kernelarc::judge::cuda {

using nlohmann::json;

namespace {

// A kernel-only candidate's launch, evaluated by the judge for the bound workload.
struct Launch {
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1};
  unsigned shared_bytes = 0;
  std::vector<long long> arguments;  // the workload's var axes, after the tensor pointers
  std::vector<message::TensorMap> tensor_maps;  // after the arguments: encoded for each call's input addresses
  std::vector<CUtensorMap> encoded;
};

// The entry of a map whose values say when they were last used that was used least recently.
template <typename Map>
typename Map::iterator least_recent(Map& map) {
  return std::min_element(map.begin(), map.end(), [](const auto& a, const auto& b) { return a.second.last_use < b.second.last_use; });
}

class GpuWorker {
 public:
  GpuWorker(const DriverApi& api, int ordinal, std::unique_ptr<ActivityTimer> timer, std::string timer_why)
      : api_(api), ordinal_(ordinal), timer_(std::move(timer)), timer_why_(std::move(timer_why)) {
    check(api_, api_.device_get(&device_, ordinal_), "cuDeviceGet");
    check(api_, api_.primary_ctx_retain(&context_, device_), "cuDevicePrimaryCtxRetain");
    check(api_, api_.ctx_set_current(context_), "cuCtxSetCurrent");
    check(api_, api_.stream_create(&stream_, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    check(api_, api_.event_create(&start_, CU_EVENT_DEFAULT), "cuEventCreate");
    check(api_, api_.event_create(&end_, CU_EVENT_DEFAULT), "cuEventCreate");
    int l2 = 0;
    check(api_, api_.device_get_attribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, device_), "cuDeviceGetAttribute");
    l2_bytes_ = static_cast<std::size_t>(l2);
    check(api_, api_.device_get_attribute(&multiprocessors_, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device_), "cuDeviceGetAttribute");
    std::size_t total = 0;
    check(api_, api_.device_total_mem(&total, device_), "cuDeviceTotalMem");
    kept_budget_ = total / 5;
    // Judged with no L2 set aside for persisting accesses. A context starts with some on the H200 (11.25 MiB seen with
    // driver 580), so it is taken back first; what is left is the level a call must not raise.
    api_.ctx_set_limit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE, 0);
    if (api_.ctx_get_limit(&persisting_at_start_, CU_LIMIT_PERSISTING_L2_CACHE_SIZE) != CUDA_SUCCESS) persisting_at_start_ = SIZE_MAX;
  }

  ~GpuWorker() {
    unload();
    evict_mappings(SIZE_MAX);
    release_device_buffer();
    while (!kept_.empty()) forget_kept(kept_.begin());
    if (comparison_module_) api_.module_unload(comparison_module_);
    if (findings_) api_.mem_free(findings_);
    if (flush_buffer_) api_.mem_free(flush_buffer_);
    api_.event_destroy(start_);
    api_.event_destroy(end_);
    api_.stream_destroy(stream_);
    api_.primary_ctx_release(device_);
  }

  json handle(const std::string& op, const json& request) {
    if (op == "hello" || op == "noop") return hello();
    // Raised after the context exists: the driver's own set-up (device files, sysfs, its threads) is done by then.
    if (op == "sandbox") return {{"ok", true}, {"sandbox", enter_sandbox(sandbox_policy_from(request.get<message::Sandbox>().policy))}};
    if (op == "load") return load(request.get<message::Load>());
    if (op == "map") {
      const auto mapping = request.get<message::Map>();
      return map(mapping.file, mapping.bytes);
    }
    if (op == "bind") return bind(request.get<message::Bind>());
    if (op == "upload" || op == "download") return transfer(request.get<message::Transfer>());
    if (op == "copy") return copy(request.get<message::Copy>().ranges);
    if (op == "flush") return flush(request.get<message::Flush>().bytes);
    if (op == "call") return call(request.get<message::Call>());
    if (op == "keep") return keep(request.get<message::Keep>());
    if (op == "restore") return restore(request.get<message::Restore>());
    if (op == "forget") {
      if (const auto found = kept_.find(request.get<message::Forget>().key); found != kept_.end()) forget_kept(found);
      return {{"ok", true}};
    }
    if (op == "load_comparison") return load_comparison(request.get<message::LoadComparison>().cubin_hex);
    if (op == "compare") return compare(request.get<message::CompareOutputs>());
    throw std::runtime_error(fmt::format("unknown op \"{}\"", op));
  }

 private:
  json hello() {
    char name[256] = {};
    api_.device_get_name(name, sizeof name, device_);
    std::size_t free_bytes = 0, total_bytes = 0;
    check(api_, api_.mem_get_info(&free_bytes, &total_bytes), "cuMemGetInfo");
    return {{"ok", true},        {"pid", getpid()},          {"protocol", kWorkerProtocolVersion}, {"device", fmt::format("cuda:{}", ordinal_)},
            {"name", name},      {"free_bytes", free_bytes}, {"pooled_bytes", device_bytes_},      {"timer", timer_ ? "cupti" : "events"},
            {"timer_why", timer_why_}};
  }

  void unload() {
    strays_before_checks_ = 0;  // the last candidate's, not the next one's
    function_ = nullptr;
    if (module_) api_.module_unload(module_);
    module_ = nullptr;
    library_.close();
    launch_.reset();
  }

  // A worker judges several kernel-only candidates in turn: nothing one of them wrote is left for the next to read.
  void scrub() {
    if (device_buffer_) check(api_, api_.memset_d8_async(device_buffer_, 0xFF, device_bytes_, stream_), "scrub the device buffer");
    check(api_, api_.ctx_synchronize(), "synchronise after the scrub");
  }

  SharedBuffer& mapped() {
    if (!host_) throw std::runtime_error("no buffer mapped (map before upload, download or copy)");
    return *host_;
  }

  json load_library(const std::string& path) {
    unload();
    scrub();
    const std::string problem = library_.open(path);
    if (!problem.empty()) return {{"ok", false}, {"error", problem}};
    return {{"ok", true}};
  }

  json load(const message::Load& request) {
    if (request.cubin) return load_cubin(*request.cubin, request.kernel.value_or(""));
    if (!request.library) throw std::runtime_error("the GPU worker loads a native library or a cubin");
    return load_library(*request.library);
  }

  json load_cubin(const std::string& cubin, const std::string& kernel) {
    unload();
    scrub();
    std::ifstream in(cubin, std::ios::binary);
    const std::vector<char> image((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (image.empty()) return {{"ok", false}, {"error", "the cubin is missing or empty"}};
    if (const CUresult loaded = api_.module_load_data(&module_, image.data()); loaded != CUDA_SUCCESS) {
      module_ = nullptr;
      return {{"ok", false}, {"error", fmt::format("the cubin does not load: {}", error_name(api_, loaded))}};
    }
    if (!kernel.empty()) {
      if (api_.module_get_function(&function_, module_, kernel.c_str()) != CUDA_SUCCESS)
        return {{"ok", false}, {"error", fmt::format("no extern \"C\" __global__ function named {} in the module", kernel)}};
      return {{"ok", true}, {"kernel", kernel}};
    }
    unsigned count = 0;
    check(api_, api_.module_get_function_count(&count, module_), "cuModuleGetFunctionCount");
    if (count != 1)
      return {{"ok", false}, {"error", fmt::format("the module has {} kernels; name the one to launch (\"kernel\" in the template's launch)", count)}};
    check(api_, api_.module_enumerate_functions(&function_, 1, module_), "cuModuleEnumerateFunctions");
    const char* found = nullptr;
    api_.func_get_name(&found, function_);
    return {{"ok", true}, {"kernel", found ? found : ""}};
  }

  void release_device_buffer() {
    if (device_buffer_) api_.mem_free(device_buffer_);
    device_buffer_ = 0;
    device_bytes_ = 0;
  }

  // One device allocation, reused while it is big enough: nothing is allocated per candidate call. The host side stays
  // mapped and pinned for the next candidate in this worker (the judge keeps each workload's file), within a budget.
  json map(const std::string& file, std::size_t bytes) {
    struct stat status {};
    if (::stat(file.c_str(), &status) != 0) throw std::runtime_error(fmt::format("cannot map {}: it does not exist", file));
    const std::string key = fmt::format("{}:{}:{}:{}", file, status.st_dev, status.st_ino, bytes);
    auto found = mappings_.find(key);
    if (found == mappings_.end()) {
      evict_mappings(bytes);
      Mapping mapping;
      mapping.file = file;
      mapping.device = status.st_dev;
      mapping.inode = status.st_ino;
      mapping.host = SharedBuffer::open(file, bytes);
      // Pinned staging makes the copies several times faster; pageable copies still work when the driver refuses.
      mapping.pinned = api_.mem_host_register(mapping.host.data(), bytes, 0) == CUDA_SUCCESS;
      mapped_bytes_ += bytes;
      found = mappings_.emplace(key, std::move(mapping)).first;
    }
    found->second.last_use = ++map_requests_;
    host_ = &found->second.host;
    if (bytes > device_bytes_) {
      release_device_buffer();
      check(api_, allocate(&device_buffer_, bytes), "cuMemAlloc (the workload's buffer)");
      device_bytes_ = bytes;
    }
    return {{"ok", true}, {"pinned", found->second.pinned}};
  }

  // Files the judge has removed or replaced first, then the least recently mapped, until `incoming` more bytes fit the
  // budget: a quarter of the machine's memory (8 to 64 GiB). A search cycles through every workload of a task for each
  // candidate; with a smaller budget (8 GiB) the largest task's buffers were pinned anew for every candidate, 1.2 s each.
  void evict_mappings(std::size_t incoming) {
    static const std::size_t budget = mapped_budget();
    for (auto it = mappings_.begin(); it != mappings_.end();) {
      struct stat status {};
      const bool stale = ::stat(it->second.file.c_str(), &status) != 0 || status.st_dev != it->second.device || status.st_ino != it->second.inode;
      it = stale ? forget(it) : std::next(it);
    }
    while (!mappings_.empty() && (incoming > budget || mapped_bytes_ > budget - incoming))
      forget(least_recent(mappings_));
  }

  static std::size_t mapped_budget() {
    const auto pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
    const std::size_t memory = pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) : 0;
    return std::clamp(memory / 4, std::size_t{8} << 30, std::size_t{64} << 30);
  }

  auto forget(auto mapping) -> decltype(mapping) {  // an iterator of mappings_; returns the next
    if (host_ == &mapping->second.host) host_ = nullptr;
    if (mapping->second.pinned) api_.mem_host_unregister(mapping->second.host.data());
    mapped_bytes_ -= mapping->second.host.size();
    return mappings_.erase(mapping);
  }

  // Device memory, making room by dropping kept workloads (least recently used first) when there is none: what is kept
  // only saves uploads, a candidate's buffer must fit.
  CUresult allocate(CUdeviceptr* pointer, std::size_t bytes) {
    for (;;) {
      const CUresult result = api_.mem_alloc(pointer, bytes);
      if (result != CUDA_ERROR_OUT_OF_MEMORY || kept_.empty()) return result;
      forget_kept(least_recent(kept_));
    }
  }

  auto forget_kept(auto entry) -> decltype(entry) {  // an iterator of kept_; returns the next
    api_.mem_free(entry->second.memory);
    kept_bytes_ -= entry->second.bytes;
    return kept_.erase(entry);
  }

  // A screening's inputs and reference outputs for a workload, kept on the device under the judge's key; a candidate's
  // load scrubs only its own buffer. A fifth of the device's memory at most.
  json keep(const message::Keep& request) {
    if (kept_.count(request.key)) return {{"ok", true}, {"kept", true}};
    check_inside(request.ranges, mapped().size(), "keep");
    std::size_t bytes = 0;
    for (const auto& range : request.ranges) bytes += range.bytes;
    if (bytes > kept_budget_) return {{"ok", true}, {"kept", false}, {"why", "larger than the device memory kept for screenings"}};
    while (!kept_.empty() && kept_bytes_ + bytes > kept_budget_) forget_kept(least_recent(kept_));
    // A quarter of the device stays free for others: a run's full judge and its other screener are workers of their own.
    std::size_t free_bytes = 0, total_bytes = 0;
    check(api_, api_.mem_get_info(&free_bytes, &total_bytes), "cuMemGetInfo");
    if (free_bytes < bytes + total_bytes / 4) return {{"ok", true}, {"kept", false}, {"why", "too little free device memory"}};
    Kept entry;
    entry.bytes = bytes;
    if (const CUresult allocated = api_.mem_alloc(&entry.memory, bytes); allocated != CUDA_SUCCESS)
      return {{"ok", true}, {"kept", false}, {"why", error_name(api_, allocated)}};
    std::size_t at = 0;
    for (const auto& [offset, length] : request.ranges) {
      if (const CUresult copied = api_.memcpy_htod(entry.memory + at, mapped().data() + offset, length); copied != CUDA_SUCCESS) {
        api_.mem_free(entry.memory);
        check(api_, copied, "cuMemcpyHtoD (kept)");
      }
      at += length;
    }
    entry.last_use = ++map_requests_;
    kept_bytes_ += bytes;
    kept_.emplace(request.key, entry);
    return {{"ok", true}, {"kept", true}};
  }

  json restore(const message::Restore& request) {
    const auto found = kept_.find(request.key);
    if (found == kept_.end()) return {{"ok", true}, {"missing", true}};
    found->second.last_use = ++map_requests_;
    std::vector<BufferRange> sources, targets;
    for (const auto& copy : request.copies) {
      sources.push_back({copy.from, copy.bytes});
      targets.push_back({copy.to, copy.bytes});
    }
    check_inside(sources, found->second.bytes, "restore (kept bytes)");
    check_inside(targets, device_bytes_, "restore");
    for (const auto& copy : request.copies)
      check(api_, api_.memcpy_dtod(device_buffer_ + copy.to, found->second.memory + copy.from, copy.bytes), "cuMemcpyDtoD (restore)");
    return {{"ok", true}};
  }

  json load_comparison(const std::string& hex) {
    if (comparison_ && findings_) return {{"ok", true}};
    if (comparison_module_) api_.module_unload(comparison_module_);
    comparison_module_ = nullptr, comparison_ = nullptr;
    if (hex.size() % 2 != 0) throw std::runtime_error("the comparison's cubin is not hex");
    std::vector<unsigned char> image(hex.size() / 2);
    for (std::size_t i = 0; i < image.size(); ++i) image[i] = static_cast<unsigned char>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
    check(api_, api_.module_load_data(&comparison_module_, image.data()), "cuModuleLoadData (the comparison)");
    check(api_, api_.module_get_function(&comparison_, comparison_module_, "kernelarc_compare"), "cuModuleGetFunction (the comparison)");
    if (!findings_) check(api_, allocate(&findings_, 64), "cuMemAlloc (the comparison's findings)");
    return {{"ok", true}};
  }

  json compare(const message::CompareOutputs& request) {
    const auto found = kept_.find(request.key);
    if (found == kept_.end()) return {{"ok", true}, {"missing", true}};
    if (!comparison_) throw std::runtime_error("compare before load_comparison");
    // The judge's own kernels are no candidate's work between calls: kernels that came before them are kept for the next
    // call to report, and theirs are closed off as a call's.
    if (timer_) strays_before_checks_ += timer_->begin();
    json findings = json::array();
    for (const auto& output : request.outputs) {
      const auto dtype = task::parse_dtype(output.dtype);
      if (!dtype || !compared_on_device(*dtype)) throw std::runtime_error(fmt::format("{} is not compared on the device", output.dtype));
      const std::size_t bytes = output.elements * (task::dtype_bits(*dtype) / 8);
      check_inside(std::vector<BufferRange>{{output.at, bytes}}, device_bytes_, "compare");
      check_inside(std::vector<BufferRange>{{output.reference, bytes}}, found->second.bytes, "compare (kept bytes)");
      findings.push_back(findings_to_json(compare_on_device(api_, comparison_, stream_, findings_, device_buffer_ + output.at,
                                                            found->second.memory + output.reference, output.elements, *dtype,
                                                            output.atol, output.rtol, output.allow_negative_inf, output.poison,
                                                            multiprocessors_)));
    }
    if (timer_) {
      check(api_, api_.ctx_synchronize(), "synchronise after the comparison");
      timer_->end(0);
    }
    return {{"ok", true}, {"findings", std::move(findings)}};
  }

  json bind(const message::Bind& request) {
    inputs_ = message::layouts(request.inputs);
    outputs_ = message::layouts(request.outputs);
    launch_.reset();
    if (const auto& launch = request.launch) {
      Launch geometry;
      for (std::size_t i = 0; i < 3 && i < launch->grid.size(); ++i) geometry.grid[i] = launch->grid[i];
      for (std::size_t i = 0; i < 3 && i < launch->block.size(); ++i) geometry.block[i] = launch->block[i];
      geometry.shared_bytes = launch->shared_bytes;
      geometry.arguments = launch->arguments;
      geometry.tensor_maps = launch->tensor_maps;
      for (const auto& map : geometry.tensor_maps)
        if (map.input < 0 || static_cast<std::size_t>(map.input) >= inputs_.size()) throw std::runtime_error("a tensor map of no input");
      // A composed module holds a kernel per part: this workload's is named in its launch.
      if (launch->kernel && module_ && api_.module_get_function(&function_, module_, launch->kernel->c_str()) != CUDA_SUCCESS)
        return {{"ok", false}, {"error", fmt::format("no extern \"C\" __global__ function named {} in the module", *launch->kernel)}};
      if (!function_) throw std::runtime_error("bind with a launch but no kernel loaded");
      if (geometry.shared_bytes > 48 * 1024)
        check(api_, api_.func_set_attribute(function_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, static_cast<int>(geometry.shared_bytes)),
              "cuFuncSetAttribute (dynamic shared memory)");
      launch_ = geometry;
    }
    return {{"ok", true}};
  }

  json transfer(const message::Transfer& request) {
    const bool upload = request.direction == message::Direction::upload;
    check_inside(request.ranges, mapped().size(), upload ? "upload" : "download");
    for (const auto& [offset, bytes] : request.ranges) {
      if (upload)
        check(api_, api_.memcpy_htod(device_buffer_ + offset, mapped().data() + offset, bytes), "cuMemcpyHtoD");
      else
        check(api_, api_.memcpy_dtoh(mapped().data() + offset, device_buffer_ + offset, bytes), "cuMemcpyDtoH");
    }
    return {{"ok", true}};
  }

  // [from, to, bytes] ranges within the device copy of the buffer, device to device.
  json copy(const std::vector<BufferCopy>& copies) {
    check_inside(copies, mapped().size());
    for (const auto& copy : copies)
      check(api_, api_.memcpy_dtod(device_buffer_ + copy.to, device_buffer_ + copy.from, copy.bytes), "cuMemcpyDtoD");
    return {{"ok", true}};
  }

  // Writes twice the L2 with a value that changes every time, and drops any persisting-L2 window.
  json flush(std::size_t requested) {
    const std::size_t bytes = std::max(requested, 2 * l2_bytes_);
    if (bytes > flush_bytes_) {
      if (flush_buffer_) api_.mem_free(flush_buffer_);
      flush_buffer_ = 0;
      check(api_, allocate(&flush_buffer_, bytes), "cuMemAlloc (the L2 flush buffer)");
      flush_bytes_ = bytes;
    }
    fill_flush_buffer();
    check(api_, api_.ctx_reset_persisting_l2(), "cuCtxResetPersistingL2Cache");
    check(api_, api_.ctx_synchronize(), "synchronise after the L2 flush");
    flushed_ = true;
    return {{"ok", true}, {"bytes", flush_bytes_}};
  }

  void fill_flush_buffer() {
    check(api_, api_.memset_d8_async(flush_buffer_, static_cast<unsigned char>(++flushes_), flush_bytes_, stream_), "L2 flush");
  }

  CUresult launch_kernel(const CallTensors& tensors) {
    std::vector<CUdeviceptr> pointers;
    for (std::int32_t i = 0; i < tensors.input_count(); ++i) pointers.push_back(reinterpret_cast<CUdeviceptr>(tensors.input_data(i)));
    for (std::int32_t i = 0; i < tensors.output_count(); ++i) pointers.push_back(reinterpret_cast<CUdeviceptr>(tensors.output_data(i)));
    std::vector<long long> scalars = launch_->arguments;
    std::vector<void*> parameters;
    for (auto& pointer : pointers) parameters.push_back(&pointer);
    for (auto& scalar : scalars) parameters.push_back(&scalar);
    for (auto& map : launch_->encoded) parameters.push_back(&map);
    return api_.launch_kernel(function_, launch_->grid[0], launch_->grid[1], launch_->grid[2], launch_->block[0], launch_->block[1],
                              launch_->block[2], launch_->shared_bytes, stream_, parameters.data(), nullptr);
  }

  // The launch's tensor maps over this call's input addresses (host work: done before the timed span begins).
  void encode_tensor_maps(const CallTensors& tensors) {
    launch_->encoded.resize(launch_->tensor_maps.size());
    for (std::size_t i = 0; i < launch_->tensor_maps.size(); ++i) {
      const auto& map = launch_->tensor_maps[i];
      const CUtensorMapDataType type = map.element_bytes == 1   ? CU_TENSOR_MAP_DATA_TYPE_UINT8
                                       : map.element_bytes == 2 ? CU_TENSOR_MAP_DATA_TYPE_UINT16
                                       : map.element_bytes == 4 ? CU_TENSOR_MAP_DATA_TYPE_UINT32
                                                                : CU_TENSOR_MAP_DATA_TYPE_UINT64;
      const CUtensorMapSwizzle swizzle = map.swizzle_bytes == 128  ? CU_TENSOR_MAP_SWIZZLE_128B
                                         : map.swizzle_bytes == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                                         : map.swizzle_bytes == 32 ? CU_TENSOR_MAP_SWIZZLE_32B
                                                                   : CU_TENSOR_MAP_SWIZZLE_NONE;
      const cuuint64_t row_bytes = static_cast<cuuint64_t>(map.columns) * map.element_bytes;
      const cuuint64_t dims[2] = {static_cast<cuuint64_t>(map.columns), static_cast<cuuint64_t>(map.rows)};
      const cuuint64_t strides[1] = {(row_bytes + 15) / 16 * 16};  // one row: never read past, but the driver wants 16 bytes
      const cuuint32_t box[2] = {map.box_columns, map.box_rows}, element_strides[2] = {1, 1};
      check(api_,
            api_.tensor_map_encode_tiled(&launch_->encoded[i], type, 2, tensors.input_data(map.input), dims, strides, box, element_strides,
                                         CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                         CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
            fmt::format("cuTensorMapEncodeTiled (input {})", map.input).c_str());
    }
  }

  json call(const message::Call& request) {
    const bool null_call = request.null_entry;
    const kernelarc_entry_fn entry = library_.entry();
    if (!null_call && !entry && !(function_ && launch_)) throw std::runtime_error("call before load and bind");
    const CallTensors tensors(inputs_, request.inputs, outputs_, request.outputs, reinterpret_cast<std::byte*>(device_buffer_),
                              device_bytes_, {kDLCUDA, ordinal_});
    check(api_, api_.ctx_synchronize(), "synchronise before the call");
    if (request.poison) {
      for (std::int32_t i = 0; i < tensors.output_count(); ++i)
        check(api_, api_.memset_d8_async(reinterpret_cast<CUdeviceptr>(tensors.output_data(i)), *request.poison,
                                          outputs_[static_cast<std::size_t>(i)].bytes(), stream_),
              "poison the outputs");
      // The poison's writes would leave the outputs in L2 (up to 20% off mid-size times against the benchmark's
      // harness, H100 2026-12-06): a call the judge flushed for is flushed again after them.
      if (flushed_) fill_flush_buffer();
      check(api_, api_.ctx_synchronize(), "synchronise after poisoning");
    }
    flushed_ = false;
    if (!null_call && !entry && !launch_->tensor_maps.empty()) encode_tensor_maps(tensors);
    const int stray_kernels = timer_ ? timer_->begin() + std::exchange(strays_before_checks_, 0) : 0;
    check(api_, api_.event_record(start_, stream_), "cuEventRecord");
    const auto host_start = std::chrono::steady_clock::now();
    int rc = 0;
    if (!null_call) {
      if (entry) {
        rc = entry(tensors.inputs(), tensors.input_count(), tensors.outputs(), tensors.output_count(), stream_);
      } else if (const CUresult launched = launch_kernel(tensors); launched != CUDA_SUCCESS) {
        check(api_, launched, "cuLaunchKernel");
      }
    }
    // The given stream first: work still running after it is done was left on another stream, unjoined.
    const CUresult stream_finished = api_.stream_synchronize(stream_);
    const std::uint64_t stream_done = timer_ && stream_finished == CUDA_SUCCESS ? timer_->now() : 0;
    // Then the whole device: work the candidate put on other streams is inside the measurement.
    const CUresult finished = api_.ctx_synchronize();
    check(api_, stream_finished, "the candidate's work on its stream");
    const double host_ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - host_start).count();
    check(api_, finished, "the candidate's work on the device");
    check(api_, api_.event_record(end_, stream_), "cuEventRecord");
    check(api_, api_.event_synchronize(end_), "cuEventSynchronize");
    float event_ms = 0;
    check(api_, api_.event_elapsed_time(&event_ms, start_, end_), "cuEventElapsedTime");
    const double events_ns = static_cast<double>(event_ms) * 1e6;
    json reply = {{"ok", true},           {"rc", rc},         {"events_ns", events_ns}, {"host_ns", host_ns},
                  {"metadata", tensors.metadata_change()}, {"timer", timer_ ? "cupti" : "events"}};
    // L2 set aside for persisting accesses survives the judge's flush: reported, then taken back so nothing carries over.
    if (std::size_t persisting = 0; persisting_at_start_ != SIZE_MAX &&
                                    api_.ctx_get_limit(&persisting, CU_LIMIT_PERSISTING_L2_CACHE_SIZE) == CUDA_SUCCESS &&
                                    persisting > persisting_at_start_) {
      reply["persisting_l2_bytes"] = persisting;
      api_.ctx_set_limit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE, persisting_at_start_);
      api_.ctx_reset_persisting_l2();
    }
    if (timer_) {
      const ActivitySpan span = timer_->end(null_call ? 0 : stream_done);
      reply["activity_ns"] = span.span_ns;
      reply["records"] = span.records;
      reply["kernels"] = span.kernels;
      reply["late_records"] = span.late;
      reply["stray_kernels"] = stray_kernels;
      reply["ns"] = span.records > 0 ? span.span_ns : events_ns;
    } else {
      reply["ns"] = events_ns;
    }
    return reply;
  }

  const DriverApi& api_;
  int ordinal_;
  std::unique_ptr<ActivityTimer> timer_;
  std::string timer_why_;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  CUstream stream_ = nullptr;
  CUevent start_ = nullptr, end_ = nullptr;
  std::size_t l2_bytes_ = 0;
  std::size_t persisting_at_start_ = SIZE_MAX;  // the persisting-L2 set-aside the judge leaves; SIZE_MAX: not readable here
  struct Mapping {
    SharedBuffer host;
    std::string file;
    dev_t device = 0;
    ino_t inode = 0;
    bool pinned = false;
    std::uint64_t last_use = 0;
  };
  std::map<std::string, Mapping> mappings_;  // by file, inode and size
  std::size_t mapped_bytes_ = 0;
  std::uint64_t map_requests_ = 0;
  SharedBuffer* host_ = nullptr;  // the mapping of the bound workload
  CUdeviceptr device_buffer_ = 0;
  std::size_t device_bytes_ = 0;
  CUdeviceptr flush_buffer_ = 0;
  std::size_t flush_bytes_ = 0;
  unsigned flushes_ = 0;
  bool flushed_ = false;  // a flush came since the last call: that call's caches must be cold
  struct Kept {
    CUdeviceptr memory = 0;
    std::size_t bytes = 0;
    std::uint64_t last_use = 0;
  };
  std::map<std::string, Kept> kept_;  // by the judge's key
  std::size_t kept_bytes_ = 0, kept_budget_ = 0;
  int multiprocessors_ = 1;
  int strays_before_checks_ = 0;  // kernels started between calls, seen when a comparison began
  CUmodule comparison_module_ = nullptr;
  CUfunction comparison_ = nullptr;
  CUdeviceptr findings_ = 0;
  CandidateLibrary library_;
  CUmodule module_ = nullptr;
  CUfunction function_ = nullptr;
  std::optional<Launch> launch_;
  std::vector<TensorLayout> inputs_, outputs_;
};

}  // namespace

int run_gpu_worker(WorkerChannel& channel, const std::string& device) {
  const int ordinal = std::atoi(device.c_str() + 5);
  std::string why;
  const DriverApi* api = load_driver(&why);
  if (!api) {
    fmt::print(stderr, "kernelarc worker: no GPU is available for {}: {}\n", device, why);
    return 2;
  }
  // CUPTI's activity kinds are enabled before the context exists, so every record of it is seen.
  std::string timer_why;
  std::unique_ptr<ActivityTimer> timer;
  if (const char* wanted = std::getenv("KERNELARC_GPU_TIMER"); wanted && std::string(wanted) == "events")
    timer_why = "KERNELARC_GPU_TIMER=events";
  else
    timer = ActivityTimer::create(&timer_why);
  std::unique_ptr<GpuWorker> worker;
  try {
    worker = std::make_unique<GpuWorker>(*api, ordinal, std::move(timer), timer_why);
  } catch (const std::exception& error) {
    fmt::print(stderr, "kernelarc worker: cannot use {}: {}\n", device, error.what());
    return 2;
  }
  return channel.serve([&](const std::string& op, const json& request) -> json {
    try {
      return worker->handle(op, request);
    } catch (const CudaError& error) {
      // After a sticky error the context is unusable: reply, then the channel ends the process.
      return {{"ok", false}, {"error", error.what()}, {"fatal", is_sticky(error.code())}};
    }
  });
}

}  // namespace kernelarc::judge::cuda
