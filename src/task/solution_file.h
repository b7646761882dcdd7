// A SOL-ExecBench solution.json (docs/SOL_EXECBENCH.md) read back as a KernelArc candidate, in one of three kinds:
// - the candidate ABI: one source defines KERNELARC_CANDIDATE (what `kernelarc export --format solution-json` writes
//   beside its torch binding); judged natively, by a `kernelarc worker`, as any C++ or CUDA candidate;
// - a Python solution (languages pytorch, triton, cute_dsl, cutile, cudnn_frontend): its entry point is a function of a
//   .py file, imported by the oracle process (python/kernelarc_oracle.py) in its candidate role;
// - a torch extension (languages cuda_cpp, cutlass, cudnn, cublas): its C++ and CUDA sources are built by
//   torch.utils.cpp_extension.load in that oracle process, and its entry point is a function of the built module.
// The rules are the benchmark's own (NVIDIA/SOL-ExecBench, core/data/solution.py and driver/templates/: entry point
// "file::function", C++ and Python languages never mixed, the entry file's suffix matching them, paths relative and
// without "..", no duplicate paths, destination-passing style by default, compile options with their defaults), restated
// here in our words. What breaks them is refused with why.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kernelarc::task {

class SolutionError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

enum class SolutionKind {
  candidate_abi,    // a source defines the candidate ABI's entry point: a native candidate
  python,           // a .py entry point imported by the oracle
  torch_extension,  // C++/CUDA sources built into a torch extension by the oracle
};

// "candidate ABI", "python solution through the oracle", "torch extension through the oracle"
std::string solution_kind_name(SolutionKind kind);

struct SolutionSource {
  std::string path;
  std::string content;
};

struct SolutionCandidate {
  std::string name;                          // the solution's name
  std::string definition;                    // the problem it solves
  std::vector<std::string> languages;        // spec.languages
  std::vector<std::string> target_hardware;  // spec.target_hardware
  SolutionKind kind = SolutionKind::candidate_abi;
  // The candidate ABI's kind: the source taken as the candidate and its content.
  std::string source_path;
  std::string source;
  // The other kinds: spec.entry_point split at "::", every source, and how to call and build it.
  std::string entry_file;
  std::string entry_function;
  bool destination_passing_style = true;     // outputs passed after the inputs; false: the function returns them
  std::vector<std::string> dependencies;
  std::vector<SolutionSource> sources;
  // Compile options as the benchmark reads them: none given, all empty; given, a missing list takes its default
  // (cuda_cflags -O3 --use_fast_math, ld_flags -lcuda).
  std::vector<std::string> cflags, cuda_cflags, ld_flags;
};

// Throws SolutionError naming what is missing or why the solution cannot be a candidate.
SolutionCandidate read_solution(std::string_view text);

// True when the solution runs in the oracle process (a Python solution or a torch extension).
inline bool runs_in_oracle(const SolutionCandidate& solution) { return solution.kind != SolutionKind::candidate_abi; }

}  // namespace kernelarc::task
