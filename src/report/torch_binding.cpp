#include "report/torch_binding.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>
#include <stdexcept>

namespace kernelarc::report {

namespace {

// A tensor name that is a C++ keyword (or one of the binding's own names) gets a trailing underscore.
std::string parameter_name(const std::string& name) {
  static const std::set<std::string> reserved = {
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch", "char",
      "char8_t", "char16_t", "char32_t", "class", "compl", "concept", "const", "consteval", "constexpr", "constinit",
      "const_cast", "continue", "co_await", "co_return", "co_yield", "decltype", "default", "delete", "do", "double",
      "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto", "if",
      "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr", "operator", "or",
      "or_eq", "private", "protected", "public", "register", "reinterpret_cast", "requires", "return", "short", "signed",
      "sizeof", "static", "static_assert", "static_cast", "struct", "switch", "template", "this", "thread_local", "throw",
      "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using", "virtual", "void", "volatile",
      "wchar_t", "while", "xor", "xor_eq", "m", "run", "torch", "at", "c10", "std", "inputs", "outputs", "device_guard",
      "rc", "described_inputs", "described_outputs", "input_pointers", "output_pointers"};
  return reserved.count(name) ? name + "_" : name;
}

// The C++ type pybind11 converts a Python number to, for a plain scalar of this dtype.
std::string scalar_parameter_type(task::DType dtype) {
  if (dtype == task::DType::boolean) return "bool";
  return task::is_floating(dtype) ? "double" : "int64_t";
}

std::string dl_type(task::DType dtype) {
  const DLDataType type = task::to_dlpack(dtype);
  return fmt::format("DLDataType{{{}, {}, {}}}", static_cast<int>(type.code), static_cast<int>(type.bits), static_cast<int>(type.lanes));
}

}  // namespace

std::string torch_scalar_type(task::DType dtype) {
  switch (dtype) {
    case task::DType::float64: return "Double";
    case task::DType::float32: return "Float";
    case task::DType::float16: return "Half";
    case task::DType::bfloat16: return "BFloat16";
    case task::DType::float8_e4m3fn: return "Float8_e4m3fn";
    case task::DType::float8_e5m2: return "Float8_e5m2";
    case task::DType::float4_e2m1fn_x2: return "Float4_e2m1fn_x2";
    case task::DType::int64: return "Long";
    case task::DType::int32: return "Int";
    case task::DType::int16: return "Short";
    case task::DType::int8: return "Char";
    case task::DType::uint8: return "Byte";
    case task::DType::boolean: return "Bool";
    case task::DType::float4_e2m1: break;
  }
  throw std::invalid_argument(fmt::format("{} has no PyTorch dtype that holds it as the judge lays it out (two values per byte, one per element)",
                                          task::dtype_name(dtype)));
}

std::string torch_binding_cpp(const task::Definition& definition, const std::string& preamble) {
  const auto& inputs = definition.inputs;
  const auto& outputs = definition.outputs;
  std::string out = preamble;
  out += R"(#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>

/* After PyTorch's headers: if they brought their own dlpack.h, its include guard keeps the ABI header's copy out. */
#include <kernelarc/candidate_abi.h>

#include <cstdint>
#include <vector>

extern "C" int kernelarc_run(const DLTensor* const* inputs, int32_t num_inputs, DLTensor* const* outputs, int32_t num_outputs,
                             void* stream);

namespace {

struct DescribedTensor {
  DLTensor tensor{};
  std::vector<int64_t> shape;
};

/* The DLTensor the judge would pass: the data, the device, the dtype, the shape, compact row-major (strides null). */
void describe(const torch::Tensor& t, const char* name, at::ScalarType dtype, int64_t rank, DLDataType type, DescribedTensor& out) {
  TORCH_CHECK(t.is_cuda(), "kernelarc: ", name, " must be a CUDA tensor");
  TORCH_CHECK(t.scalar_type() == dtype, "kernelarc: ", name, " must be ", dtype, ", not ", t.scalar_type());
  TORCH_CHECK(t.dim() == rank, "kernelarc: ", name, " must have ", rank, " dimensions, not ", t.dim());
  TORCH_CHECK(t.is_contiguous(), "kernelarc: ", name, " must be contiguous");
  out.shape.assign(t.sizes().begin(), t.sizes().end());
  out.tensor.data = t.data_ptr();
  out.tensor.device.device_type = static_cast<DLDeviceType>(2); /* kDLCUDA */
  out.tensor.device.device_id = static_cast<int32_t>(t.get_device());
  out.tensor.ndim = static_cast<int32_t>(rank);
  out.tensor.dtype = type;
  out.tensor.shape = out.shape.data();
  out.tensor.strides = nullptr;
  out.tensor.byte_offset = 0;
}

/* A scalar's copy on the device, made again only when its value or device changes: made on every call, its fill would
   sit inside the timed span (the benchmark times from the first kernel of a call to the last). */
template <class Value>
struct ScalarOnDevice {
  bool made = false;
  Value value{};
  c10::Device device{c10::DeviceType::CUDA, 0};
  torch::Tensor tensor;
  const torch::Tensor& get(Value wanted, at::ScalarType dtype, c10::Device on) {
    if (!made || !(wanted == value) || !(on == device)) {
      tensor = torch::scalar_tensor(wanted, torch::TensorOptions().dtype(dtype).device(on));
      made = true, value = wanted, device = on;
    }
    return tensor;
  }
};

}  // namespace

)";
  // The signature: inputs then outputs, as the definition orders them (destination-passing style).
  std::vector<std::string> parameters;
  std::string device_of;
  for (const auto& spec : inputs) {
    if (spec.is_scalar()) {
      parameters.push_back(fmt::format("{} {}", scalar_parameter_type(spec.dtype), parameter_name(spec.name)));
    } else {
      parameters.push_back(fmt::format("torch::Tensor {}", parameter_name(spec.name)));
      if (device_of.empty()) device_of = parameter_name(spec.name);
    }
  }
  for (const auto& spec : outputs) {
    parameters.push_back(fmt::format("torch::Tensor {}", parameter_name(spec.name)));
    if (device_of.empty()) device_of = parameter_name(spec.name);
  }
  std::vector<std::string> names;
  for (const auto& spec : inputs) names.push_back(spec.name);
  for (const auto& spec : outputs) names.push_back(spec.name);
  out += fmt::format("/* {}({}): inputs then outputs; outputs are written in place. */\n", "run", fmt::join(names, ", "));
  out += fmt::format("void run({}) {{\n", fmt::join(parameters, ", "));
  out += fmt::format("  const c10::cuda::CUDAGuard device_guard({}.device());\n", device_of);
  out += fmt::format("  DescribedTensor described_inputs[{}];\n", std::max<std::size_t>(inputs.size(), 1));
  out += fmt::format("  DescribedTensor described_outputs[{}];\n", outputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const auto& spec = inputs[i];
    const std::string name = parameter_name(spec.name);
    const std::string dtype = "at::ScalarType::" + torch_scalar_type(spec.dtype);
    if (spec.is_scalar()) {
      out += fmt::format("  static thread_local ScalarOnDevice<{}> {}_on_device;\n", scalar_parameter_type(spec.dtype), name);
      out += fmt::format("  const torch::Tensor& {0}_tensor = {0}_on_device.get({0}, {1}, {2}.device());\n", name, dtype, device_of);
      out += fmt::format("  describe({}_tensor, \"{}\", {}, 0, {}, described_inputs[{}]);\n", name, spec.name, dtype, dl_type(spec.dtype), i);
    } else {
      out += fmt::format("  const torch::Tensor {0}_contiguous = {0}.contiguous();\n", name);
      out += fmt::format("  describe({}_contiguous, \"{}\", {}, {}, {}, described_inputs[{}]);\n", name, spec.name, dtype, spec.shape->size(),
                         dl_type(spec.dtype), i);
    }
  }
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const auto& spec = outputs[i];
    out += fmt::format("  describe({}, \"{}\", at::ScalarType::{}, {}, {}, described_outputs[{}]);\n", parameter_name(spec.name), spec.name,
                       torch_scalar_type(spec.dtype), spec.shape ? spec.shape->size() : 0, dl_type(spec.dtype), i);
  }
  std::vector<std::string> input_pointers, output_pointers;
  for (std::size_t i = 0; i < inputs.size(); ++i) input_pointers.push_back(fmt::format("&described_inputs[{}].tensor", i));
  for (std::size_t i = 0; i < outputs.size(); ++i) output_pointers.push_back(fmt::format("&described_outputs[{}].tensor", i));
  if (inputs.empty()) input_pointers.push_back("nullptr");
  out += fmt::format("  const DLTensor* input_pointers[] = {{{}}};\n", fmt::join(input_pointers, ", "));
  out += fmt::format("  DLTensor* output_pointers[] = {{{}}};\n", fmt::join(output_pointers, ", "));
  out += fmt::format("  const int rc = kernelarc_run(input_pointers, {}, output_pointers, {}, static_cast<void*>(at::cuda::getCurrentCUDAStream().stream()));\n",
                     inputs.size(), outputs.size());
  out += "  TORCH_CHECK(rc == 0, \"kernelarc: the candidate's entry point returned \", rc, \" (0 means success)\");\n";
  out += "}\n\n";
  out += "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n";
  out += fmt::format("  m.def(\"run\", &run, \"{} (KernelArc candidate, destination-passing style)\");\n", definition.name);
  out += "}\n";
  return out;
}

}  // namespace kernelarc::report
