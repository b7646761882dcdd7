// A SOL-ExecBench solution.json (docs/SOL_EXECBENCH.md) read back as a KernelArc candidate: the one source that defines
// the candidate ABI's entry point, which is what `kernelarc export --format solution-json` writes beside its torch
// binding. A solution whose only entry point is a torch function cannot be judged here (the workers do not link
// libtorch), and one whose kernel spans several translation units neither: both are refused with why.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace kernelarc::task {

class SolutionError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct SolutionCandidate {
  std::string name;                          // the solution's name
  std::string definition;                    // the problem it solves
  std::vector<std::string> languages;        // spec.languages
  std::vector<std::string> target_hardware;  // spec.target_hardware
  std::string source_path;                   // the source taken as the candidate
  std::string source;                        // its content
};

// Throws SolutionError naming what is missing or why the solution cannot be a candidate.
SolutionCandidate read_solution(std::string_view text);

}  // namespace kernelarc::task
