// kernelarc import DIR: a directory of SOL-ExecBench problems (the benchmark's dataset layout, a folder per problem
// holding definition.json and workload.jsonl, at any depth) listed as KernelArc tasks; `kernelarc run` and
// `kernelarc eval` take any of those folders.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "cli/commands.h"
#include "cli/options.h"
#include "cli/task_table.h"

namespace kernelarc::cli {

namespace {

int import_problems(const std::string& argument, const std::string& format) {
  namespace fs = std::filesystem;
  const fs::path root = argument;
  std::error_code error;
  if (!fs::is_directory(root, error)) {
    fmt::print(stderr, "kernelarc import: {} is not a directory\n", root.string());
    return kExitUsage;
  }
  std::vector<fs::path> directories;
  for (auto entry = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, error);
       !error && entry != fs::recursive_directory_iterator(); entry.increment(error))
    if (entry->is_regular_file() && entry->path().filename() == "definition.json") directories.push_back(entry->path().parent_path());
  if (error) {
    fmt::print(stderr, "kernelarc import: cannot read {}: {}\n", root.string(), error.message());
    return kExitUsage;
  }
  if (directories.empty()) {
    fmt::print(stderr, "kernelarc import: no problem under {} (a problem is a folder with definition.json and workload.jsonl)\n",
               root.string());
    return kExitUsage;
  }
  std::sort(directories.begin(), directories.end());
  const int broken = print_task_table(directories, format, "import");
  fmt::print(stderr, "{} problem(s) under {}: {} load{}\n", directories.size(), root.string(), directories.size() - static_cast<std::size_t>(broken),
             broken ? fmt::format(", {} do not (said above)", broken) : "");
  return broken ? kExitFailed : kExitOk;
}

}  // namespace

CLI::App* add_import_command(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand("import", "List a directory of SOL-ExecBench problems as tasks (kernelarc run takes any of them)");
  auto directory = std::make_shared<std::string>();
  auto json_output = std::make_shared<bool>(false);
  auto csv_output = std::make_shared<bool>(false);
  command->add_option("directory", *directory, "The problems: one folder each with definition.json and workload.jsonl, at any depth")->required();
  auto* json_flag = command->add_flag("--json", *json_output, "Print JSON");
  command->add_flag("--csv", *csv_output, "Print CSV (a header line, one row per task)")->excludes(json_flag);
  command->callback([directory, json_output, csv_output, &exit_code] {
    exit_code = import_problems(*directory, *json_output ? "json" : *csv_output ? "csv" : "table");
  });
  return command;
}

}  // namespace kernelarc::cli
