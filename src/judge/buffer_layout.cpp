#include "judge/buffer_layout.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>

#include "common/hash.h"
#include "common/parallel.h"

namespace kernelarc::judge {

namespace {

std::size_t align_up(std::size_t value) { return (value + kAlignment - 1) / kAlignment * kAlignment; }

}  // namespace

OutputGuards output_guards(const Layout& layout, std::size_t i) {
  return {layout.output_offsets[i] - kGuardBytes, layout.output_offsets[i] + layout.output_bytes[i],
          i + 1 < layout.output_offsets.size() ? layout.output_offsets[i + 1] - kGuardBytes : layout.output_region_bytes};
}

Layout make_layout(const task::Task& task, const task::ResolvedWorkload& resolved, int wanted_slots, std::size_t pool_bytes,
                   int variant_slots) {
  Layout layout;
  std::size_t offset = 0;
  for (std::size_t i = 0; i < task.definition.inputs.size(); ++i) {
    const auto bytes = task::storage_bytes(task.definition.inputs[i].dtype, task::element_count(resolved.input_shapes[i]));
    layout.input_offsets.push_back(offset);
    layout.input_bytes.push_back(bytes);
    offset = align_up(offset + bytes + 1);  // at least one guard byte after every input
  }
  layout.slot_bytes = std::max(offset, kAlignment);
  std::size_t out = kGuardBytes;
  for (std::size_t i = 0; i < task.definition.outputs.size(); ++i) {
    const auto bytes = task::storage_bytes(task.definition.outputs[i].dtype, task::element_count(resolved.output_shapes[i]));
    layout.output_offsets.push_back(out);
    layout.output_bytes.push_back(bytes);
    out = align_up(out + bytes) + kGuardBytes;
  }
  layout.output_region_bytes = out;
  const auto affordable = static_cast<int>(std::max<std::size_t>(pool_bytes / layout.slot_bytes, 1));
  layout.slots = std::clamp(wanted_slots, 1, affordable);
  layout.variant_slots = variant_slots;
  return layout;
}

std::vector<std::byte> guard_pattern(std::uint64_t workload_seed) {
  std::vector<std::byte> guard(kGuardBytes);
  std::uint64_t state = common::mix64(workload_seed + 17);
  for (auto& byte : guard) byte = static_cast<std::byte>((state = common::mix64(state)) & 0xFF);
  return guard;
}

void write_input_guards(std::vector<std::byte>& slot_image, const Layout& layout, const std::vector<std::byte>& guard) {
  const std::size_t inputs = layout.input_offsets.size();
  for (std::size_t i = 0; i <= inputs; ++i) {
    const std::size_t from = i == 0 ? 0 : layout.input_offsets[i - 1] + layout.input_bytes[i - 1];
    const std::size_t to = i < inputs ? layout.input_offsets[i] : layout.slot_bytes;
    for (std::size_t at = from; at < to; ++at) slot_image[at] = guard[at % kGuardBytes];
  }
}

void write_slot(const SharedBuffer& buffer, const Layout& layout, int slot, const std::vector<std::byte>& image) {
  common::copy_bytes(buffer.data() + static_cast<std::size_t>(slot) * layout.slot_bytes, image.data(), image.size());
}

void prepare_output_guards(const SharedBuffer& buffer, const Layout& layout, const std::vector<std::byte>& guard) {
  std::byte* region = buffer.data() + layout.output_base();
  for (std::size_t i = 0; i < layout.output_offsets.size(); ++i) {
    const OutputGuards around = output_guards(layout, i);
    for (const auto& [from, to] : {std::pair{around.before, layout.output_offsets[i]}, std::pair{around.after_start, around.after_end}})
      for (std::size_t at = from; at < to; ++at) region[at] = guard[at % kGuardBytes];
  }
}

void prepare_outputs(const SharedBuffer& buffer, const Layout& layout, const std::vector<std::byte>& guard, std::byte poison) {
  prepare_output_guards(buffer, layout, guard);  // the guards and the outputs cover the region
  std::byte* region = buffer.data() + layout.output_base();
  for (std::size_t i = 0; i < layout.output_offsets.size(); ++i)
    common::fill_bytes(region + layout.output_offsets[i], static_cast<unsigned char>(poison), layout.output_bytes[i]);
}

std::optional<Failure> check_output_guards(const SharedBuffer& buffer, const Layout& layout, const std::vector<std::byte>& guard,
                                           const task::Definition& definition, const task::ResolvedWorkload& resolved) {
  const std::byte* region = buffer.data() + layout.output_base();
  for (std::size_t i = 0; i < layout.output_offsets.size(); ++i) {
    const auto [before, after_start, after_end] = output_guards(layout, i);
    for (std::size_t at = before; at < layout.output_offsets[i]; ++at)
      if (region[at] != guard[at % kGuardBytes])
        return Failure{Status::incorrect_shape, fmt::format("wrote {} bytes before the start of output '{}' (shape [{}], {})",
                                                            layout.output_offsets[i] - at, definition.outputs[i].name,
                                                            fmt::join(resolved.output_shapes[i], ", "), task::dtype_name(definition.outputs[i].dtype))};
    for (std::size_t at = after_end; at-- > after_start;)
      if (region[at] != guard[at % kGuardBytes])
        return Failure{Status::incorrect_shape, fmt::format("wrote past the end of output '{}' (up to byte {} of {}; shape [{}], {})",
                                                            definition.outputs[i].name, at - layout.output_offsets[i] + 1, layout.output_bytes[i],
                                                            fmt::join(resolved.output_shapes[i], ", "), task::dtype_name(definition.outputs[i].dtype))};
  }
  return std::nullopt;
}

std::optional<Failure> check_inputs(const SharedBuffer& buffer, const Layout& layout, int slot, const std::vector<std::byte>& image,
                                    const task::Definition& definition) {
  const std::byte* start = buffer.data() + static_cast<std::size_t>(slot) * layout.slot_bytes;
  if (common::equal_bytes(start, image.data(), image.size())) return std::nullopt;
  std::size_t at = 0;
  while (start[at] == image[at]) ++at;
  for (std::size_t i = 0; i < layout.input_offsets.size(); ++i)
    if (at >= layout.input_offsets[i] && at < layout.input_offsets[i] + layout.input_bytes[i])
      return Failure{Status::reward_hack, fmt::format("modified its input '{}' (first changed byte {})", definition.inputs[i].name,
                                                      at - layout.input_offsets[i])};
  return Failure{Status::reward_hack, fmt::format("wrote outside its buffers (between inputs, byte {} of the input area)", at)};
}

std::vector<std::vector<std::byte>> outputs_of(const SharedBuffer& buffer, const Layout& layout) {
  std::vector<std::vector<std::byte>> outs;
  for (std::size_t i = 0; i < layout.output_offsets.size(); ++i) {
    outs.emplace_back(layout.output_bytes[i]);
    common::copy_bytes(outs.back().data(), buffer.data() + layout.output_base() + layout.output_offsets[i], layout.output_bytes[i]);
  }
  return outs;
}

}  // namespace kernelarc::judge
