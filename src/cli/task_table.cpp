#include "cli/task_table.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/csv_output.h"
#include "judge/input_range_check.h"
#include "task/task.h"

namespace kernelarc::cli {

int print_task_table(const std::vector<std::filesystem::path>& directories, const std::string& format, const std::string& command) {
  const bool json_output = format != "table";
  nlohmann::json out = nlohmann::json::array();
  int broken = 0;
  if (!json_output)
    fmt::print("{:<32} {:<16} {:>9} {:>9} {:<22} {}\n", "name", "op_type", "workloads", "held-out", "references", "templates");
  for (const auto& directory : directories) {
    try {
      const auto task = task::load_task(directory);
      for (const auto& warning : judge::input_range_warnings(task))
        fmt::print(stderr, "kernelarc {}: warning: {}: {}\n", command, task.definition.name, warning);
      const auto held = std::count_if(task.workloads.begin(), task.workloads.end(), [](const auto& w) { return w.held_out; });
      std::vector<std::string> natives, references, templates;
      for (const auto& [device, _] : task.definition.native_reference) natives.push_back(device);
      for (const auto& device : natives) references.push_back(device == "cpu" ? "c++" : device);
      if (!task.definition.reference.empty()) references.push_back("pytorch");
      for (const auto& t : task.definition.templates) templates.push_back(t.name);
      const auto visible = task.workloads.size() - static_cast<std::size_t>(held);
      if (json_output) {
        out.push_back({{"name", task.definition.name}, {"op_type", task.definition.op_type}, {"path", directory.string()},
                       {"workloads", visible}, {"held_out", held}, {"native_reference", natives},
                       {"pytorch_reference", !task.definition.reference.empty()}, {"templates", templates},
                       {"description", task.definition.description}});
      } else {
        fmt::print("{:<32} {:<16} {:>9} {:>9} {:<22} {}\n", task.definition.name, task.definition.op_type, visible, held,
                   fmt::format("{}", fmt::join(references, ",")), templates.empty() ? "-" : fmt::format("{}", fmt::join(templates, ", ")));
      }
    } catch (const std::exception& error) {
      ++broken;
      fmt::print(stderr, "kernelarc {}: {}\n", command, error.what());
    }
  }
  if (format == "json") std::cout << out.dump(2) << std::endl;
  if (format == "csv")
    std::cout << csv_table(out, {"name", "op_type", "path", "workloads", "held_out", "native_reference", "pytorch_reference", "templates", "description"})
              << std::flush;
  std::fflush(stdout);  // the table before whatever the caller says on stderr next
  return broken;
}

}  // namespace kernelarc::cli
