#include "judge/launch_request.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <functional>
#include <numeric>
#include <stdexcept>

#include "judge/worker_messages.h"
#include "task/dtype.h"

namespace kernelarc::judge {

using nlohmann::json;

namespace {

// The map of `rule` over this workload's input, checked against the driver's rules for cuTensorMapEncodeTiled, so that a
// configuration the hardware cannot copy fails here with the reason instead of as an error code at the launch.
json tensor_map_request(const task::Task& task, const task::ResolvedWorkload& resolved, const task::TensorMapRule& rule,
                        const task::Bindings& names) {
  const auto& inputs = task.definition.inputs;
  const auto index = static_cast<std::size_t>(
      std::find_if(inputs.begin(), inputs.end(), [&](const task::TensorSpec& t) { return t.name == rule.input; }) - inputs.begin());
  if (index == inputs.size()) throw std::runtime_error(fmt::format("tensor map: no input \"{}\"", rule.input));
  const auto& shape = resolved.input_shapes.at(index);
  if (shape.empty()) throw std::runtime_error(fmt::format("tensor map of \"{}\": a scalar has no axis to copy along", rule.input));
  message::TensorMap map;
  map.input = static_cast<std::int32_t>(index);
  map.element_bytes = static_cast<unsigned>(task::storage_bytes(inputs[index].dtype, 1));
  map.columns = shape.back();
  map.rows = task::element_count(shape) / std::max<std::int64_t>(map.columns, 1);
  map.swizzle_bytes = static_cast<unsigned>(rule.swizzle_bytes);
  std::int64_t box[2];
  for (int i = 0; i < 2; ++i) {
    box[i] = rule.box[static_cast<std::size_t>(i)].evaluate_integer(names);
    if (box[i] < 1 || box[i] > 256)
      throw std::runtime_error(fmt::format("tensor map of \"{}\": box \"{}\" is {} (expected 1 to 256)", rule.input,
                                           rule.box[static_cast<std::size_t>(i)].text(), box[i]));
  }
  map.box_columns = static_cast<unsigned>(box[0]), map.box_rows = static_cast<unsigned>(box[1]);
  const std::int64_t box_bytes = box[0] * map.element_bytes, row_bytes = map.columns * map.element_bytes;
  if (box_bytes % 16 != 0)
    throw std::runtime_error(fmt::format("tensor map of \"{}\": a box row of {} bytes (a multiple of 16 is needed)", rule.input, box_bytes));
  if (map.swizzle_bytes != 0 && box_bytes > map.swizzle_bytes)
    throw std::runtime_error(fmt::format("tensor map of \"{}\": a box row of {} bytes is wider than its {}-byte swizzle", rule.input,
                                         box_bytes, map.swizzle_bytes));
  if (map.rows > 1 && row_bytes % 16 != 0)
    throw std::runtime_error(fmt::format("tensor map of \"{}\": its rows are {} bytes apart (a multiple of 16 is needed)", rule.input, row_bytes));
  if (map.columns > (std::int64_t{1} << 32) || map.rows > (std::int64_t{1} << 32))
    throw std::runtime_error(fmt::format("tensor map of \"{}\": {} x {} is past the 2^32 a dimension allows", rule.input, map.rows, map.columns));
  return map;
}

}  // namespace

json launch_request(const task::Task& task, const task::ResolvedWorkload& resolved, const CandidateSource& candidate, int num_sms) {
  // A composed candidate launches the part its rule picks for this workload, by that part's knobs and geometry.
  const DispatchPart* part =
      candidate.dispatch.empty()
          ? nullptr
          : &candidate.dispatch[dispatched_part(candidate.dispatch, dispatch_size(task.definition, resolved.axes, candidate.dispatch_axis))];
  const auto& chosen_launch = part ? part->launch : candidate.launch;
  if (!chosen_launch) throw std::runtime_error("a kernel-only candidate needs its launch geometry");
  const auto& launch = *chosen_launch;
  task::Bindings names = resolved.axes;
  for (const auto& [knob, value] : part ? part->knobs : candidate.knobs) names[knob] = static_cast<double>(value);
  names = task::launch_bindings(launch, std::move(names), num_sms > 0 ? num_sms : task::kDefaultNumSms);
  // Each dimension within CUDA's limit for it (x, y, z).
  const auto dimensions = [&](const std::vector<task::Expression>& expressions, std::array<std::int64_t, 3> limits) {
    std::vector<std::int64_t> values;
    for (const auto& expression : expressions) {
      const auto limit = limits[std::min<std::size_t>(values.size(), 2)];
      const auto value = expression.evaluate_integer(names);
      if (value < 1 || value > limit)
        throw std::runtime_error(fmt::format("\"{}\" is {} (expected 1 to {})", expression.text(), value, limit));
      values.push_back(value);
    }
    return values;
  };
  const auto block = dimensions(launch.block, {1024, 1024, 64});
  if (const auto threads = std::accumulate(block.begin(), block.end(), std::int64_t{1}, std::multiplies<>()); threads > 1024)
    throw std::runtime_error(fmt::format("the block has {} threads (at most 1024)", threads));
  json request{{"grid", dimensions(launch.grid, {2147483647, 65535, 65535})}, {"block", block}, {"arguments", json::array()}};
  request["shared_bytes"] = launch.shared_bytes ? launch.shared_bytes->evaluate_integer(names) : 0;
  if (part) request["kernel"] = launch.kernel;
  for (const auto& axis : task.definition.axes)
    if (axis.kind == task::AxisKind::variable) request["arguments"].push_back(static_cast<std::int64_t>(resolved.axes.at(axis.name)));
  for (const auto& rule : launch.tensor_maps) request["tensor_maps"].push_back(tensor_map_request(task, resolved, rule, names));
  return request;
}

}  // namespace kernelarc::judge
