#include "judge/cuda/resource_usage.h"

#include <regex>
#include <sstream>

namespace kernelarc::judge::cuda {

std::map<std::string, KernelResources> parse_ptxas_report(const std::string& report) {
  static const std::regex function(R"(Function properties for (\S+))");
  static const std::regex compiling(R"(Compiling entry function '([^']+)')");
  static const std::regex frame(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex used(R"(Used (\d+) registers)");
  static const std::regex barriers(R"(used (\d+) barriers)");
  static const std::regex shared(R"((\d+) bytes smem)");
  // Reported before the function's own lines, naming it.
  static const std::regex serialized(R"(\(C7514\).*wgmma.*function '([^']+)')");
  std::map<std::string, KernelResources> kernels;
  std::string current;
  std::istringstream lines(report);
  std::string line;
  std::smatch match;
  while (std::getline(lines, line)) {
    if (std::regex_search(line, match, serialized)) {
      kernels[match[1]].wgmma_serialized = true;
      continue;
    }
    if (std::regex_search(line, match, compiling) || std::regex_search(line, match, function)) {
      current = match[1];
      kernels[current];
      continue;
    }
    if (current.empty()) continue;
    auto& k = kernels[current];
    if (std::regex_search(line, match, frame)) {
      k.stack_bytes = std::stoi(match[1]);
      k.spill_store_bytes = std::stoi(match[2]);
      k.spill_load_bytes = std::stoi(match[3]);
    }
    if (std::regex_search(line, match, used)) k.registers = std::stoi(match[1]);
    if (std::regex_search(line, match, barriers)) k.barriers = std::stoi(match[1]);
    if (line.find("Used ") != std::string::npos && std::regex_search(line, match, shared)) k.shared_bytes = std::stoi(match[1]);
  }
  return kernels;
}

nlohmann::json to_json(const std::map<std::string, KernelResources>& resources) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, k] : resources)
    out[name] = {{"registers", k.registers}, {"shared_bytes", k.shared_bytes}, {"stack_bytes", k.stack_bytes},
                 {"spill_store_bytes", k.spill_store_bytes}, {"spill_load_bytes", k.spill_load_bytes}, {"barriers", k.barriers},
                 {"wgmma_serialized", k.wgmma_serialized}};
  return out;
}

}  // namespace kernelarc::judge::cuda
