// kernelarc tasks: the built-in task library.
#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "cli/task_table.h"
#include "task/task_library.h"

namespace kernelarc::cli {

namespace {

int list_tasks(const std::string& format) {
  namespace fs = std::filesystem;
  const fs::path root = builtin_tasks_directory();
  if (!fs::is_directory(root)) {
    fmt::print(stderr, "kernelarc tasks: no task library at {} (set KERNELARC_TASKS_DIR)\n", root.string());
    return kExitUsage;
  }
  const auto directories = task::task_directories(root);
  const int broken = print_task_table(directories, format, "tasks");
  return broken ? kExitFailed : kExitOk;
}

}  // namespace

CLI::App* add_tasks_command(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand("tasks", "List the built-in tasks");
  auto json_output = std::make_shared<bool>(false);
  auto csv_output = std::make_shared<bool>(false);
  auto* json_flag = command->add_flag("--json", *json_output, "Print JSON");
  command->add_flag("--csv", *csv_output, "Print CSV (a header line, one row per task)")->excludes(json_flag);
  command->callback([json_output, csv_output, &exit_code] { exit_code = list_tasks(*json_output ? "json" : *csv_output ? "csv" : "table"); });
  return command;
}

}  // namespace kernelarc::cli
