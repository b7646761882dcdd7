#include "judge/call_tensors.h"

#include <fmt/format.h>

#include <stdexcept>

#include "task/dtype.h"

namespace kernelarc::judge {

using nlohmann::json;

std::size_t TensorLayout::bytes() const {
  std::size_t elements = 1;
  for (auto extent : shape) elements *= static_cast<std::size_t>(extent);
  return (elements * dtype.bits * dtype.lanes + 7) / 8;
}

namespace {

bool inside(std::size_t offset, std::size_t bytes, std::size_t size) { return offset <= size && bytes <= size - offset; }

// A byte count or offset: a non-negative integer, never a float (converting 1e54 to size_t is undefined behaviour).
std::size_t count_at(const json& value) {
  if (!value.is_number_unsigned() && !(value.is_number_integer() && value.get<std::int64_t>() >= 0))
    throw std::runtime_error(fmt::format("expected a non-negative integer, got {}", value.dump()));
  return value.get<std::size_t>();
}

}  // namespace

std::vector<TensorLayout> parse_layouts(const json& list) {
  constexpr std::size_t kMostElements = std::size_t{1} << 48;  // beyond any buffer: the byte count cannot overflow
  std::vector<TensorLayout> out;
  for (const auto& item : list) {
    const auto dtype = task::parse_dtype(item.at("dtype").get<std::string>());
    if (!dtype) throw std::runtime_error("unknown dtype in bind");
    std::vector<std::int64_t> shape;
    std::size_t elements = 1;
    for (const auto& extent : item.at("shape")) {
      shape.push_back(static_cast<std::int64_t>(count_at(extent)));
      if (__builtin_mul_overflow(elements, static_cast<std::size_t>(shape.back()), &elements) || elements > kMostElements)
        throw std::runtime_error(fmt::format("shape {} in bind is too large", item.at("shape").dump()));
    }
    out.push_back({task::to_dlpack(*dtype), std::move(shape)});
  }
  return out;
}


std::vector<BufferRange> parse_ranges(const json& ranges, std::size_t size, const char* request) {
  std::vector<BufferRange> out;
  for (const auto& range : ranges) {
    const BufferRange parsed{count_at(range.at(0)), count_at(range.at(1))};
    if (!inside(parsed.offset, parsed.bytes, size)) throw std::runtime_error(fmt::format("{} outside the shared buffer", request));
    out.push_back(parsed);
  }
  return out;
}

std::vector<BufferCopy> parse_copies(const json& ranges, std::size_t size) {
  std::vector<BufferCopy> out;
  for (const auto& range : ranges) {
    const BufferCopy parsed{count_at(range.at(0)), count_at(range.at(1)), count_at(range.at(2))};
    if (!inside(parsed.from, parsed.bytes, size) || !inside(parsed.to, parsed.bytes, size))
      throw std::runtime_error("copy outside the shared buffer");
    out.push_back(parsed);
  }
  return out;
}

CallTensors::CallTensors(const std::vector<TensorLayout>& inputs, const json& input_offsets, const std::vector<TensorLayout>& outputs,
                         const json& output_offsets, std::byte* base, std::size_t buffer_bytes, DLDevice device) {
  if (!base) throw std::runtime_error("call before map");
  in_.layouts = &inputs;
  out_.layouts = &outputs;
  fill(in_, input_offsets, base, buffer_bytes, device, nullptr);
  fill(out_, output_offsets, base, buffer_bytes, device, &output_offset_values_);
  for (auto& t : in_.tensors) input_pointers_.push_back(&t);
  for (auto& t : out_.tensors) output_pointers_.push_back(&t);
}

// Fresh structs for every call, so a candidate that edits them cannot affect the next one.
void CallTensors::fill(Side& side, const json& offsets, std::byte* base, std::size_t buffer_bytes, DLDevice device,
                       std::vector<std::size_t>* offset_values) {
  const auto& layouts = *side.layouts;
  if (offsets.size() != layouts.size()) throw std::runtime_error("call: tensor count differs from bind");
  side.tensors.resize(layouts.size());
  for (const auto& layout : layouts) side.shapes.push_back(layout.shape);
  for (std::size_t i = 0; i < layouts.size(); ++i) {
    const auto offset = count_at(offsets[i]);
    if (!inside(offset, layouts[i].bytes(), buffer_bytes)) throw std::runtime_error("call: tensor outside the shared buffer");
    if (offset_values) offset_values->push_back(offset);
    DLTensor& t = side.tensors[i];
    t.data = base + offset;
    t.device = device;
    t.ndim = static_cast<std::int32_t>(layouts[i].shape.size());
    t.dtype = layouts[i].dtype;
    t.shape = side.shapes[i].data();
    t.strides = nullptr;
    t.byte_offset = 0;
    side.data.push_back(t.data);
  }
}

std::string CallTensors::change(const char* name, const Side& side) {
  const auto& layouts = *side.layouts;
  for (std::size_t i = 0; i < layouts.size(); ++i) {
    const DLTensor& t = side.tensors[i];
    if (t.dtype.code != layouts[i].dtype.code || t.dtype.bits != layouts[i].dtype.bits || t.dtype.lanes != layouts[i].dtype.lanes)
      return fmt::format("dtype:{} {} dtype was changed by the candidate", name, i);
    if (t.data != side.data[i] || t.ndim != static_cast<std::int32_t>(layouts[i].shape.size()) || t.shape != side.shapes[i].data() ||
        side.shapes[i] != layouts[i].shape || t.strides != nullptr || t.byte_offset != 0)
      return fmt::format("shape:{} {} shape, data pointer or strides were changed by the candidate", name, i);
  }
  return "";
}

std::string CallTensors::metadata_change() const {
  std::string found = change("input", in_);
  return found.empty() ? change("output", out_) : found;
}

}  // namespace kernelarc::judge
