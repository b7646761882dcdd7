#include "report/kernel_launcher.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <regex>
#include <set>
#include <stdexcept>

#include "report/expression_printer.h"

namespace kernelarc::report {

std::string launched_kernel_name(const std::string& source, const task::LaunchGeometry& launch) {
  if (!launch.kernel.empty()) return launch.kernel;
  // __global__ [qualifiers and attributes] void name(  -- what NVRTC would find as the module's only kernel.
  static const std::regex global_function(R"(__global__[^;{(]*?\bvoid\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?([A-Za-z_]\w*)\s*\()");
  std::set<std::string> names;
  for (auto it = std::sregex_iterator(source.begin(), source.end(), global_function); it != std::sregex_iterator(); ++it)
    names.insert((*it)[1].str());
  if (names.size() == 1) return *names.begin();
  throw std::runtime_error(names.empty() ? "the kernel source has no __global__ function to launch"
                                         : fmt::format("the kernel source has {} __global__ functions and the template names none to launch",
                                                       names.size()));
}

namespace {

std::string axis_variable(const std::string& axis) { return "kernelarc_axis_" + axis; }

// The launch of one kernel by `launch`, evaluated per call over `names` (axes and knobs), ending in a return.
std::string launch_code(const task::Definition& definition, const task::LaunchGeometry& launch, const std::string& kernel, CppNames names,
                        const std::vector<std::string>& var_axes) {
  // Encoding TMA maps needs the driver's entry point from the launcher: not written yet, so no launcher without them.
  if (!launch.tensor_maps.empty())
    throw std::runtime_error(fmt::format("the launch of {} has TMA tensor maps, which an exported launcher does not encode yet", kernel));
  std::string out;
  // num_sms: the SM count of the device the launch goes to, as the judge's (task::kDefaultNumSms where CUDA cannot say).
  bool uses_num_sms = false;
  const auto uses = [&](const task::Expression& expression) {
    const auto variables = expression.variables();
    if (std::find(variables.begin(), variables.end(), task::kNumSmsName) != variables.end()) uses_num_sms = true;
  };
  for (const auto& binding : launch.let) uses(binding.expression);
  for (const auto& expression : launch.grid) uses(expression);
  for (const auto& expression : launch.block) uses(expression);
  if (launch.shared_bytes) uses(*launch.shared_bytes);
  if (uses_num_sms) {
    out += "  int kernelarc_device = 0, kernelarc_sms = 0;\n";
    out += fmt::format("  const double kernelarc_num_sms = cudaGetDevice(&kernelarc_device) == cudaSuccess &&\n"
                       "      cudaDeviceGetAttribute(&kernelarc_sms, cudaDevAttrMultiProcessorCount, kernelarc_device) == cudaSuccess &&\n"
                       "      kernelarc_sms > 0 ? (double)kernelarc_sms : {}.0;\n",
                       task::kDefaultNumSms);
    names[std::string(task::kNumSmsName)] = "kernelarc_num_sms";
  }
  // The "let" bindings in order, each after the names it uses.
  for (const auto& binding : launch.let) {
    out += fmt::format("  const double kernelarc_let_{} = {};  /* {} */\n", binding.name, expression_to_cpp(binding.expression, names),
                       binding.expression.text());
    names[binding.name] = "kernelarc_let_" + binding.name;
  }
  for (const auto& binding : launch.let) out += fmt::format("  (void)kernelarc_let_{};\n", binding.name);
  out += "  long long kernelarc_grid[3] = {1, 1, 1}, kernelarc_block[3] = {1, 1, 1}, kernelarc_shared_bytes = 0;\n";
  for (std::size_t i = 0; i < launch.grid.size(); ++i)
    out += fmt::format("  if (!kernelarc_expr_dimension({}, 1, 2147483647LL, &kernelarc_grid[{}])) return 2;  /* {} */\n",
                       expression_to_cpp(launch.grid[i], names), i, launch.grid[i].text());
  for (std::size_t i = 0; i < launch.block.size(); ++i)
    out += fmt::format("  if (!kernelarc_expr_dimension({}, 1, 1024, &kernelarc_block[{}])) return 3;  /* {} */\n",
                       expression_to_cpp(launch.block[i], names), i, launch.block[i].text());
  if (launch.shared_bytes)
    out += fmt::format("  if (!kernelarc_expr_dimension({}, 0, 2147483647LL, &kernelarc_shared_bytes)) return 4;  /* {} */\n",
                       expression_to_cpp(*launch.shared_bytes, names), launch.shared_bytes->text());

  out += "  void* kernelarc_pointers[] = {";
  std::vector<std::string> pointers;
  for (std::size_t i = 0; i < definition.inputs.size(); ++i)
    pointers.push_back(fmt::format("(char*)inputs[{0}]->data + inputs[{0}]->byte_offset", i));
  for (std::size_t i = 0; i < definition.outputs.size(); ++i)
    pointers.push_back(fmt::format("(char*)outputs[{0}]->data + outputs[{0}]->byte_offset", i));
  out += fmt::format("\n      {}}};\n", fmt::join(pointers, ",\n      "));
  std::vector<std::string> arguments;
  for (std::size_t i = 0; i < pointers.size(); ++i) arguments.push_back(fmt::format("&kernelarc_pointers[{}]", i));
  if (!var_axes.empty()) {
    std::vector<std::string> values;
    for (const auto& axis : var_axes) values.push_back(axis_variable(axis));
    out += fmt::format("  long long kernelarc_axes[] = {{{}}};\n", fmt::join(values, ", "));
    for (std::size_t i = 0; i < var_axes.size(); ++i) arguments.push_back(fmt::format("&kernelarc_axes[{}]", i));
  }
  out += fmt::format("  void* kernelarc_arguments[] = {{{}}};\n", fmt::join(arguments, ", "));
  out += "  if (kernelarc_shared_bytes > 48 * 1024) {\n";
  out += fmt::format("    const cudaError_t kernelarc_raised =\n"
                     "        cudaFuncSetAttribute((const void*){}, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)kernelarc_shared_bytes);\n",
                     kernel);
  out += "    if (kernelarc_raised != cudaSuccess) return 1000 + (int)kernelarc_raised;\n  }\n";
  out += fmt::format(
      "  const cudaError_t kernelarc_launched = cudaLaunchKernel(\n"
      "      (const void*){}, dim3((unsigned)kernelarc_grid[0], (unsigned)kernelarc_grid[1], (unsigned)kernelarc_grid[2]),\n"
      "      dim3((unsigned)kernelarc_block[0], (unsigned)kernelarc_block[1], (unsigned)kernelarc_block[2]), kernelarc_arguments,\n"
      "      (size_t)kernelarc_shared_bytes, (cudaStream_t)stream);\n",
      kernel);
  out += "  return kernelarc_launched == cudaSuccess ? 0 : 1000 + (int)kernelarc_launched;\n";
  return out;
}

// The launcher's opening: the header, the entry point, the tensor count check and every axis; `var_axes` gets the var axes.
std::string launcher_head(const task::Definition& definition, const std::string& what, CppNames& names, std::vector<std::string>& var_axes) {
  for (const auto& axis : definition.axes) names[axis.name] = axis_variable(axis.name);
  std::string out;
  out += "/* ---- Host launcher generated by `kernelarc export`: the judge's launch of this kernel-only candidate. ---- */\n";
  out += "#include <cuda_runtime.h>\n#include <math.h>\n\n";
  out += expression_helpers_cpp();
  out += "\n";
  out += fmt::format("/* Arguments of {}: a pointer per input and per output, then every var axis as long long (the definition's order).\n", what);
  out += " * Returns 1: wrong tensor count; 2: grid, 3: block, 4: shared bytes out of range; 1000 + cudaError_t: launch failed. */\n";
  out += "KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {\n";
  out += fmt::format("  if (num_inputs != {} || num_outputs != {}) return 1;\n", definition.inputs.size(), definition.outputs.size());
  for (const auto& axis : definition.axes) {
    if (axis.kind == task::AxisKind::variable) {
      out += fmt::format("  const long long {} = {};\n", axis_variable(axis.name), judge::axis_shape_reference(definition, axis.name));
      var_axes.push_back(axis.name);
    } else if (axis.kind == task::AxisKind::constant) {
      out += fmt::format("  const double {} = {};\n", axis_variable(axis.name), static_cast<double>(axis.value));
    }
  }
  // Expression axes after every var and const axis they may use.
  for (const auto& axis : definition.axes)
    if (axis.kind == task::AxisKind::expression)
      out += fmt::format("  const double {} = {};\n", axis_variable(axis.name), expression_to_cpp(*axis.expression, names));
  for (const auto& axis : definition.axes) out += fmt::format("  (void){};\n", axis_variable(axis.name));
  return out;
}

}  // namespace

std::string kernel_launcher_cpp(const task::Definition& definition, const task::LaunchGeometry& launch, const std::string& kernel,
                                const std::vector<std::string>& knob_names) {
  CppNames names;
  for (const auto& knob : knob_names) names[knob] = knob;
  std::vector<std::string> var_axes;
  std::string out = launcher_head(definition, kernel, names, var_axes);
  out += launch_code(definition, launch, kernel, names, var_axes);
  return out + "}\n";
}

std::string kernel_launcher_cpp(const task::Definition& definition, const std::vector<judge::DispatchPart>& parts,
                                const std::vector<std::string>& kernels) {
  if (parts.empty() || kernels.size() != parts.size()) throw std::runtime_error("a composed candidate needs a kernel per part");
  CppNames names;
  std::vector<std::string> var_axes;
  std::string out = launcher_head(definition, "each part's kernel", names, var_axes);
  out += "  /* The part for this call's size, the product of the var axes: the judge's rule (judge/dispatch_rule.h). */\n";
  out += fmt::format("  const double kernelarc_size = {};\n  (void)kernelarc_size;\n", judge::dispatch_size_cpp(definition));
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const auto& part = parts[i];
    if (!part.launch || part.launch->kernel.empty()) throw std::runtime_error(fmt::format("part {} of the composed candidate has no kernel to launch", i));
    CppNames part_names = names;
    for (const auto& [knob, value] : part.knobs) part_names[knob] = fmt::format("({}.0)", value);
    const bool last = i + 1 == parts.size() || !part.up_to;
    out += last ? fmt::format("  {{  /* part {}: the rest */\n", i) : fmt::format("  if (kernelarc_size <= {}.0) {{  /* part {} */\n", *part.up_to, i);
    out += launch_code(definition, *part.launch, kernels[i], part_names, var_axes);
    out += "  }\n";
    if (last) break;
  }
  return out + "}\n";
}

}  // namespace kernelarc::report
