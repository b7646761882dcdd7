// The DLTensors of one candidate call, built fresh for every call from the bound layouts, and the check
// that the candidate left their metadata alone. Shared by the CPU and the GPU worker.
#pragma once

#include <dlpack/dlpack.h>

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kernelarc::judge {

struct TensorLayout {
  DLDataType dtype{};
  std::vector<std::int64_t> shape;
  std::size_t bytes() const;  // packed storage (fp4: two values a byte)
};

// The ranges of an upload or download request and of a copy (worker_messages.h reads them), each checked to lie inside
// a buffer of `size` bytes; throws std::runtime_error naming the request otherwise.
struct BufferRange {
  std::size_t offset = 0, bytes = 0;
};
struct BufferCopy {
  std::size_t from = 0, to = 0, bytes = 0;
};
void check_inside(const std::vector<BufferRange>& ranges, std::size_t size, const char* request);
void check_inside(const std::vector<BufferCopy>& copies, std::size_t size);

class CallTensors {
 public:
  // `offsets` are byte offsets into a buffer of `buffer_bytes` at `base` on `device`.
  CallTensors(const std::vector<TensorLayout>& inputs, const std::vector<std::size_t>& input_offsets, const std::vector<TensorLayout>& outputs,
              const std::vector<std::size_t>& output_offsets, std::byte* base, std::size_t buffer_bytes, DLDevice device);
  CallTensors(const CallTensors&) = delete;
  CallTensors& operator=(const CallTensors&) = delete;

  const DLTensor* const* inputs() const { return input_pointers_.data(); }
  DLTensor* const* outputs() const { return output_pointers_.data(); }
  std::int32_t input_count() const { return static_cast<std::int32_t>(in_.tensors.size()); }
  std::int32_t output_count() const { return static_cast<std::int32_t>(out_.tensors.size()); }
  void* input_data(std::size_t i) const { return in_.data[i]; }
  void* output_data(std::size_t i) const { return out_.data[i]; }
  const std::vector<std::size_t>& output_offsets() const { return output_offset_values_; }

  // "dtype:..." or "shape:..." when the candidate edited a tensor's metadata during the call, else "".
  std::string metadata_change() const;

 private:
  struct Side {
    const std::vector<TensorLayout>* layouts;
    std::vector<DLTensor> tensors;
    std::vector<std::vector<std::int64_t>> shapes;
    std::vector<void*> data;
  };
  static void fill(Side& side, const std::vector<std::size_t>& offsets, std::byte* base, std::size_t buffer_bytes, DLDevice device,
                   std::vector<std::size_t>* offset_values);
  static std::string change(const char* name, const Side& side);

  Side in_, out_;
  std::vector<const DLTensor*> input_pointers_;
  std::vector<DLTensor*> output_pointers_;
  std::vector<std::size_t> output_offset_values_;
};

}  // namespace kernelarc::judge
