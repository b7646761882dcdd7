#include "task/task.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "common/hash.h"
#include "task/task_file.h"

namespace kernelarc::task {

namespace fs = std::filesystem;
using task_file::check_roofline_axes;
using task_file::json;
using task_file::Node;
using task_file::parse_definition;
using task_file::parse_extensions;
using task_file::parse_json;
using task_file::parse_workload_file;
using task_file::read_file;

TaskError::TaskError(const fs::path& file, std::string field, std::string problem)
    : std::runtime_error(fmt::format("{}: {}: {}", file.string(), field.empty() ? "(top level)" : field,
                                     problem)),
      file_(file),
      field_(std::move(field)) {}

Task load_task(const fs::path& directory, const std::optional<fs::path>& extensions) {
  if (!fs::is_directory(directory)) throw TaskError(directory, "", "expected a task directory");
  Task task;
  task.directory = fs::canonical(directory);
  const fs::path definition_file = task.directory / "definition.json";
  task.definition_json = read_file(definition_file);
  const json root = parse_json(task.definition_json, definition_file, "");
  if (!root.is_object()) throw TaskError(definition_file, "", "expected a JSON object");
  std::vector<std::string> held_out_uuids;
  std::optional<fs::path> held_out_file;
  task.definition = parse_definition(Node(root, definition_file, ""), task.directory, held_out_uuids, held_out_file);
  std::string extensions_text;
  if (extensions) {
    // The definition's "kernelarc" section kept in a file of its own, for a problem that is not to be edited: its keys
    // are read after the definition's own (templates added, the others replaced), its paths relative to its folder.
    if (!fs::is_regular_file(*extensions)) throw TaskError(*extensions, "", "expected a JSON file of KernelArc's extensions");
    task.extensions_file = fs::canonical(*extensions);
    extensions_text = read_file(task.extensions_file);
    const json extension_root = parse_json(extensions_text, task.extensions_file, "");
    const Node node(extension_root, task.extensions_file, "");
    node.object();  // complains unless it is an object
    parse_extensions(node, task.extensions_file.parent_path(), task.definition, held_out_uuids, held_out_file);
    check_roofline_axes(task.definition, node);
  }

  const fs::path workload_file = task.directory / "workload.jsonl";
  const std::string workload_text = read_file(workload_file);
  task.workloads = parse_workload_file(workload_file, task.definition, task.directory, workload_text);
  if (task.workloads.empty()) throw TaskError(workload_file, "", "expected at least one workload line");
  std::string hashed = task.definition_json + '\0' + workload_text;
  if (extensions) hashed += '\0' + extensions_text;
  if (held_out_file) {
    const std::string held_text = read_file(*held_out_file);
    hashed += '\0' + held_text;
    auto extra = parse_workload_file(*held_out_file, task.definition, task.directory, held_text);
    for (auto& workload : extra) workload.held_out = true;
    task.workloads.insert(task.workloads.end(), extra.begin(), extra.end());
  }
  std::set<std::string> uuids;
  for (const auto& workload : task.workloads)
    if (!uuids.insert(workload.uuid).second)
      throw TaskError(workload_file, "uuid", fmt::format("expected unique uuids, \"{}\" appears twice", workload.uuid));
  for (const auto& uuid : held_out_uuids) {
    auto found = std::find_if(task.workloads.begin(), task.workloads.end(), [&](const Workload& w) { return w.uuid == uuid; });
    if (found == task.workloads.end())
      throw TaskError(definition_file, "kernelarc.held_out", fmt::format("names unknown workload \"{}\"", uuid));
    found->held_out = true;
  }
  std::stable_partition(task.workloads.begin(), task.workloads.end(), [](const Workload& w) { return !w.held_out; });
  if (task.workloads.front().held_out)
    throw TaskError(definition_file, "kernelarc.held_out", "leaves no visible workload");
  // Resolve every workload now so a bad one is reported at load time, not mid-run.
  for (const auto& workload : task.workloads) resolve_workload(task, workload);
  task.content_hash = common::content_hash(hashed);
  return task;
}

}  // namespace kernelarc::task
