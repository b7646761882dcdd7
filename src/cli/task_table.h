// The table of task directories that `kernelarc tasks` (the built-in library) and `kernelarc import` (a directory of
// SOL-ExecBench problems) print: name, op type, workloads, which references it has, templates.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace kernelarc::cli {

// Prints one row per directory (a JSON array with --json, CSV with --csv); a directory that does not load is named on stderr with
// why. Returns how many did not load.
// `format`: "table", "json" or "csv".
int print_task_table(const std::vector<std::filesystem::path>& directories, const std::string& format, const std::string& command);

}  // namespace kernelarc::cli
