// The task model: a problem directory in the SOL-ExecBench format plus KernelArc's extensions.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "task/dtype.h"
#include "task/expression.h"

namespace kernelarc::task {

// A malformed task: the message names the file, the field and what was expected.
class TaskError : public std::runtime_error {
 public:
  TaskError(const std::filesystem::path& file, std::string field, std::string problem);
  const std::string& field() const { return field_; }
  const std::filesystem::path& file() const { return file_; }

 private:
  std::filesystem::path file_;
  std::string field_;
};

enum class AxisKind { constant, variable, expression };

struct Axis {
  std::string name;
  AxisKind kind = AxisKind::variable;
  std::int64_t value = 0;                 // for constant axes
  std::optional<Expression> expression;   // for expression axes
  std::string description;
};

struct TensorSpec {
  std::string name;
  std::optional<std::vector<std::string>> shape;  // nullopt: a plain scalar; empty: a 0-d tensor
  DType dtype = DType::float32;
  std::string description;
  bool is_scalar() const { return !shape.has_value(); }
};

// The strategies an agent can own; every knob is tagged with one.
const std::vector<std::string>& strategy_names();

struct Knob {
  std::string name;
  std::vector<std::int64_t> values;  // the domain, in the order the search may try them
  std::string strategy;
  std::string description;
  bool searched = true;  // false ("search": false): `kernelarc run` keeps it at its first value; sweeps and eval turn it
};

// A named sub-expression of a launch rule (definition.json's "let": {"name": "expression", ...}).
struct LaunchBinding {
  std::string name;
  Expression expression;
};

// The device's SM count where no device says it (export without a GPU, CPU-only tests): the H100/H200's.
inline constexpr int kDefaultNumSms = 132;
inline constexpr std::string_view kNumSmsName = "num_sms";  // the variable launch rules read it from

// A TMA tensor map (sm_90's cp.async.bulk.tensor) that the judge encodes for a kernel-only launch: the named input seen as
// rows x its last axis (contiguous), copied `box` elements at a time (along the last axis, then rows) with a 128-, 64- or
// 32-byte swizzle or none, zeros read past its edges. The maps follow the var axes in the kernel's parameters, in
// order, each a 128-byte `const __grid_constant__` parameter.
struct TensorMapRule {
  std::string input;
  std::vector<Expression> box;  // two: elements along the last axis, then rows
  int swizzle_bytes = 0;        // 0, 32, 64 or 128
};

struct LaunchGeometry {
  std::vector<LaunchBinding> let;  // in order: each may use the axes, the knobs, num_sms and the bindings before it
  std::vector<Expression> grid;    // 1 to 3 expressions over axes, knobs, num_sms and the let bindings
  std::vector<Expression> block;
  std::optional<Expression> shared_bytes;
  std::string kernel;              // the extern "C" __global__ function; empty: the module's only one
  std::vector<TensorMapRule> tensor_maps;
};

// The names a launch's expressions are evaluated over: `names` (the workload's axes and the knobs), `num_sms` (the
// device's SM count; kDefaultNumSms where none is known) and then every "let" binding in order. Throws std::runtime_error
// when a binding does not evaluate (the message names the binding).
Bindings launch_bindings(const LaunchGeometry& launch, Bindings names, int num_sms = kDefaultNumSms);

enum class TemplateForm { full, kernel };

struct Template {
  std::string name;
  std::filesystem::path source;   // absolute
  std::string device;             // "cpu" or "cuda"
  TemplateForm form = TemplateForm::full;
  std::vector<Knob> knobs;
  std::vector<Expression> constraints;
  std::optional<LaunchGeometry> launch;
};

struct Roofline {
  std::optional<Expression> flops;  // absent: zero
  std::optional<Expression> bytes;  // absent: every input and output read or written once
  std::string math = "fp32";        // which peak rate the flops run at
};

struct Definition {
  std::string name;
  std::string op_type;
  std::string description;
  std::string hf_id;
  std::vector<Axis> axes;
  std::vector<Expression> constraints;
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
  std::string reference;  // PyTorch source defining run(...)
  std::optional<std::string> custom_inputs_entrypoint;
  // KernelArc extensions
  Roofline roofline;
  std::map<std::string, std::filesystem::path> native_reference;  // device kind -> absolute path
  std::vector<Template> templates;
  std::vector<std::string> forbid;
  std::vector<std::string> cflags;  // compile flags every CPU candidate of this task gets
};

struct Tolerance {
  double max_atol = 1e-2;
  double max_rtol = 1e-2;
  double required_matched_ratio = 0.99;
  std::optional<double> max_error_cap;
  bool allow_negative_inf = false;
};

enum class InputKind { random, scalar, safetensors, custom };

struct InputSource {
  InputKind kind = InputKind::random;
  double value = 0;                   // scalar
  std::filesystem::path path;         // safetensors, absolute
  std::string tensor_key;             // safetensors
};

struct Workload {
  std::string uuid;
  std::map<std::string, std::int64_t> axes;     // var axes only, as given
  std::map<std::string, InputSource> inputs;    // by input name; missing means random
  Tolerance tolerance;
  bool held_out = false;
};

struct Task {
  std::filesystem::path directory;
  Definition definition;
  std::vector<Workload> workloads;  // visible first, then held-out
  std::string definition_json;      // the file as read
  std::string content_hash;         // of definition.json, the workload files and the extensions file
  std::filesystem::path extensions_file;  // the "kernelarc" section given in a file of its own; empty: none
};

// Loads and validates a whole problem directory; throws TaskError, never returns half a task. `extensions` names a JSON
// file read as the definition's "kernelarc" section (templates, roofline, native references, held-out workloads) for a
// problem given only in SOL-ExecBench's format.
Task load_task(const std::filesystem::path& directory, const std::optional<std::filesystem::path>& extensions = std::nullopt);

// One workload with every axis bound and every tensor's shape known.
struct ResolvedWorkload {
  Bindings axes;
  std::vector<std::vector<std::int64_t>> input_shapes;   // empty vector for scalars and 0-d tensors
  std::vector<std::vector<std::int64_t>> output_shapes;
};

// Binds const, var and expr axes, checks the constraints; throws TaskError naming the workload.
ResolvedWorkload resolve_workload(const Task& task, const Workload& workload);

std::int64_t element_count(const std::vector<std::int64_t>& shape);

}  // namespace kernelarc::task
