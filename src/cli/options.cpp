#include "cli/options.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "judge/build_cache.h"
#include "judge/input_range_check.h"

#ifndef KERNELARC_TASKS_DIR
#define KERNELARC_TASKS_DIR "tasks"
#endif

namespace kernelarc::cli {

namespace fs = std::filesystem;

fs::path builtin_tasks_directory() {
  if (const char* dir = std::getenv("KERNELARC_TASKS_DIR"); dir && *dir) return dir;
  return KERNELARC_TASKS_DIR;
}

namespace {

task::Task load_task_directory(const std::string& argument, const std::optional<fs::path>& extensions_file) {
  if (fs::is_directory(argument)) return task::load_task(argument, extensions_file);
  const fs::path builtin = builtin_tasks_directory() / argument;
  if (argument.find('/') == std::string::npos && fs::is_directory(builtin)) return task::load_task(builtin, extensions_file);
  throw task::TaskError(argument, "", fmt::format("expected a task directory or the name of a built-in task (see `kernelarc tasks`; "
                                                  "built-in tasks are in {})", builtin_tasks_directory().string()));
}

}  // namespace

task::Task load_task_argument(const std::string& argument, const std::string& extensions) {
  const auto extensions_file = extensions.empty() ? std::nullopt : std::optional<fs::path>(extensions);
  task::Task task = load_task_directory(argument, extensions_file);
  // Said at load, before any candidate is judged on inputs its reference cannot take.
  for (const auto& warning : judge::input_range_warnings(task)) fmt::print(stderr, "kernelarc: warning: {}\n", warning);
  return task;
}

void keep_only_workloads(task::Task& task, const std::vector<std::string>& uuids) {
  if (uuids.empty()) return;
  std::vector<task::Workload> chosen;
  for (const auto& uuid : uuids) {
    const auto found = std::find_if(task.workloads.begin(), task.workloads.end(), [&](const task::Workload& w) { return w.uuid == uuid; });
    if (found == task.workloads.end()) throw std::runtime_error(fmt::format("task {} has no workload \"{}\"", task.definition.name, uuid));
    chosen.push_back(*found);
  }
  task.workloads = std::move(chosen);
}

fs::path default_store_path() {
  if (const char* path = std::getenv("KERNELARC_STORE"); path && *path) return path;
  if (const char* data = std::getenv("XDG_DATA_HOME"); data && *data) return fs::path(data) / "kernelarc" / "runs.db";
  if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".local" / "share" / "kernelarc" / "runs.db";
  return "kernelarc-runs.db";
}

store::Store open_store_for_writing(const std::string& given) {
  const fs::path path = given.empty() ? default_store_path() : fs::path(given);
  if (!given.empty() && path.has_parent_path() && !fs::is_directory(path.parent_path()))
    throw std::runtime_error(fmt::format("cannot use the store {}: the folder {} does not exist (create it, or give another --store)", path.string(),
                                         path.parent_path().string()));
  try {
    auto store = store::Store::open(path);
    store.transaction([] {});  // a write lock taken and given back: a read-only file fails here, not after the work
    return store;
  } catch (const store::StoreError& error) {
    throw std::runtime_error(fmt::format("cannot use the store {}: {}", path.string(), error.what()));
  }
}

task::DevicePeaks device_peaks(const std::string& device, const judge::CompilerOptions& options, const CpuPeakOverrides& overrides) {
  const auto name = judge::parse_device(device);
  if (!name) throw std::runtime_error(fmt::format("unknown device \"{}\" (expected {})", device, judge::known_device_names()));
  return judge::backend_for(device).peaks(name->ordinal, options, overrides, [](const std::string& line) { fmt::print(stderr, "{}\n", line); });
}

std::string search_protocol_defaults(int judge::JudgeProtocol::*setting, judge::ProtocolUse use) {
  std::string text;
  for (const auto* backend : judge::available_backends())
    text += fmt::format("{}{} on {}", text.empty() ? "" : ", ", backend->protocol(use).*setting, backend->phrase());
  return text;
}

std::map<std::string, double> load_baseline_file(const fs::path& path) {
  nlohmann::json baseline;
  try {
    baseline = nlohmann::json::parse(judge::read_text_file(path));
  } catch (const nlohmann::json::exception& error) {
    throw std::runtime_error(fmt::format("{} is not JSON: {}", path.string(), error.what()));
  }
  if (!baseline.is_object()) throw std::runtime_error(fmt::format("{} must hold a JSON object: workload uuid -> milliseconds", path.string()));
  std::map<std::string, double> ns;
  for (const auto& [uuid, ms] : baseline.items()) {
    if (!ms.is_number() || ms.get<double>() <= 0)
      throw std::runtime_error(fmt::format("{}: the baseline of {} must be a positive number of milliseconds", path.string(), uuid));
    ns[uuid] = ms.get<double>() * 1e6;
  }
  return ns;
}

}  // namespace kernelarc::cli
