// kernelarc tasks: the built-in task library.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/options.h"

namespace kernelarc::cli {

namespace {

int list_tasks(bool json_output) {
  namespace fs = std::filesystem;
  const fs::path root = builtin_tasks_directory();
  if (!fs::is_directory(root)) {
    fmt::print(stderr, "kernelarc tasks: no task library at {} (set KERNELARC_TASKS_DIR)\n", root.string());
    return kExitUsage;
  }
  std::vector<fs::path> directories;
  for (const auto& entry : fs::directory_iterator(root))
    if (entry.is_directory() && fs::exists(entry.path() / "definition.json")) directories.push_back(entry.path());
  std::sort(directories.begin(), directories.end());
  nlohmann::json out = nlohmann::json::array();
  int broken = 0;
  if (!json_output) fmt::print("{:<16} {:<14} {:>9} {:>9} {:<18} {}\n", "name", "op_type", "workloads", "held-out", "native reference", "templates");
  for (const auto& directory : directories) {
    try {
      const auto task = task::load_task(directory);
      const auto held = std::count_if(task.workloads.begin(), task.workloads.end(), [](const auto& w) { return w.held_out; });
      std::vector<std::string> natives, templates;
      for (const auto& [device, _] : task.definition.native_reference) natives.push_back(device);
      for (const auto& t : task.definition.templates) templates.push_back(t.name);
      if (json_output) {
        out.push_back({{"name", task.definition.name}, {"op_type", task.definition.op_type}, {"path", directory.string()},
                       {"workloads", task.workloads.size() - static_cast<std::size_t>(held)}, {"held_out", held},
                       {"native_reference", natives}, {"templates", templates}, {"description", task.definition.description}});
      } else {
        fmt::print("{:<16} {:<14} {:>9} {:>9} {:<18} {}\n", task.definition.name, task.definition.op_type,
                   task.workloads.size() - static_cast<std::size_t>(held), held, fmt::format("{}", fmt::join(natives, ",")),
                   fmt::format("{}", fmt::join(templates, ", ")));
      }
    } catch (const std::exception& error) {
      ++broken;
      fmt::print(stderr, "kernelarc tasks: {}\n", error.what());
    }
  }
  if (json_output) std::cout << out.dump(2) << std::endl;
  return broken ? kExitFailed : kExitOk;
}

}  // namespace

CLI::App* add_tasks_command(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand("tasks", "List the built-in tasks");
  auto json_output = std::make_shared<bool>(false);
  command->add_flag("--json", *json_output, "Print JSON");
  command->callback([json_output, &exit_code] { exit_code = list_tasks(*json_output); });
  return command;
}

}  // namespace kernelarc::cli
