// A template's knobs as a grid: the values given per knob, every other knob at its default (the first value in the
// template's definition), every combination that the template's constraints over knobs allow. A combination that breaks
// one is kept apart with the constraint it breaks, so a sweep can say what it left out and why.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "task/task.h"

namespace kernelarc::task {

using KnobValues = std::map<std::string, std::int64_t>;  // knob name -> value

// The first of the template's constraints over knobs only that `knobs` breaks, as its text; none when every one holds.
// A constraint that also names a workload's axes is the judge's, checked per workload, and not looked at here.
std::optional<std::string> broken_knob_constraint(const Template& tmpl, const KnobValues& knobs);

// The template's default configuration: every knob at its first value.
KnobValues default_knobs(const Template& tmpl);

// The knobs that differ from the template's defaults, as NAME=VALUE separated by spaces; "default" when none does.
std::string changed_knobs_label(const Template& tmpl, const KnobValues& knobs);

struct SkippedConfiguration {
  KnobValues knobs;
  std::string constraint;  // the one it breaks
};

struct KnobGrid {
  std::vector<KnobValues> configurations;  // in grid order: the last knob given varies fastest
  std::vector<SkippedConfiguration> skipped;
};

inline constexpr std::size_t kMaxGridSize = 100000;  // combinations, allowed or not: beyond is surely a typo

// `swept` gives values per knob, in the order they were given. Throws std::invalid_argument naming the problem: a knob
// the template does not have (with the closest name), a value outside the knob's values (listing them), a knob given
// twice, an empty list, a grid larger than kMaxGridSize.
KnobGrid expand_knob_grid(const Template& tmpl, const std::vector<std::pair<std::string, std::vector<std::int64_t>>>& swept);

// The template as `kernelarc run` searches it: each knob with "search": false keeps only its first value.
Template search_space(const Template& tmpl);

// One knob at a time: the default configuration, then, knob by knob in the template's order, each of its other values
// with every other knob at its default (a configuration the constraints over knobs refuse is skipped, as above).
KnobGrid single_knob_changes(const Template& tmpl);

}  // namespace kernelarc::task
