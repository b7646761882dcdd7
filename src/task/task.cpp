#include "task/task.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "common/closest_name.h"
#include "common/hash.h"

namespace kernelarc::task {

// ordered: inputs and outputs are ordered maps (the reference's and the ABI's argument order).
using json = nlohmann::ordered_json;
namespace fs = std::filesystem;

TaskError::TaskError(const fs::path& file, std::string field, std::string problem)
    : std::runtime_error(fmt::format("{}: {}: {}", file.string(), field.empty() ? "(top level)" : field,
                                     problem)),
      file_(file),
      field_(std::move(field)) {}

const std::vector<std::string>& strategy_names() {
  static const std::vector<std::string> names = {"memory", "precision", "fusion",
                                                 "tiling", "pipelining", "algorithmic"};
  return names;
}

namespace {

std::string type_name(const json& value) {
  if (value.is_number_integer()) return "an integer";
  if (value.is_number()) return "a number";
  return std::string("a") + (value.is_object() || value.is_array() ? "n " : " ") + value.type_name();
}

// A JSON value with its file and field path, so every complaint can say where it is.
class Node {
 public:
  Node(const json& value, const fs::path& file, std::string path)
      : value_(value), file_(file), path_(std::move(path)) {}

  [[noreturn]] void fail(const std::string& problem) const { throw TaskError(file_, path_, problem); }

  const json& raw() const { return value_; }

  // A field this object may not have is a typo more often than not: "helt_out" silently ignored made a held-out
  // workload visible. The message names the closest known field.
  void allow_only(const std::vector<std::string>& known) const {
    if (!value_.is_object()) return;
    for (const auto& item : value_.items())
      if (std::find(known.begin(), known.end(), item.key()) == known.end())
        Node(item.value(), file_, child_path(item.key()))
            .fail(fmt::format("unknown field{}; the fields here are {}", common::did_you_mean(item.key(), known), fmt::join(known, ", ")));
  }
  const std::string& path() const { return path_; }
  const fs::path& file() const { return file_; }

  bool has(const std::string& key) const { return value_.contains(key) && !value_.at(key).is_null(); }

  Node at(const std::string& key) const {
    if (!value_.is_object()) fail(fmt::format("expected an object, got {}", type_name(value_)));
    if (!value_.contains(key)) Node(value_, file_, child_path(key)).fail("is required but missing");
    return Node(value_.at(key), file_, child_path(key));
  }
  std::optional<Node> find(const std::string& key) const {
    if (!has(key)) return std::nullopt;
    return Node(value_.at(key), file_, child_path(key));
  }
  Node index(std::size_t i) const { return Node(value_.at(i), file_, fmt::format("{}[{}]", path_, i)); }

  const json& object() const {
    if (!value_.is_object()) fail(fmt::format("expected an object, got {}", type_name(value_)));
    return value_;
  }
  std::size_t array_size() const {
    if (!value_.is_array()) fail(fmt::format("expected a list, got {}", type_name(value_)));
    return value_.size();
  }
  std::string string() const {
    if (!value_.is_string()) fail(fmt::format("expected a string, got {}", type_name(value_)));
    return value_.get<std::string>();
  }
  std::string string_or(const std::string& key, std::string fallback) const {
    return has(key) ? at(key).string() : fallback;
  }
  double number() const {
    if (!value_.is_number()) fail(fmt::format("expected a number, got {}", type_name(value_)));
    return value_.get<double>();
  }
  std::int64_t integer() const {
    if (!value_.is_number_integer()) fail(fmt::format("expected an integer, got {}", type_name(value_)));
    return value_.get<std::int64_t>();
  }
  bool boolean() const {
    if (!value_.is_boolean()) fail(fmt::format("expected true or false, got {}", type_name(value_)));
    return value_.get<bool>();
  }
  Expression expression() const {
    const std::string text = value_.is_number_integer() ? std::to_string(value_.get<std::int64_t>()) : string();
    try {
      return Expression::parse(text);
    } catch (const ExpressionError& error) {
      fail(fmt::format("expected an expression: {}", error.what()));
    }
  }
  std::vector<std::string> string_list() const {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < array_size(); ++i) out.push_back(index(i).string());
    return out;
  }

 private:
  std::string child_path(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

  const json& value_;
  const fs::path& file_;
  std::string path_;
};

std::string read_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw TaskError(file, "", "cannot be read (missing or not permitted)");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

json parse_json(const std::string& text, const fs::path& file, const std::string& where) {
  try {
    return json::parse(text);
  } catch (const json::exception& error) {  // a parse error, or a number too large for a double (out_of_range)
    throw TaskError(file, where, fmt::format("expected valid JSON: {}", error.what()));
  }
}

bool is_identifier(const std::string& name) {
  if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

fs::path inside_directory(const Node& node, const fs::path& directory) {
  const std::string relative = node.string();
  const fs::path resolved = fs::weakly_canonical(directory / relative);
  const fs::path root = fs::weakly_canonical(directory);
  auto [root_end, _] = std::mismatch(root.begin(), root.end(), resolved.begin(), resolved.end());
  if (root_end != root.end()) node.fail(fmt::format("expected a path inside the task directory, got '{}'", relative));
  if (!fs::is_regular_file(resolved)) node.fail(fmt::format("file '{}' does not exist", relative));
  return resolved;
}

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

Knob parse_knob(const Node& node) {
  node.allow_only({"name", "values", "strategy", "description"});
  Knob knob;
  knob.name = node.at("name").string();
  if (!is_identifier(knob.name)) node.at("name").fail("expected an identifier");
  knob.strategy = node.at("strategy").string();
  const auto& names = strategy_names();
  if (std::find(names.begin(), names.end(), knob.strategy) == names.end())
    node.at("strategy").fail(fmt::format("expected one of memory, precision, fusion, tiling, pipelining, "
                                         "algorithmic; got \"{}\"", knob.strategy));
  knob.description = node.string_or("description", "");
  const Node values = node.at("values");
  if (values.array_size() == 0) values.fail("expected a non-empty list of integers");
  for (std::size_t i = 0; i < values.array_size(); ++i) {
    const Node value = values.index(i);
    knob.values.push_back(value.raw().is_boolean() ? (value.boolean() ? 1 : 0) : value.integer());
  }
  return knob;
}

// A launch rule's "let" bindings, then grid, block and shared_bytes; every name an expression uses must be an axis, a
// knob, num_sms or a binding before it.
LaunchGeometry parse_launch(const Node& launch, const std::vector<Axis>& axes, const std::vector<Knob>& knobs) {
  launch.allow_only({"let", "grid", "block", "shared_bytes", "kernel"});
  std::vector<std::string> known;  // the names usable so far, in the order a reader meets them
  for (const auto& axis : axes) known.push_back(axis.name);
  for (const auto& knob : knobs) known.push_back(knob.name);
  const auto reserved = [&](const std::string& name) { return std::find(known.begin(), known.end(), name) != known.end(); };
  if (reserved(std::string(kNumSmsName)))
    launch.fail(fmt::format("an axis or knob is named \"{}\", the device's SM count in launch rules; rename it", kNumSmsName));
  known.push_back(std::string(kNumSmsName));
  LaunchGeometry geometry;
  std::vector<std::string> bound_later;  // every "let" name, to tell a forward reference from an unknown name
  if (auto let = launch.find("let"))
    for (const auto& [name, _] : let->object().items()) bound_later.push_back(name);
  const auto check_names = [&](const Node& where, const Expression& expression, const std::string& binding) {
    for (const auto& variable : expression.variables()) {
      if (reserved(variable)) continue;
      if (variable == binding) where.fail(fmt::format("\"{}\" uses itself; a binding may use only the axes, the knobs, {} and the bindings before it",
                                                    binding, kNumSmsName));
      if (std::find(bound_later.begin(), bound_later.end(), variable) != bound_later.end())
        where.fail(fmt::format("\"{}\" is bound later in \"let\"; a binding may use only the bindings before it (move it up)", variable));
      where.fail(fmt::format("unknown name \"{}\"{}; the names here are {}", variable, common::did_you_mean(variable, known),
                             fmt::join(known, ", ")));
    }
  };
  if (auto let = launch.find("let")) {
    for (const auto& [name, _] : let->object().items()) {
      const Node value = let->at(name);
      if (!is_identifier(name)) value.fail("expected a binding name that is an identifier");
      if (reserved(name))
        value.fail(fmt::format("\"{}\" is already {}", name, name == kNumSmsName ? "the device's SM count" : "an axis, a knob or a binding"));
      const Expression expression = value.expression();
      check_names(value, expression, name);
      geometry.let.push_back({name, expression});
      known.push_back(name);
      bound_later.erase(std::find(bound_later.begin(), bound_later.end(), name));
    }
  }
  for (const char* key : {"grid", "block"}) {
    const Node dims = launch.at(key);
    if (dims.array_size() < 1 || dims.array_size() > 3) dims.fail("expected 1 to 3 expressions");
    auto& target = std::string(key) == "grid" ? geometry.grid : geometry.block;
    for (std::size_t i = 0; i < dims.array_size(); ++i) {
      target.push_back(dims.index(i).expression());
      check_names(dims.index(i), target.back(), "");
    }
  }
  if (auto shared = launch.find("shared_bytes")) {
    geometry.shared_bytes = shared->expression();
    check_names(*shared, *geometry.shared_bytes, "");
  }
  geometry.kernel = launch.string_or("kernel", "");
  return geometry;
}

Template parse_template(const Node& node, const fs::path& directory, const std::vector<Axis>& axes) {
  node.allow_only({"name", "source", "device", "form", "knobs", "constraints", "launch"});
  Template tmpl;
  tmpl.name = node.at("name").string();
  tmpl.source = inside_directory(node.at("source"), directory);
  tmpl.device = node.string_or("device", "cpu");
  if (tmpl.device != "cpu" && tmpl.device != "cuda") node.at("device").fail("expected \"cpu\" or \"cuda\"");
  const std::string form = node.string_or("form", "full");
  if (form == "full") tmpl.form = TemplateForm::full;
  else if (form == "kernel") tmpl.form = TemplateForm::kernel;
  else node.at("form").fail(fmt::format("expected \"full\" or \"kernel\", got \"{}\"", form));
  std::set<std::string> knob_names;
  if (auto knobs = node.find("knobs")) {
    for (std::size_t i = 0; i < knobs->array_size(); ++i) {
      Knob knob = parse_knob(knobs->index(i));
      if (!knob_names.insert(knob.name).second) knobs->index(i).fail(fmt::format("duplicate knob \"{}\"", knob.name));
      tmpl.knobs.push_back(std::move(knob));
    }
  }
  if (auto constraints = node.find("constraints"))
    for (std::size_t i = 0; i < constraints->array_size(); ++i)
      tmpl.constraints.push_back(constraints->index(i).expression());
  if (auto launch = node.find("launch")) {
    tmpl.launch = parse_launch(*launch, axes, tmpl.knobs);
  } else if (tmpl.form == TemplateForm::kernel) {
    node.fail("a kernel-only template must declare its \"launch\" geometry");
  }
  return tmpl;
}

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
      definition.templates.push_back(parse_template(templates->index(i), directory, definition.axes));
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

}  // namespace

Bindings launch_bindings(const LaunchGeometry& launch, Bindings names, int num_sms) {
  names[std::string(kNumSmsName)] = static_cast<double>(num_sms);
  for (const auto& binding : launch.let) {
    try {
      names[binding.name] = binding.expression.evaluate(names);
    } catch (const ExpressionError& error) {
      throw std::runtime_error(fmt::format("launch binding \"{}\": {}", binding.name, error.what()));
    }
  }
  return names;
}

Task load_task(const fs::path& directory, const std::optional<fs::path>& extensions) {
  if (!fs::is_directory(directory)) throw TaskError(directory, "", "expected a task directory");
  Task task;
  task.directory = fs::canonical(directory);
  const fs::path definition_file = task.directory / "definition.json";
  task.definition_json = read_file(definition_file);
  const json root = parse_json(task.definition_json, definition_file, "");
  if (!root.is_object()) throw TaskError(definition_file, "", "expected a JSON object");
  std::vector<std::string> held_out_uuids;
  std::optional<fs::path> held_out_file;
  task.definition = parse_definition(Node(root, definition_file, ""), task.directory, held_out_uuids, held_out_file);
  std::string extensions_text;
  if (extensions) {
    // The definition's "kernelarc" section kept in a file of its own, for a problem that is not to be edited: its keys
    // are read after the definition's own (templates added, the others replaced), its paths relative to its folder.
    if (!fs::is_regular_file(*extensions)) throw TaskError(*extensions, "", "expected a JSON file of KernelArc's extensions");
    task.extensions_file = fs::canonical(*extensions);
    extensions_text = read_file(task.extensions_file);
    const json extension_root = parse_json(extensions_text, task.extensions_file, "");
    const Node node(extension_root, task.extensions_file, "");
    node.object();  // complains unless it is an object
    parse_extensions(node, task.extensions_file.parent_path(), task.definition, held_out_uuids, held_out_file);
    check_roofline_axes(task.definition, node);
  }

  const fs::path workload_file = task.directory / "workload.jsonl";
  const std::string workload_text = read_file(workload_file);
  task.workloads = parse_workload_file(workload_file, task.definition, task.directory, workload_text);
  if (task.workloads.empty()) throw TaskError(workload_file, "", "expected at least one workload line");
  std::string hashed = task.definition_json + '\0' + workload_text;
  if (extensions) hashed += '\0' + extensions_text;
  if (held_out_file) {
    const std::string held_text = read_file(*held_out_file);
    hashed += '\0' + held_text;
    auto extra = parse_workload_file(*held_out_file, task.definition, task.directory, held_text);
    for (auto& workload : extra) workload.held_out = true;
    task.workloads.insert(task.workloads.end(), extra.begin(), extra.end());
  }
  std::set<std::string> uuids;
  for (const auto& workload : task.workloads)
    if (!uuids.insert(workload.uuid).second)
      throw TaskError(workload_file, "uuid", fmt::format("expected unique uuids, \"{}\" appears twice", workload.uuid));
  for (const auto& uuid : held_out_uuids) {
    auto found = std::find_if(task.workloads.begin(), task.workloads.end(), [&](const Workload& w) { return w.uuid == uuid; });
    if (found == task.workloads.end())
      throw TaskError(definition_file, "kernelarc.held_out", fmt::format("names unknown workload \"{}\"", uuid));
    found->held_out = true;
  }
  std::stable_partition(task.workloads.begin(), task.workloads.end(), [](const Workload& w) { return !w.held_out; });
  if (task.workloads.front().held_out)
    throw TaskError(definition_file, "kernelarc.held_out", "leaves no visible workload");
  // Resolve every workload now so a bad one is reported at load time, not mid-run.
  for (const auto& workload : task.workloads) resolve_workload(task, workload);
  task.content_hash = common::content_hash(hashed);
  return task;
}

std::int64_t element_count(const std::vector<std::int64_t>& shape) {
  std::int64_t count = 1;
  for (auto extent : shape) count *= extent;
  return count;
}

ResolvedWorkload resolve_workload(const Task& task, const Workload& workload) {
  const fs::path workload_file = task.directory / (workload.held_out ? "held-out workloads" : "workload.jsonl");
  const auto fail = [&](const std::string& field, const std::string& problem) -> void {
    throw TaskError(workload_file, fmt::format("workload {}: {}", workload.uuid, field), problem);
  };
  ResolvedWorkload resolved;
  for (const auto& axis : task.definition.axes) {
    if (axis.kind == AxisKind::constant) resolved.axes[axis.name] = static_cast<double>(axis.value);
    if (axis.kind == AxisKind::variable) resolved.axes[axis.name] = static_cast<double>(workload.axes.at(axis.name));
  }
  // Expression axes may refer to each other: resolve until nothing changes.
  std::vector<const Axis*> pending;
  for (const auto& axis : task.definition.axes)
    if (axis.kind == AxisKind::expression) pending.push_back(&axis);
  while (!pending.empty()) {
    const std::size_t before = pending.size();
    for (auto it = pending.begin(); it != pending.end();) {
      const auto variables = (*it)->expression->variables();
      if (std::all_of(variables.begin(), variables.end(), [&](const std::string& v) { return resolved.axes.count(v); })) {
        try {
          const std::int64_t value = (*it)->expression->evaluate_integer(resolved.axes);
          if (value < 0) fail("axes." + (*it)->name, fmt::format("expression gives {}, expected >= 0", value));
          resolved.axes[(*it)->name] = static_cast<double>(value);
        } catch (const ExpressionError& error) {
          fail("axes." + (*it)->name, error.what());
        }
        it = pending.erase(it);
      } else {
        ++it;
      }
    }
    if (pending.size() == before) fail("axes." + pending.front()->name, "expression axes refer to each other in a cycle");
  }
  for (const auto& constraint : task.definition.constraints) {
    bool holds = false;
    try {
      holds = constraint.evaluate_condition(resolved.axes);
    } catch (const ExpressionError& error) {
      fail("constraints", error.what());
    }
    if (!holds) fail("constraints", fmt::format("\"{}\" does not hold", constraint.text()));
  }
  const auto shapes = [&](const std::vector<TensorSpec>& tensors) {
    std::vector<std::vector<std::int64_t>> out;
    for (const auto& tensor : tensors) {
      std::vector<std::int64_t> shape;
      if (tensor.shape)
        for (const auto& axis : *tensor.shape) shape.push_back(static_cast<std::int64_t>(resolved.axes.at(axis)));
      out.push_back(std::move(shape));
    }
    return out;
  };
  resolved.input_shapes = shapes(task.definition.inputs);
  resolved.output_shapes = shapes(task.definition.outputs);
  for (std::size_t i = 0; i < task.definition.inputs.size(); ++i) {
    const auto& spec = task.definition.inputs[i];
    auto source = workload.inputs.find(spec.name);
    if (spec.is_scalar() && (source == workload.inputs.end() || source->second.kind != InputKind::scalar))
      fail("inputs." + spec.name, "is a plain scalar in the definition, so the workload must give it as {\"type\": \"scalar\"}");
  }
  return resolved;
}

}  // namespace kernelarc::task
