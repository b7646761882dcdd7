#include "task/knob_grid.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <stdexcept>

#include "common/closest_name.h"

namespace kernelarc::task {

std::optional<std::string> broken_knob_constraint(const Template& tmpl, const KnobValues& knobs) {
  Bindings names;
  for (const auto& [name, value] : knobs) names[name] = static_cast<double>(value);
  for (const auto& constraint : tmpl.constraints) {
    const auto variables = constraint.variables();
    if (!std::all_of(variables.begin(), variables.end(), [&](const std::string& v) { return names.count(v) > 0; })) continue;
    if (!constraint.evaluate_condition(names)) return constraint.text();
  }
  return std::nullopt;
}

KnobValues default_knobs(const Template& tmpl) {
  KnobValues knobs;
  for (const auto& knob : tmpl.knobs) knobs[knob.name] = knob.values.front();
  return knobs;
}

std::string changed_knobs_label(const Template& tmpl, const KnobValues& knobs) {
  const KnobValues defaults = default_knobs(tmpl);
  std::vector<std::string> parts;
  for (const auto& [name, value] : knobs)
    if (const auto found = defaults.find(name); found == defaults.end() || found->second != value) parts.push_back(fmt::format("{}={}", name, value));
  return parts.empty() ? "default" : fmt::format("{}", fmt::join(parts, " "));
}

KnobGrid expand_knob_grid(const Template& tmpl, const std::vector<std::pair<std::string, std::vector<std::int64_t>>>& swept) {
  std::vector<std::string> names;
  for (const auto& knob : tmpl.knobs) names.push_back(knob.name);
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> axes;  // each swept knob's values, duplicates dropped
  std::size_t size = 1;
  for (const auto& [name, values] : swept) {
    const auto knob = std::find_if(tmpl.knobs.begin(), tmpl.knobs.end(), [&](const Knob& k) { return k.name == name; });
    if (knob == tmpl.knobs.end())
      throw std::invalid_argument(fmt::format("template \"{}\" has no knob {}{}; its knobs are {}", tmpl.name, name,
                                              common::did_you_mean(name, names), names.empty() ? "none" : fmt::format("{}", fmt::join(names, ", "))));
    if (std::any_of(axes.begin(), axes.end(), [&](const auto& axis) { return axis.first == name; }))
      throw std::invalid_argument(fmt::format("knob {} is given twice; give its values once, separated by commas", name));
    if (values.empty()) throw std::invalid_argument(fmt::format("knob {} is given no value", name));
    std::vector<std::int64_t> unique;
    for (const auto value : values) {
      if (std::find(knob->values.begin(), knob->values.end(), value) == knob->values.end())
        throw std::invalid_argument(fmt::format("knob {} of template \"{}\" does not allow {}; its values are {}", name, tmpl.name, value,
                                                fmt::join(knob->values, ", ")));
      if (std::find(unique.begin(), unique.end(), value) == unique.end()) unique.push_back(value);
    }
    size *= unique.size();
    if (size > kMaxGridSize)
      throw std::invalid_argument(fmt::format("the grid has more than {} configurations; sweep fewer values at a time", kMaxGridSize));
    axes.emplace_back(name, std::move(unique));
  }
  KnobGrid grid;
  std::vector<std::size_t> position(axes.size(), 0);  // an odometer over the axes, the last turning fastest
  for (std::size_t n = 0; n < size; ++n) {
    KnobValues knobs = default_knobs(tmpl);
    for (std::size_t a = 0; a < axes.size(); ++a) knobs[axes[a].first] = axes[a].second[position[a]];
    if (auto broken = broken_knob_constraint(tmpl, knobs)) grid.skipped.push_back({std::move(knobs), std::move(*broken)});
    else grid.configurations.push_back(std::move(knobs));
    for (std::size_t a = axes.size(); a-- > 0;) {
      if (++position[a] < axes[a].second.size()) break;
      position[a] = 0;
    }
  }
  return grid;
}

Template search_space(const Template& tmpl) {
  Template searched = tmpl;
  for (auto& knob : searched.knobs)
    if (!knob.searched) knob.values.resize(1);
  return searched;
}

KnobGrid single_knob_changes(const Template& tmpl) {
  KnobGrid grid;
  const KnobValues defaults = default_knobs(tmpl);
  const auto add = [&](KnobValues knobs) {
    if (auto broken = broken_knob_constraint(tmpl, knobs)) grid.skipped.push_back({std::move(knobs), std::move(*broken)});
    else grid.configurations.push_back(std::move(knobs));
  };
  add(defaults);
  for (const auto& knob : tmpl.knobs) {
    std::vector<std::int64_t> tried{knob.values.front()};
    for (const auto value : knob.values) {
      if (std::find(tried.begin(), tried.end(), value) != tried.end()) continue;
      tried.push_back(value);
      KnobValues knobs = defaults;
      knobs[knob.name] = value;
      add(std::move(knobs));
    }
  }
  return grid;
}

}  // namespace kernelarc::task
