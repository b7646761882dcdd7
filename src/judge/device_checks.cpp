#include "judge/device_checks.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "common/parallel.h"
#include "judge/comparison.h"
#include "judge/device_findings.h"
#include "judge/output_check.h"
#include "judge/worker_messages.h"

namespace kernelarc::judge {

using nlohmann::json;

bool device_checks_apply(const task::Definition& definition) {
  return !definition.outputs.empty() &&
         std::all_of(definition.outputs.begin(), definition.outputs.end(), [](const task::TensorSpec& output) { return compared_on_device(output.dtype); });
}

DeviceChecks::DeviceChecks(WorkerSession& session, const SharedBuffer& buffer, const Layout& layout, const std::vector<std::byte>& guard,
                           const task::Definition& definition, const task::ResolvedWorkload& resolved, const task::Tolerance& tolerance,
                           std::string key, const std::string& cubin_hex, std::chrono::milliseconds deadline, PhaseClock& phases)
    : session_(session), buffer_(buffer), layout_(layout), guard_(guard), definition_(definition), resolved_(resolved), tolerance_(tolerance),
      key_(std::move(key)), cubin_hex_(cubin_hex), deadline_(deadline), phases_(phases) {}

std::optional<Failure> DeviceChecks::request(const json& message, json* body) {
  const auto reply = session_.worker.request(message, deadline_);
  if (reply.ok()) {
    if (body) *body = reply.body;
    return std::nullopt;
  }
  session_.ready = false;
  return Failure{reply.outcome == ReplyOutcome::timed_out ? Status::timeout : Status::runtime_error,
                 fmt::format("the screening's checks on the device failed: {}{}", reply.description, session_.tail())};
}

std::optional<Failure> DeviceChecks::restore(const std::vector<BufferCopy>& copies, bool& missing) {
  const auto moving = phases_.measure("transfers");
  json body;
  if (auto failure = request(json(message::Restore{key_, copies}), &body)) return failure;
  missing = body.value("missing", false);
  return std::nullopt;
}

std::optional<Failure> DeviceChecks::place(const ReferenceRound& round, bool& placed) {
  placed = false;
  if (session_.comparison_start != session_.worker.starts()) {
    const auto loading = phases_.measure("workers");
    if (auto failure = request(json(message::LoadComparison{cubin_hex_}))) return failure;
    session_.comparison_start = session_.worker.starts();
  }
  const std::vector<BufferCopy> copies{{0, 0, layout_.slot_bytes}, {layout_.slot_bytes, layout_.output_base(), layout_.output_region_bytes}};
  bool missing = false;
  if (auto failure = restore(copies, missing)) return failure;
  if (missing) {
    {
      const auto staging = phases_.measure("staging");
      write_slot(buffer_, layout_, 0, round.slot_image);
      prepare_output_guards(buffer_, layout_, guard_);
      for (std::size_t i = 0; i < round.reference.size(); ++i)
        common::copy_bytes(output_data(buffer_, layout_, i), round.reference[i].data(), round.reference[i].size());
    }
    json body;
    {
      const auto moving = phases_.measure("transfers");
      const message::Keep keep{key_, {{0, layout_.slot_bytes}, {layout_.output_base(), layout_.output_region_bytes}}};
      if (auto failure = request(json(keep), &body)) return failure;
    }
    {
      const auto staging = phases_.measure("staging");  // the reference leaves the candidate's buffer
      prepare_outputs(buffer_, layout_, guard_, kPoisonFirst);
    }
    if (!body.value("kept", false)) return std::nullopt;
    if (auto failure = restore(copies, missing)) return failure;
    if (missing) return std::nullopt;
  }
  kept_ = &round;
  session_.outputs_placed = true;
  placed = true;
  return std::nullopt;
}

std::optional<Failure> DeviceChecks::place_variant(int variant, bool& placed) {
  placed = false;
  if (!kept_) return std::nullopt;
  bool missing = false;
  if (auto failure = restore({{0, layout_.variant_base(variant), layout_.slot_bytes}}, missing)) return failure;
  placed = !missing;
  return std::nullopt;
}

std::optional<Failure> DeviceChecks::forget() {
  kept_ = nullptr;
  return request(json(message::Forget{key_}));
}

std::optional<Failure> DeviceChecks::check(std::optional<std::byte> poison) {
  if (!kept_) return Failure{Status::runtime_error, "the screening's device checks were asked before its inputs were placed"};
  const std::size_t base = layout_.output_base();
  {
    const auto moving = phases_.measure("transfers");
    message::Transfer guards{message::Direction::download, {}};
    for (std::size_t i = 0; i < layout_.output_offsets.size(); ++i) {
      const OutputGuards around = output_guards(layout_, i);
      guards.ranges.push_back({base + around.before, layout_.output_offsets[i] - around.before});
      guards.ranges.push_back({base + around.after_start, around.after_end - around.after_start});
    }
    if (auto failure = request(json(guards))) return failure;
  }
  const auto checking = phases_.measure("checks");
  if (auto failure = check_output_guards(buffer_, layout_, guard_, definition_, resolved_)) return failure;
  message::CompareOutputs compare{key_, {}};
  for (std::size_t i = 0; i < definition_.outputs.size(); ++i) {
    const auto dtype = definition_.outputs[i].dtype;
    message::OutputComparison output;
    output.at = base + layout_.output_offsets[i];
    output.reference = layout_.slot_bytes + layout_.output_offsets[i];
    output.elements = static_cast<std::size_t>(task::element_count(resolved_.output_shapes[i]));
    output.dtype = std::string(task::dtype_name(dtype));
    output.atol = tolerance_.max_atol;
    output.rtol = tolerance_.max_rtol;
    output.allow_negative_inf = tolerance_.allow_negative_inf;
    if (poison && !poison_is_finite(dtype, *poison)) output.poison = static_cast<std::uint8_t>(*poison);
    compare.outputs.push_back(std::move(output));
  }
  json body;
  if (auto failure = request(json(compare), &body)) return failure;
  if (body.value("missing", false)) {  // dropped since it was placed: the outputs come back and are compared here
    if (auto failure = request(json(message::Transfer{message::Direction::download, {{base, layout_.output_region_bytes}}}))) return failure;
    return check_outputs(buffer_, layout_, definition_, resolved_, kept_->reference, tolerance_, poison);
  }
  const auto& findings = body.at("findings");
  for (std::size_t i = 0; i < definition_.outputs.size(); ++i) {
    const auto& output = compare.outputs[i];
    const Comparison comparison = comparison_verdict(definition_.outputs[i].name, resolved_.output_shapes[i], 1,
                                                     static_cast<std::int64_t>(output.elements), findings_from_json(findings.at(i)), tolerance_);
    if (!comparison.passed) return Failure{Status::incorrect_numerical, comparison.reason};
  }
  return std::nullopt;
}

}  // namespace kernelarc::judge
