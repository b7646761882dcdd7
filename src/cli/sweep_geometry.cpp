#include "cli/sweep_geometry.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "cli/csv_output.h"
#include "engine/candidate_source.h"
#include "judge/launch_request.h"

namespace kernelarc::cli {

using nlohmann::json;

namespace {

std::string knobs_text(const json& knobs) {
  std::vector<std::string> parts;
  for (const auto& [name, value] : knobs.items()) parts.push_back(fmt::format("{}={}", name, value.get<std::int64_t>()));
  return fmt::format("{}", fmt::join(parts, " "));
}

std::string dimensions_text(const json& values) {
  std::vector<std::string> parts;
  for (const auto& value : values) parts.push_back(std::to_string(value.get<std::int64_t>()));
  return fmt::format("{}", fmt::join(parts, "x"));
}

}  // namespace

json sweep_geometry(const task::Task& task, const std::vector<TemplateGrid>& grids, int num_sms) {
  json out = {{"task", task.definition.name}, {"num_sms", num_sms}, {"templates", json::array()}, {"refused", 0}};
  for (const auto& [tmpl, grid] : grids) {
    json entry = {{"template", tmpl->name}, {"source", tmpl->source.lexically_relative(task.directory).generic_string()},
                  {"kernel", tmpl->launch ? tmpl->launch->kernel : ""}, {"configurations", json::array()}, {"skipped", json::array()}};
    for (const auto& knobs : grid.configurations) {
      const auto candidate = engine::candidate_source(task, *tmpl, knobs, {});
      json configuration = {{"label", task::changed_knobs_label(*tmpl, knobs)}, {"knobs", knobs}, {"workloads", json::array()}};
      for (const auto& workload : task.workloads) {
        json row = {{"uuid", workload.uuid}, {"held_out", workload.held_out}};
        try {  // the judge's own evaluation: what it refuses to launch is said here as it says it there
          const json launch = judge::launch_request(task, task::resolve_workload(task, workload), candidate, num_sms);
          for (const char* key : {"grid", "block", "shared_bytes", "arguments"}) row[key] = launch.at(key);
        } catch (const std::exception& error) {
          row["error"] = error.what();
          out["refused"] = out["refused"].get<int>() + 1;
        }
        configuration["workloads"].push_back(std::move(row));
      }
      entry["configurations"].push_back(std::move(configuration));
    }
    for (const auto& skipped : grid.skipped)
      entry["skipped"].push_back({{"label", task::changed_knobs_label(*tmpl, skipped.knobs)}, {"knobs", skipped.knobs}, {"constraint", skipped.constraint}});
    out["templates"].push_back(std::move(entry));
  }
  return out;
}

std::string sweep_geometry_csv(const json& geometry) {
  json rows = json::array();
  for (const auto& entry : geometry["templates"]) {
    for (const auto& configuration : entry["configurations"])
      for (const auto& row : configuration["workloads"])
        rows.push_back({{"template", entry["template"]}, {"configuration", configuration["label"]}, {"knobs", knobs_text(configuration["knobs"])},
                        {"workload", row["uuid"]}, {"held_out", row["held_out"]}, {"grid", row.value("grid", json())},
                        {"block", row.value("block", json())}, {"shared_bytes", row.value("shared_bytes", json())}, {"error", row.value("error", json())}});
    for (const auto& skipped : entry["skipped"])
      rows.push_back({{"template", entry["template"]}, {"configuration", skipped["label"]}, {"knobs", knobs_text(skipped["knobs"])},
                      {"error", fmt::format("skipped: breaks the constraint \"{}\"", skipped["constraint"].get<std::string>())}});
  }
  return csv_table(rows, {"template", "configuration", "knobs", "workload", "held_out", "grid", "block", "shared_bytes", "error"});
}

void print_sweep_geometry(const json& geometry) {
  for (const auto& entry : geometry["templates"]) {
    fmt::print("{} template {} ({}, kernel {}) at num_sms={}: {} configurations, {} skipped by constraints\n",
               geometry["task"].get<std::string>(), entry["template"].get<std::string>(), entry["source"].get<std::string>(),
               entry["kernel"].get<std::string>().empty() ? "the module's only one" : entry["kernel"].get<std::string>(),
               geometry["num_sms"].get<int>(), entry["configurations"].size(), entry["skipped"].size());
    std::size_t width = 13;
    for (const auto& configuration : entry["configurations"]) width = std::max(width, configuration["label"].get<std::string>().size());
    fmt::print("{:<{}}  {:<28} {:>14} {:>12} {:>8}  {}\n", "configuration", width, "workload", "grid", "block", "shared", "arguments");
    for (const auto& configuration : entry["configurations"])
      for (const auto& row : configuration["workloads"]) {
        const std::string label = configuration["label"].get<std::string>();
        const std::string uuid = row["uuid"].get<std::string>() + (row["held_out"].get<bool>() ? "*" : "");
        if (row.contains("error")) {
          fmt::print("{:<{}}  {:<28} refused: {}\n", label, width, uuid, row["error"].get<std::string>().substr(0, 200));
          continue;
        }
        fmt::print("{:<{}}  {:<28} {:>14} {:>12} {:>8}  {}\n", label, width, uuid, dimensions_text(row["grid"]), dimensions_text(row["block"]),
                   row["shared_bytes"].get<std::int64_t>(), fmt::join(row["arguments"].get<std::vector<std::int64_t>>(), " "));
      }
    for (const auto& skipped : entry["skipped"])
      fmt::print("skipped {}: breaks the constraint \"{}\"\n", skipped["label"].get<std::string>(), skipped["constraint"].get<std::string>());
  }
  fmt::print("{} launches the judge would refuse\n", geometry["refused"].get<int>());
}

}  // namespace kernelarc::cli
