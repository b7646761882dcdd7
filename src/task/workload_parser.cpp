// The parser of a workload file: one JSON object a line, each with its axes, its inputs' sources and its tolerance.
#include <algorithm>
#include <sstream>

#include "task/task_file.h"

namespace kernelarc::task::task_file {
namespace {

Tolerance parse_tolerance(const Node& node) {
  node.allow_only({"max_atol", "max_rtol", "required_matched_ratio", "max_error_cap", "allow_negative_inf"});
  Tolerance tolerance;
  if (auto v = node.find("max_atol")) tolerance.max_atol = v->number();
  if (auto v = node.find("max_rtol")) tolerance.max_rtol = v->number();
  if (auto v = node.find("required_matched_ratio")) tolerance.required_matched_ratio = v->number();
  if (auto v = node.find("max_error_cap")) tolerance.max_error_cap = v->number();
  if (auto v = node.find("allow_negative_inf")) tolerance.allow_negative_inf = v->boolean();
  if (tolerance.max_atol < 0 || tolerance.max_rtol < 0) node.fail("expected max_atol and max_rtol >= 0");
  if (tolerance.required_matched_ratio < 0 || tolerance.required_matched_ratio > 1)
    node.at("required_matched_ratio").fail("expected a ratio between 0 and 1");
  return tolerance;
}

Workload parse_workload(const Node& node, const Definition& definition, const fs::path& directory) {
  node.allow_only({"uuid", "axes", "inputs", "tolerance"});
  Workload workload;
  workload.uuid = node.at("uuid").string();
  if (workload.uuid.empty()) node.at("uuid").fail("expected a non-empty uuid");
  const Node axes = node.at("axes");
  for (const auto& item : axes.object().items()) {
    const std::string& name = item.key();  // not a structured binding: clang 14 cannot capture one in a lambda
    const auto axis = std::find_if(definition.axes.begin(), definition.axes.end(),
                                   [&](const Axis& a) { return a.name == name; });
    if (axis == definition.axes.end()) axes.at(name).fail("is not an axis of the definition");
    if (axis->kind != AxisKind::variable) axes.at(name).fail("is not a var axis, so a workload cannot set it");
    const std::int64_t value = axes.at(name).integer();
    if (value < 0) axes.at(name).fail("expected a non-negative integer");
    workload.axes[name] = value;
  }
  for (const auto& axis : definition.axes)
    if (axis.kind == AxisKind::variable && !workload.axes.count(axis.name))
      axes.fail(fmt::format("expected a value for the var axis \"{}\"", axis.name));
  if (auto inputs = node.find("inputs")) {
    for (const auto& item : inputs->object().items()) {
      const std::string& name = item.key();
      const Node spec = inputs->at(name);
      if (std::none_of(definition.inputs.begin(), definition.inputs.end(), [&](const TensorSpec& t) { return t.name == name; }))
        spec.fail("is not an input of the definition");
      spec.allow_only({"type", "value", "path", "tensor_key"});
      InputSource source;
      const std::string type = spec.at("type").string();
      if (type == "random") {
        source.kind = InputKind::random;
      } else if (type == "scalar") {
        source.kind = InputKind::scalar;
        const Node value = spec.at("value");
        source.value = value.raw().is_boolean() ? (value.boolean() ? 1.0 : 0.0) : value.number();
      } else if (type == "safetensors") {
        source.kind = InputKind::safetensors;
        source.path = inside_directory(spec.at("path"), directory);
        source.tensor_key = spec.at("tensor_key").string();
      } else if (type == "custom") {
        source.kind = InputKind::custom;
        if (!definition.custom_inputs_entrypoint)
          spec.fail("is \"custom\" but the definition has no custom_inputs_entrypoint");
      } else {
        spec.at("type").fail(fmt::format("expected random, scalar, safetensors or custom; got \"{}\"", type));
      }
      workload.inputs[name] = source;
    }
  }
  if (auto tolerance = node.find("tolerance")) workload.tolerance = parse_tolerance(*tolerance);
  return workload;
}

}  // namespace

std::vector<Workload> parse_workload_file(const fs::path& file, const Definition& definition,
                                          const fs::path& directory, const std::string& text) {
  std::vector<Workload> workloads;
  std::istringstream lines(text);
  std::string line;
  for (std::size_t number = 1; std::getline(lines, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = fmt::format("line {}", number);
    const json value = parse_json(line, file, where);
    workloads.push_back(parse_workload(Node(value, file, where), definition, directory));
  }
  return workloads;
}

}  // namespace kernelarc::task::task_file
