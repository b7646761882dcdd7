#include "engine/specialisation.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>

#include <nlohmann/json.hpp>

#include "common/units.h"
#include "engine/composition.h"
#include "judge/build_cache.h"
#include "judge/dispatch_rule.h"

namespace kernelarc::engine {

namespace {

constexpr double kMinClassGain = 0.02;  // the least gain of a class over merging it with its neighbour

}  // namespace

std::optional<Specialisation> specialisation_of(const store::Store& store, std::int64_t run_id, const task::Task& task,
                                                const task::Template& tmpl, std::size_t max_configurations, const Knobs& first, std::string& why) {
  // The sizes classes may be drawn on: the product of the var axes, then each var axis alone where there are several.
  std::vector<std::string> axes{""};
  if (const auto names = judge::var_axis_names(task.definition); names.size() > 1) axes.insert(axes.end(), names.begin(), names.end());
  std::vector<std::string> uuids;
  std::vector<std::vector<double>> sizes(axes.size());  // [axis][workload]
  for (const auto& workload : task.workloads) {
    if (workload.held_out) continue;  // never seen by the search: dispatched by the rule, judged like every workload
    uuids.push_back(workload.uuid);
    const auto resolved = task::resolve_workload(task, workload);
    for (std::size_t a = 0; a < axes.size(); ++a) sizes[a].push_back(judge::dispatch_size(task.definition, resolved.axes, axes[a]));
  }
  const std::string template_text = judge::read_text_file(tmpl.source);
  std::vector<Knobs> configurations;
  std::vector<std::vector<double>> times;
  std::vector<double> spreads;  // every measurement's (q3 - q1) / median
  for (const auto& candidate : store.candidates(run_id)) {
    if (candidate.source != template_text) continue;  // a source of its own, or a composed one
    Knobs knobs;
    try {
      knobs = nlohmann::json::parse(candidate.knobs_json).get<Knobs>();
    } catch (const std::exception&) {
      continue;
    }
    if (std::find(configurations.begin(), configurations.end(), knobs) != configurations.end()) continue;
    std::map<std::string, double> slowest;
    std::vector<double> candidate_spreads;
    bool passed = true;
    for (const auto& verdict : store.verdicts(candidate.id)) {
      if (verdict.held_out) continue;
      if (verdict.status != "PASSED" || !verdict.median_ns) {
        passed = false;
        continue;
      }
      slowest[verdict.workload_uuid] = std::max(slowest[verdict.workload_uuid], *verdict.median_ns);
      const auto timing = nlohmann::json::parse(verdict.details_json, nullptr, false).value("timing", nlohmann::json::object());
      if (timing.contains("q1_ns") && timing.contains("q3_ns") && *verdict.median_ns > 0)
        candidate_spreads.push_back((timing["q3_ns"].get<double>() - timing["q1_ns"].get<double>()) / *verdict.median_ns);
    }
    std::vector<double> row;
    for (const auto& uuid : uuids) row.push_back(slowest.count(uuid) ? slowest[uuid] : 0.0);
    if (!passed || std::any_of(row.begin(), row.end(), [](double t) { return t <= 0; })) continue;
    spreads.insert(spreads.end(), candidate_spreads.begin(), candidate_spreads.end());
    const bool is_first = knobs == first;
    configurations.insert(is_first ? configurations.begin() : configurations.end(), knobs);
    times.insert(is_first ? times.begin() : times.end(), row);
  }
  // A screening run judges few configurations in full, but screened many on every visible workload, all with one protocol:
  // those rank the classes (each configuration's median over its screenings); the composed candidate is then judged in full.
  std::map<Knobs, std::vector<std::vector<double>>> screened;
  for (const auto& event : store.events(run_id)) {
    if (event.kind != "screened") continue;
    const auto payload = nlohmann::json::parse(event.payload_json, nullptr, false);
    if (!payload.is_object() || payload.value("fidelity", 0) != 0 || payload.value("outcome", "") != "measured") continue;
    Knobs knobs;
    std::map<std::string, double> by_uuid;
    try {
      knobs = payload.at("knobs").get<Knobs>();
      by_uuid = payload.at("workload_ns").get<std::map<std::string, double>>();
    } catch (const std::exception&) {
      continue;
    }
    if (knobs.count(kSourceKnob)) continue;
    std::vector<double> row;
    for (const auto& uuid : uuids) row.push_back(by_uuid.count(uuid) ? by_uuid[uuid] : 0.0);
    if (std::all_of(row.begin(), row.end(), [](double t) { return t > 0; })) screened[knobs].push_back(std::move(row));
  }
  if (screened.size() >= 2) {
    configurations.clear();
    times.clear();
    for (auto& [knobs, rows] : screened) {
      std::vector<double> row;
      for (std::size_t w = 0; w < uuids.size(); ++w) {
        std::vector<double> column;
        for (const auto& r : rows) column.push_back(r[w]);
        std::nth_element(column.begin(), column.begin() + static_cast<std::ptrdiff_t>(column.size() / 2), column.end());
        row.push_back(column[column.size() / 2]);
      }
      const bool is_first = knobs == first;
      configurations.insert(is_first ? configurations.begin() : configurations.end(), knobs);
      times.insert(is_first ? times.begin() : times.end(), row);
    }
  }
  if (configurations.size() < 2 || max_configurations < 2) {
    why = fmt::format("{} configuration(s) passed every visible workload: nothing to specialise", configurations.size());
    return std::nullopt;
  }
  // A class must gain more than the measurements' own noise (the median spread, as the controller reads a candidate's),
  // and 2% where they are quieter than that: a split on noise is no specialisation.
  double noise = 0;
  if (!spreads.empty()) {
    std::nth_element(spreads.begin(), spreads.begin() + static_cast<std::ptrdiff_t>(spreads.size() / 2), spreads.end());
    noise = spreads[spreads.size() / 2];
  }
  const double min_gain = std::max(kMinClassGain, noise);
  Specialisation out;
  for (std::size_t a = 0; a < axes.size(); ++a) {
    auto classes = choose_shape_classes(sizes[a], times, max_configurations, min_gain);
    if (a == 0 || classes.classes_ns < out.classes.classes_ns * (1 - 1e-9)) out.classes = std::move(classes), out.axis = axes[a];
  }
  if (out.classes.classes.size() < 2) {
    why = fmt::format("no configuration of {} is faster by {:.0f}% or more on a class of sizes (the measurements' spread is {:.0f}%)",
                      configurations.size(), 100 * min_gain, 100 * noise);
    return std::nullopt;
  }
  std::vector<judge::DispatchPart> parts;
  std::vector<std::string> described;
  for (const auto& shape_class : out.classes.classes) {
    judge::DispatchPart part;
    part.knobs = configurations[shape_class.configuration];
    if (std::isfinite(shape_class.up_to)) part.up_to = static_cast<std::int64_t>(std::floor(shape_class.up_to));
    std::vector<std::string> knob_text;
    for (const auto& [name, value] : part.knobs) knob_text.push_back(fmt::format("{}={}", name, value));
    described.push_back(fmt::format("{} ({} workloads{})", fmt::join(knob_text, " "), shape_class.workloads,
                                    part.up_to ? fmt::format(", sizes up to {}", *part.up_to) : std::string(", the rest")));
    parts.push_back(std::move(part));
  }
  out.knobs = composed_knobs(parts, out.axis);
  out.parts = std::move(parts);
  out.hypothesis = fmt::format("composed by shape class{}: {}; measured apart, {} against the best single configuration's {}",
                               out.axis.empty() ? std::string() : " (classes of " + out.axis + ")", fmt::join(described, "; "),
                               common::format_time_ns(out.classes.classes_ns),
                               common::format_time_ns(out.classes.single_ns));
  return out;
}

}  // namespace kernelarc::engine
