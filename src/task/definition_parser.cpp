// The parser of definition.json: axes, constraints, tensors, the reference, and KernelArc's "kernelarc" section.
#include <algorithm>
#include <set>

#include "task/task_file.h"

namespace kernelarc::task::task_file {
namespace {

std::vector<Axis> parse_axes(const Node& node) {
  std::vector<Axis> axes;
  for (const auto& [name, _] : node.object().items()) {
    const Node spec = node.at(name);
    if (!is_identifier(name)) spec.fail("expected an axis name that is an identifier");
    spec.allow_only({"type", "value", "expression", "description"});
    Axis axis;
    axis.name = name;
    axis.description = spec.string_or("description", "");
    const std::string type = spec.at("type").string();
    if (type == "const") {
      axis.kind = AxisKind::constant;
      axis.value = spec.at("value").integer();
      if (axis.value < 0) spec.at("value").fail("expected a non-negative integer");
    } else if (type == "var") {
      axis.kind = AxisKind::variable;
    } else if (type == "expr") {
      axis.kind = AxisKind::expression;
      axis.expression = spec.at("expression").expression();
    } else {
      spec.at("type").fail(fmt::format("expected \"const\", \"var\" or \"expr\", got \"{}\"", type));
    }
    axes.push_back(std::move(axis));
  }
  return axes;
}

std::vector<TensorSpec> parse_tensors(const Node& node, const std::set<std::string>& axis_names) {
  std::vector<TensorSpec> tensors;
  for (const auto& [name, _] : node.object().items()) {
    const Node spec = node.at(name);
    if (!is_identifier(name)) spec.fail("expected a tensor name that is an identifier");
    spec.allow_only({"shape", "dtype", "description"});
    TensorSpec tensor;
    tensor.name = name;
    tensor.description = spec.string_or("description", "");
    const Node dtype = spec.at("dtype");
    const auto parsed = parse_dtype(dtype.string());
    if (!parsed) dtype.fail(fmt::format("expected a dtype such as float32 or bfloat16, got \"{}\"", dtype.string()));
    tensor.dtype = *parsed;
    if (spec.has("shape")) {
      const Node shape = spec.at("shape");
      tensor.shape = shape.string_list();
      for (std::size_t i = 0; i < tensor.shape->size(); ++i) {
        if (!axis_names.count((*tensor.shape)[i]))
          shape.index(i).fail(fmt::format("expected the name of an axis, got \"{}\"", (*tensor.shape)[i]));
      }
    } else if (!spec.raw().contains("shape")) {
      spec.fail("expected a \"shape\" (a list of axis names, [] for 0-d, or null for a scalar)");
    }
    tensors.push_back(std::move(tensor));
  }
  return tensors;
}

}  // namespace

void parse_extensions(const Node& node, const fs::path& directory, Definition& definition,
                      std::vector<std::string>& held_out_uuids, std::optional<fs::path>& held_out_file) {
  node.allow_only({"roofline", "native_reference", "templates", "forbid", "cflags", "held_out"});
  if (auto roofline = node.find("roofline")) {
    roofline->allow_only({"flops", "bytes", "math"});
    if (auto flops = roofline->find("flops")) definition.roofline.flops = flops->expression();
    if (auto bytes = roofline->find("bytes")) definition.roofline.bytes = bytes->expression();
    definition.roofline.math = roofline->string_or("math", "fp32");
  }
  if (auto native = node.find("native_reference")) {
    if (native->raw().is_string()) {
      definition.native_reference["cpu"] = inside_directory(*native, directory);
    } else {
      for (const auto& [device, _] : native->object().items()) {
        if (device != "cpu" && device != "cuda") native->at(device).fail("expected the device kind \"cpu\" or \"cuda\"");
        definition.native_reference[device] = inside_directory(native->at(device), directory);
      }
    }
  }
  if (auto templates = node.find("templates"))
    for (std::size_t i = 0; i < templates->array_size(); ++i)
      definition.templates.push_back(parse_template(templates->index(i), directory, definition.axes, definition.inputs));
  if (auto forbid = node.find("forbid")) definition.forbid = forbid->string_list();
  if (auto cflags = node.find("cflags")) definition.cflags = cflags->string_list();
  if (auto held_out = node.find("held_out")) {
    if (held_out->raw().is_string()) held_out_file = inside_directory(*held_out, directory);
    else held_out_uuids = held_out->string_list();
  }
}

// The roofline is evaluated over the axes alone: an unknown name must fail at load time, not mid-run.
void check_roofline_axes(const Definition& definition, const Node& extensions) {
  for (const char* key : {"flops", "bytes"}) {
    const auto& formula = std::string(key) == "flops" ? definition.roofline.flops : definition.roofline.bytes;
    if (!formula) continue;
    for (const auto& variable : formula->variables())
      if (std::none_of(definition.axes.begin(), definition.axes.end(), [&](const Axis& axis) { return axis.name == variable; }))
        extensions.at("roofline").at(key).fail(fmt::format("refers to unknown axis \"{}\"", variable));
  }
}

Definition parse_definition(const Node& root, const fs::path& directory, std::vector<std::string>& held_out_uuids,
                            std::optional<fs::path>& held_out_file) {
  root.allow_only({"name", "op_type", "description", "hf_id", "tags", "axes", "constraints", "inputs", "outputs", "reference",
                   "custom_inputs_entrypoint", "kernelarc"});
  Definition definition;
  definition.name = root.at("name").string();
  if (definition.name.empty()) root.at("name").fail("expected a non-empty name");
  definition.op_type = root.string_or("op_type", "");
  definition.description = root.string_or("description", "");
  definition.hf_id = root.string_or("hf_id", "");
  definition.axes = parse_axes(root.at("axes"));
  std::set<std::string> axis_names;
  for (const auto& axis : definition.axes) axis_names.insert(axis.name);
  for (const auto& axis : definition.axes) {
    if (!axis.expression) continue;
    for (const auto& variable : axis.expression->variables())
      if (!axis_names.count(variable))
        root.at("axes").at(axis.name).at("expression").fail(fmt::format("refers to unknown axis \"{}\"", variable));
  }
  if (auto constraints = root.find("constraints"))
    for (std::size_t i = 0; i < constraints->array_size(); ++i) {
      definition.constraints.push_back(constraints->index(i).expression());
      for (const auto& variable : definition.constraints.back().variables())
        if (!axis_names.count(variable))
          constraints->index(i).fail(fmt::format("refers to unknown axis \"{}\"", variable));
    }
  definition.inputs = parse_tensors(root.at("inputs"), axis_names);
  definition.outputs = parse_tensors(root.at("outputs"), axis_names);
  if (definition.outputs.empty()) root.at("outputs").fail("expected at least one output");
  std::set<std::string> tensor_names;
  for (const auto* list : {&definition.inputs, &definition.outputs})
    for (const auto& tensor : *list)
      if (!tensor_names.insert(tensor.name).second)
        root.at(list == &definition.inputs ? "inputs" : "outputs")
            .at(tensor.name)
            .fail(fmt::format("expected a tensor name used once among inputs and outputs, \"{}\" is used twice",
                              tensor.name));
  definition.reference = root.string_or("reference", "");
  if (root.has("custom_inputs_entrypoint"))
    definition.custom_inputs_entrypoint = root.at("custom_inputs_entrypoint").string();
  if (auto extensions = root.find("kernelarc")) {
    extensions->object();  // complains unless it is an object
    parse_extensions(*extensions, directory, definition, held_out_uuids, held_out_file);
    check_roofline_axes(definition, *extensions);
  }
  return definition;
}

}  // namespace kernelarc::task::task_file
