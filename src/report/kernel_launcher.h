// The host entry point generated around a kernel-only CUDA candidate, so that its exported source builds with nvcc
// into the candidate ABI like any full source: it launches the kernel exactly as the judge does.
#pragma once

#include <string>
#include <vector>

#include "judge/dispatch_rule.h"
#include "task/task.h"

namespace kernelarc::report {

// The kernel a template launches: its declared `launch.kernel`, else the source's only __global__ function.
// Throws std::runtime_error when the source has none or several and the template names none.
std::string launched_kernel_name(const std::string& source, const task::LaunchGeometry& launch);

// CUDA host code defining KERNELARC_CANDIDATE: it reads every var axis from the first tensor whose shape names it,
// evaluates the template's grid, block and shared bytes per call (knobs are the macros of the same name), and
// launches `kernel` on the stream with a pointer per input and per output, then every var axis as long long, in the
// definition's order. Returns 1 for a wrong tensor count, 2 to 4 for a grid, block or shared size out of range,
// 1000 + the cudaError_t of a failed launch. Throws std::runtime_error for a var axis no tensor shape names, and
// std::invalid_argument for an expression over names that are neither axes nor knobs.
std::string kernel_launcher_cpp(const task::Definition& definition, const task::LaunchGeometry& launch, const std::string& kernel,
                                const std::vector<std::string>& knob_names);

// The launcher of a composed kernel-only candidate (engine/composition.h): the part the judge's rule picks for the call's
// shapes (judge/dispatch_rule.h), launched by that part's geometry with its knob values written in (each part's knob
// macros are gone by the end of the composed source). `kernels`: each part's kernel as C++ names it (in its part's
// namespace); `axis`: the var axis the parts are told apart by (empty: the product). Returns and throws as the one above.
std::string kernel_launcher_cpp(const task::Definition& definition, const std::vector<judge::DispatchPart>& parts,
                                const std::vector<std::string>& kernels, const std::string& axis = "");

}  // namespace kernelarc::report
