#include "task/solution_file.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

namespace kernelarc::task {

using nlohmann::json;

namespace {

bool is_header(const std::string& path) {
  for (const char* suffix : {".h", ".hpp", ".cuh", ".inc"})
    if (path.ends_with(suffix)) return true;
  return false;
}

// The benchmark's two families of languages (core/data/solution.py, SupportedLanguages); they never mix.
const std::set<std::string> kPythonLanguages = {"pytorch", "triton", "cute_dsl", "cutile", "cudnn_frontend"};
const std::set<std::string> kCppLanguages = {"cuda_cpp", "cutlass", "cudnn", "cublas"};
// What an entry file of each family may end with.
const std::set<std::string> kCppEntrySuffixes = {".cu", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp", ".cuh"};

std::vector<std::string> strings_at(const json& object, const char* key, const std::string& where) {
  const auto found = object.find(key);
  if (found == object.end() || found->is_null()) return {};
  if (!found->is_array()) throw SolutionError(fmt::format("{}.{} must be a list of strings", where, key));
  std::vector<std::string> values;
  for (const auto& value : *found) {
    if (!value.is_string()) throw SolutionError(fmt::format("{}.{} must be a list of strings", where, key));
    values.push_back(value.get<std::string>());
  }
  return values;
}

// A solution without the candidate ABI's entry point, read by the benchmark's rules.
void read_benchmark_solution(const json& spec, SolutionCandidate& candidate) {
  const auto entry = spec.find("entry_point");
  if (entry == spec.end() || !entry->is_string() || entry->get<std::string>().empty())
    throw SolutionError("no source defines the candidate ABI's entry point (KERNELARC_CANDIDATE) and spec.entry_point, "
                        "\"file::function\", is missing");
  const std::string entry_point = entry->get<std::string>();
  const auto separator = entry_point.find("::");
  if (separator == std::string::npos || entry_point.find("::", separator + 2) != std::string::npos || separator == 0 ||
      separator + 2 == entry_point.size())
    throw SolutionError(fmt::format("spec.entry_point \"{}\" is not \"file::function\"", entry_point));
  candidate.entry_file = entry_point.substr(0, separator);
  candidate.entry_function = entry_point.substr(separator + 2);
  std::vector<std::string> python, cpp, unknown;
  for (const auto& language : candidate.languages)
    (kPythonLanguages.contains(language) ? python : kCppLanguages.contains(language) ? cpp : unknown).push_back(language);
  if (!unknown.empty())
    throw SolutionError(fmt::format("spec.languages has {} (the benchmark's are {} and {})", fmt::join(unknown, ", "),
                                    fmt::join(kPythonLanguages, ", "), fmt::join(kCppLanguages, ", ")));
  if (!python.empty() && !cpp.empty())
    throw SolutionError(fmt::format("C++ and Python languages cannot be mixed ({} with {})", fmt::join(cpp, ", "), fmt::join(python, ", ")));
  const std::string suffix = std::filesystem::path(candidate.entry_file).extension().string();
  const bool python_entry = suffix == ".py";
  if (!cpp.empty() && !kCppEntrySuffixes.contains(suffix))
    throw SolutionError(fmt::format("C++ languages need a C++ or CUDA entry file, not {}", candidate.entry_file));
  if (!python.empty() && !python_entry)
    throw SolutionError(fmt::format("Python languages need a .py entry file, not {}", candidate.entry_file));
  if (python.empty() && cpp.empty() && !python_entry && !kCppEntrySuffixes.contains(suffix))
    throw SolutionError(fmt::format("the entry file {} is neither Python nor C++ or CUDA", candidate.entry_file));
  candidate.kind = (!python.empty() || (cpp.empty() && python_entry)) ? SolutionKind::python : SolutionKind::torch_extension;
  if (const auto style = spec.find("destination_passing_style"); style != spec.end() && !style->is_null()) {
    if (!style->is_boolean()) throw SolutionError("spec.destination_passing_style must be true or false");
    candidate.destination_passing_style = style->get<bool>();
  }
  if (const auto binding = spec.find("binding"); binding != spec.end() && !binding->is_null() && candidate.kind == SolutionKind::torch_extension &&
                                                  (!binding->is_string() || binding->get<std::string>() != "torch"))
    throw SolutionError(fmt::format("spec.binding is {}; C++ solutions bind through torch", binding->dump()));
  candidate.dependencies = strings_at(spec, "dependencies", "spec");
  if (const auto options = spec.find("compile_options"); options != spec.end() && !options->is_null()) {
    if (!options->is_object()) throw SolutionError("spec.compile_options must be an object");
    candidate.cflags = strings_at(*options, "cflags", "spec.compile_options");
    candidate.cuda_cflags = options->contains("cuda_cflags") ? strings_at(*options, "cuda_cflags", "spec.compile_options")
                                                              : std::vector<std::string>{"-O3", "--use_fast_math"};
    candidate.ld_flags = options->contains("ld_flags") ? strings_at(*options, "ld_flags", "spec.compile_options")
                                                        : std::vector<std::string>{"-lcuda"};
  }
  const bool entry_present = std::any_of(candidate.sources.begin(), candidate.sources.end(),
                                         [&](const SolutionSource& source) { return source.path == candidate.entry_file; });
  if (!entry_present) throw SolutionError(fmt::format("the entry file {} is not among the sources", candidate.entry_file));
  if (candidate.kind == SolutionKind::torch_extension &&
      std::none_of(candidate.sources.begin(), candidate.sources.end(), [](const SolutionSource& source) {
        for (const char* unit : {".cu", ".cpp", ".cc", ".cxx", ".c"})
          if (source.path.ends_with(unit) && source.path.find('/') == std::string::npos) return true;
        return false;
      }))
    throw SolutionError("no C++ or CUDA source at the top of the solution's folder to build");
}

}  // namespace

std::string solution_kind_name(SolutionKind kind) {
  switch (kind) {
    case SolutionKind::candidate_abi: return "candidate ABI";
    case SolutionKind::python: return "python solution through the oracle";
    case SolutionKind::torch_extension: return "torch extension through the oracle";
  }
  return "?";
}

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
  json spec = json::object();
  if (const auto found = solution.find("spec"); found != solution.end()) {
    if (!found->is_object()) throw SolutionError("\"spec\" must be an object");
    spec = *found;
    candidate.languages = strings_at(spec, "languages", "spec");
    candidate.target_hardware = strings_at(spec, "target_hardware", "spec");
  }
  const auto sources = solution.find("sources");
  if (sources == solution.end() || !sources->is_array() || sources->empty()) throw SolutionError("\"sources\" is missing or empty");
  std::set<std::string> seen;
  for (const auto& source : *sources) {
    if (!source.is_object() || !source.contains("path") || !source.contains("content") || !source["path"].is_string() ||
        !source["content"].is_string())
      throw SolutionError("every source is an object with a string \"path\" and \"content\"");
    const std::string path = source["path"];
    // Written into the candidate's own folder: nothing may land outside it.
    const std::filesystem::path relative(path);
    if (path.empty() || relative.is_absolute() || std::any_of(relative.begin(), relative.end(), [](const auto& part) { return part == ".."; }) ||
        path.find('\0') != std::string::npos)
      throw SolutionError(fmt::format("source path \"{}\" must be relative and without \"..\"", path));
    if (!seen.insert(relative.lexically_normal().string()).second) throw SolutionError(fmt::format("duplicate source path \"{}\"", path));
    candidate.sources.push_back({path, source["content"]});
  }
  std::vector<std::pair<std::string, std::string>> units;  // (path, content) of every source that is not a header
  for (const auto& source : candidate.sources)
    if (!is_header(source.path)) units.emplace_back(source.path, source.content);
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
  // No ABI entry point: the benchmark's own kinds, run in the oracle process.
  if (entries == 0) {
    read_benchmark_solution(spec, candidate);
    return candidate;
  }
  if (entries > 1) throw SolutionError(fmt::format("{} sources define the entry point; exactly one may", entries));
  const auto entry = std::find_if(units.begin(), units.end(), [&](const auto& unit) { return defines_entry(unit.second); });
  // Beside the entry point's file only a torch binding may be a translation unit: the judge builds one source.
  for (const auto& [path, content] : units)
    if (path != entry->first && !is_torch_binding(content))
      throw SolutionError(fmt::format("{} is a second translation unit of the kernel; the judge builds one source (merge it into {})",
                                      path, entry->first));
  candidate.kind = SolutionKind::candidate_abi;
  candidate.source_path = entry->first;
  candidate.source = entry->second;
  return candidate;
}

}  // namespace kernelarc::task
