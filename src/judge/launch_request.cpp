#include "judge/launch_request.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <functional>
#include <numeric>
#include <stdexcept>

namespace kernelarc::judge {

using nlohmann::json;

json launch_request(const task::Task& task, const task::ResolvedWorkload& resolved, const CandidateSource& candidate, int num_sms) {
  // A composed candidate launches the part its rule picks for this workload, by that part's knobs and geometry.
  const DispatchPart* part =
      candidate.dispatch.empty() ? nullptr : &candidate.dispatch[dispatched_part(candidate.dispatch, dispatch_size(task.definition, resolved.axes))];
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
  return request;
}

}  // namespace kernelarc::judge
