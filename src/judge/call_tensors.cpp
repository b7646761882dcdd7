#include "judge/call_tensors.h"

#include <fmt/format.h>

#include <stdexcept>

namespace kernelarc::judge {

std::size_t TensorLayout::bytes() const {
  std::size_t elements = 1;
  for (auto extent : shape) elements *= static_cast<std::size_t>(extent);
  return (elements * dtype.bits * dtype.lanes + 7) / 8;
}

namespace {

bool inside(std::size_t offset, std::size_t bytes, std::size_t size) { return offset <= size && bytes <= size - offset; }

}  // namespace

void check_inside(const std::vector<BufferRange>& ranges, std::size_t size, const char* request) {
  for (const auto& range : ranges)
    if (!inside(range.offset, range.bytes, size)) throw std::runtime_error(fmt::format("{} outside the shared buffer", request));
}

void check_inside(const std::vector<BufferCopy>& copies, std::size_t size) {
  for (const auto& copy : copies)
    if (!inside(copy.from, copy.bytes, size) || !inside(copy.to, copy.bytes, size)) throw std::runtime_error("copy outside the shared buffer");
}

CallTensors::CallTensors(const std::vector<TensorLayout>& inputs, const std::vector<std::size_t>& input_offsets,
                         const std::vector<TensorLayout>& outputs, const std::vector<std::size_t>& output_offsets, std::byte* base, std::size_t buffer_bytes, DLDevice device) {
  if (!base) throw std::runtime_error("call before map");
  in_.layouts = &inputs;
  out_.layouts = &outputs;
  fill(in_, input_offsets, base, buffer_bytes, device, nullptr);
  fill(out_, output_offsets, base, buffer_bytes, device, &output_offset_values_);
  for (auto& t : in_.tensors) input_pointers_.push_back(&t);
  for (auto& t : out_.tensors) output_pointers_.push_back(&t);
}

// Fresh structs for every call, so a candidate that edits them cannot affect the next one.
void CallTensors::fill(Side& side, const std::vector<std::size_t>& offsets, std::byte* base, std::size_t buffer_bytes, DLDevice device,
                       std::vector<std::size_t>* offset_values) {
  const auto& layouts = *side.layouts;
  if (offsets.size() != layouts.size()) throw std::runtime_error("call: tensor count differs from bind");
  side.tensors.resize(layouts.size());
  for (const auto& layout : layouts) side.shapes.push_back(layout.shape);
  for (std::size_t i = 0; i < layouts.size(); ++i) {
    const auto offset = offsets[i];
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
