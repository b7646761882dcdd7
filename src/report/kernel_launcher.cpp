#include "report/kernel_launcher.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <regex>
#include <set>
#include <stdexcept>

#include "report/expression_printer.h"
#include "task/dtype.h"

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
  // The tensor maps, as the judge's worker encodes them (judge/launch_request.cpp's rules), after the var axes.
  if (!launch.tensor_maps.empty()) out += fmt::format("  CUtensorMap kernelarc_maps[{}];\n", launch.tensor_maps.size());
  for (std::size_t i = 0; i < launch.tensor_maps.size(); ++i) {
    const auto& map = launch.tensor_maps[i];
    const auto input = std::find_if(definition.inputs.begin(), definition.inputs.end(), [&](const auto& t) { return t.name == map.input; });
    if (input == definition.inputs.end()) throw std::runtime_error(fmt::format("tensor map {}: no input \"{}\"", i, map.input));
    const auto index = input - definition.inputs.begin();
    out += "  {\n    long long kernelarc_box[2] = {1, 1};\n";
    for (std::size_t j = 0; j < 2; ++j)
      out += fmt::format("    if (!kernelarc_expr_dimension({}, 1, 256, &kernelarc_box[{}])) return 5;  /* {} */\n",
                         expression_to_cpp(map.box[j], names), j, map.box[j].text());
    out += fmt::format("    const int kernelarc_encoded = kernelarc_tensor_map(&kernelarc_maps[{}], inputs[{}], {}, kernelarc_box, {});\n", i, index,
                       task::storage_bytes(input->dtype, 1), map.swizzle_bytes);
    out += "    if (kernelarc_encoded != 0) return kernelarc_encoded;\n  }\n";
    arguments.push_back(fmt::format("&kernelarc_maps[{}]", i));
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

// The launcher's encoding of a TMA tensor map, as the judge's worker does it: the input seen as rows of its last axis,
// reads past its edges zeros, cuTensorMapEncodeTiled found through the runtime (no -lcuda). Returns 0, or 6: no driver
// entry point, 7: the driver refused the map.
std::string tensor_map_helpers_cpp() {
  return R"(typedef CUresult (*kernelarc_encode_tiled_t)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                                const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                                CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
static kernelarc_encode_tiled_t kernelarc_encode_tiled(void) {
  static kernelarc_encode_tiled_t found = 0;
  if (!found) {
    void* entry = 0;
    cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
    const cudaError_t looked = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &entry, 12000, cudaEnableDefault, &status);
#else
    const cudaError_t looked = cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &entry, cudaEnableDefault, &status);
#endif
    if (looked == cudaSuccess && status == cudaDriverEntryPointSuccess) found = (kernelarc_encode_tiled_t)entry;
  }
  return found;
}
static int kernelarc_tensor_map(CUtensorMap* map, const DLTensor* tensor, unsigned element_bytes, const long long box[2], int swizzle_bytes) {
  const kernelarc_encode_tiled_t encode = kernelarc_encode_tiled();
  if (!encode) return 6;
  cuuint64_t rows = 1;
  for (int i = 0; i + 1 < tensor->ndim; ++i) rows *= (cuuint64_t)tensor->shape[i];
  const cuuint64_t columns = tensor->ndim > 0 ? (cuuint64_t)tensor->shape[tensor->ndim - 1] : 1;
  const cuuint64_t dims[2] = {columns, rows}, strides[1] = {(columns * element_bytes + 15) / 16 * 16};
  const cuuint32_t boxes[2] = {(cuuint32_t)box[0], (cuuint32_t)box[1]}, element_strides[2] = {1, 1};
  const CUtensorMapDataType type = element_bytes == 1   ? CU_TENSOR_MAP_DATA_TYPE_UINT8
                                   : element_bytes == 2 ? CU_TENSOR_MAP_DATA_TYPE_UINT16
                                   : element_bytes == 4 ? CU_TENSOR_MAP_DATA_TYPE_UINT32
                                                        : CU_TENSOR_MAP_DATA_TYPE_UINT64;
  const CUtensorMapSwizzle swizzle = swizzle_bytes == 128  ? CU_TENSOR_MAP_SWIZZLE_128B
                                     : swizzle_bytes == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                                     : swizzle_bytes == 32 ? CU_TENSOR_MAP_SWIZZLE_32B
                                                           : CU_TENSOR_MAP_SWIZZLE_NONE;
  return encode(map, type, 2, (char*)tensor->data + tensor->byte_offset, dims, strides, boxes, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS ? 0 : 7;
}
)";
}

// The launcher's opening: the header, the entry point, the tensor count check and every axis; `var_axes` gets the var axes.
std::string launcher_head(const task::Definition& definition, const std::string& what, CppNames& names, std::vector<std::string>& var_axes,
                          bool tensor_maps) {
  for (const auto& axis : definition.axes) names[axis.name] = axis_variable(axis.name);
  std::string out;
  out += "/* ---- Host launcher generated by `kernelarc export`: the judge's launch of this kernel-only candidate. ---- */\n";
  out += tensor_maps ? "#include <cuda.h>\n#include <cuda_runtime.h>\n#include <math.h>\n\n" : "#include <cuda_runtime.h>\n#include <math.h>\n\n";
  out += expression_helpers_cpp();
  if (tensor_maps) out += tensor_map_helpers_cpp();
  out += "\n";
  out += fmt::format("/* Arguments of {}: a pointer per input and per output, then every var axis as long long (the definition's order){}.\n", what,
                     tensor_maps ? ", then each tensor map" : "");
  out += tensor_maps ? " * Returns 1: wrong tensor count; 2: grid, 3: block, 4: shared bytes, 5: a tensor map's box out of range; 6: no driver\n"
                       " * entry point for tensor maps, 7: a map the driver refused; 1000 + cudaError_t: launch failed. */\n"
                     : " * Returns 1: wrong tensor count; 2: grid, 3: block, 4: shared bytes out of range; 1000 + cudaError_t: launch failed. */\n";
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
  std::string out = launcher_head(definition, kernel, names, var_axes, !launch.tensor_maps.empty());
  out += launch_code(definition, launch, kernel, names, var_axes);
  return out + "}\n";
}

std::string kernel_launcher_cpp(const task::Definition& definition, const std::vector<judge::DispatchPart>& parts,
                                const std::vector<std::string>& kernels, const std::string& axis) {
  if (parts.empty() || kernels.size() != parts.size()) throw std::runtime_error("a composed candidate needs a kernel per part");
  CppNames names;
  std::vector<std::string> var_axes;
  const bool tensor_maps = std::any_of(parts.begin(), parts.end(), [](const auto& part) { return part.launch && !part.launch->tensor_maps.empty(); });
  std::string out = launcher_head(definition, "each part's kernel", names, var_axes, tensor_maps);
  out += fmt::format("  /* The part for this call's size, {}: the judge's rule (judge/dispatch_rule.h). */\n",
                     axis.empty() ? std::string("the product of the var axes") : "var axis " + axis);
  out += fmt::format("  const double kernelarc_size = {};\n  (void)kernelarc_size;\n", judge::dispatch_size_cpp(definition, axis));
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
