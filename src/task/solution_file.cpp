#include "task/solution_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

namespace kernelarc::task {

using nlohmann::json;

namespace {

bool is_header(const std::string& path) {
  for (const char* suffix : {".h", ".hpp", ".cuh", ".inc"})
    if (path.ends_with(suffix)) return true;
  return false;
}

std::vector<std::string> strings_at(const json& object, const char* key, const std::string& where) {
  const auto found = object.find(key);
  if (found == object.end()) return {};
  if (!found->is_array()) throw SolutionError(fmt::format("{}.{} must be a list of strings", where, key));
  std::vector<std::string> values;
  for (const auto& value : *found) {
    if (!value.is_string()) throw SolutionError(fmt::format("{}.{} must be a list of strings", where, key));
    values.push_back(value.get<std::string>());
  }
  return values;
}

}  // namespace

SolutionCandidate read_solution(std::string_view text) {
  json solution;
  try {
    solution = json::parse(text);
  } catch (const json::exception& error) {  // a parse error, or a number too large for a double (out_of_range)
    throw SolutionError(fmt::format("not JSON: {}", error.what()));
  }
  if (!solution.is_object()) throw SolutionError("a solution is a JSON object");
  SolutionCandidate candidate;
  for (const auto& [key, slot] : {std::pair{"name", &candidate.name}, std::pair{"definition", &candidate.definition}}) {
    const auto found = solution.find(key);
    if (found == solution.end() || !found->is_string() || found->get<std::string>().empty())
      throw SolutionError(fmt::format("\"{}\" is missing or not a string", key));
    *slot = found->get<std::string>();
  }
  if (const auto spec = solution.find("spec"); spec != solution.end()) {
    if (!spec->is_object()) throw SolutionError("\"spec\" must be an object");
    candidate.languages = strings_at(*spec, "languages", "spec");
    candidate.target_hardware = strings_at(*spec, "target_hardware", "spec");
  }
  const auto sources = solution.find("sources");
  if (sources == solution.end() || !sources->is_array() || sources->empty()) throw SolutionError("\"sources\" is missing or empty");
  std::vector<std::pair<std::string, std::string>> units;  // (path, content) of every source that is not a header
  for (const auto& source : *sources) {
    if (!source.is_object() || !source.contains("path") || !source.contains("content") || !source["path"].is_string() ||
        !source["content"].is_string())
      throw SolutionError("every source is an object with a string \"path\" and \"content\"");
    if (!is_header(source["path"])) units.emplace_back(source["path"], source["content"]);
  }
  const auto is_torch_binding = [](const std::string& content) {
    return content.find("torch/extension.h") != std::string::npos || content.find("TORCH_LIBRARY") != std::string::npos ||
           content.find("PYBIND11_MODULE") != std::string::npos;
  };
  // The binding calls the entry point too; the kernel's file defines it.
  const auto defines_entry = [&](const std::string& content) {
    return !is_torch_binding(content) &&
           (content.find("KERNELARC_CANDIDATE") != std::string::npos || content.find("kernelarc_run") != std::string::npos);
  };
  const auto entries = std::count_if(units.begin(), units.end(), [&](const auto& unit) { return defines_entry(unit.second); });
  if (entries == 0)
    throw SolutionError("no source defines the candidate ABI's entry point (KERNELARC_CANDIDATE or kernelarc_run); a solution that "
                        "only binds a torch function needs libtorch, which KernelArc's workers do not link: port its kernel to the "
                        "ABI (include/kernelarc/candidate_abi.h)");
  if (entries > 1) throw SolutionError(fmt::format("{} sources define the entry point; exactly one may", entries));
  const auto entry = std::find_if(units.begin(), units.end(), [&](const auto& unit) { return defines_entry(unit.second); });
  // Beside the entry point's file only a torch binding may be a translation unit: the judge builds one source.
  for (const auto& [path, content] : units)
    if (path != entry->first && !is_torch_binding(content))
      throw SolutionError(fmt::format("{} is a second translation unit of the kernel; the judge builds one source (merge it into {})",
                                      path, entry->first));
  candidate.source_path = entry->first;
  candidate.source = entry->second;
  return candidate;
}

}  // namespace kernelarc::task
