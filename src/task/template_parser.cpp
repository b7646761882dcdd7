// The parser of a kernel template: its source, device, form, knobs, constraints and launch rule.
#include <algorithm>
#include <set>

#include "task/task_file.h"

namespace kernelarc::task {

const std::vector<std::string>& strategy_names() {
  static const std::vector<std::string> names = {"memory", "precision", "fusion",
                                                 "tiling", "pipelining", "algorithmic"};
  return names;
}

namespace task_file {
namespace {

Knob parse_knob(const Node& node) {
  node.allow_only({"name", "values", "strategy", "description", "search"});
  Knob knob;
  knob.name = node.at("name").string();
  if (!is_identifier(knob.name)) node.at("name").fail("expected an identifier");
  knob.strategy = node.at("strategy").string();
  const auto& names = strategy_names();
  if (std::find(names.begin(), names.end(), knob.strategy) == names.end())
    node.at("strategy").fail(fmt::format("expected one of memory, precision, fusion, tiling, pipelining, "
                                         "algorithmic; got \"{}\"", knob.strategy));
  knob.description = node.string_or("description", "");
  if (const auto search = node.find("search")) knob.searched = search->boolean();
  const Node values = node.at("values");
  if (values.array_size() == 0) values.fail("expected a non-empty list of integers");
  for (std::size_t i = 0; i < values.array_size(); ++i) {
    const Node value = values.index(i);
    knob.values.push_back(value.raw().is_boolean() ? (value.boolean() ? 1 : 0) : value.integer());
  }
  return knob;
}

}  // namespace

Template parse_template(const Node& node, const fs::path& directory, const std::vector<Axis>& axes,
                        const std::vector<TensorSpec>& inputs) {
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
    tmpl.launch = parse_launch(*launch, axes, tmpl.knobs, inputs);
  } else if (tmpl.form == TemplateForm::kernel) {
    node.fail("a kernel-only template must declare its \"launch\" geometry");
  }
  return tmpl;
}

}  // namespace task_file
}  // namespace kernelarc::task
