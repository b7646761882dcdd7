// The worker protocol's requests as types (docs/WORKER_PROTOCOL.md): the judge writes every request from one of these
// and the C++ workers read every request into one, so each field's name, type and check is written once. The oracle
// (python/kernelarc_oracle.py) reads the same JSON.
//
// Reading a request checks what does not depend on the worker's state (counts are non-negative integers, dtypes are
// known, shapes cannot overflow a byte count); the worker checks offsets against the buffer it mapped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "judge/call_tensors.h"

namespace kernelarc::judge::message {

struct Hello {};  // reply: pid, protocol, device (the oracle adds torch and role)
struct Noop {};

struct Sandbox {
  nlohmann::json policy;               // sandbox_policy_json
  std::optional<std::string> library;  // the oracle's candidate role: libkernelarc_sandbox.so, which raises the walls
};

struct Map {
  std::string file;
  std::size_t bytes = 0;
};

// One of: a native library; a kernel-only candidate's cubin (and the kernel to launch, "" for its only one); the
// oracle as reference (python, the reference's file); the oracle as a solution's worker (solution, as the oracle reads it).
struct Load {
  std::optional<std::string> library, cubin, kernel, python;
  std::optional<nlohmann::json> solution;
};

struct TensorBinding {
  std::string dtype;
  std::vector<std::int64_t> shape;
  bool scalar = false;
  std::optional<std::string> name;  // an oracle candidate's outputs: a solution may return them as a dict by name
};

// A TMA tensor map the worker encodes from an input's device address (task::TensorMapRule, checked by launch_request).
struct TensorMap {
  std::int32_t input = 0;             // the input's index
  unsigned element_bytes = 0;         // 1, 2, 4 or 8: the map copies bytes, so only the size matters
  std::int64_t columns = 0, rows = 0; // the input seen as rows x its last axis
  unsigned box_columns = 0, box_rows = 0;
  unsigned swizzle_bytes = 0;         // 0, 32, 64 or 128
};

struct Launch {  // a kernel-only candidate's geometry, evaluated by launch_request
  std::vector<unsigned> grid, block;
  unsigned shared_bytes = 0;
  std::vector<long long> arguments;  // every var axis, in the definition's order
  std::optional<std::string> kernel; // a composed candidate's: the module's kernel this workload launches
  std::vector<TensorMap> tensor_maps;  // after the arguments, in order
};

struct Bind {
  std::vector<TensorBinding> inputs, outputs;
  std::optional<Launch> launch;
};

enum class Direction { upload, download };  // "upload": the shared file to the device copy; "download": back
struct Transfer {
  Direction direction = Direction::upload;
  std::vector<BufferRange> ranges;
};

struct Copy {  // within the device copy (the CPU worker: the shared file)
  std::vector<BufferCopy> ranges;
};

// A screening on a GPU (judge/cuda/device_comparison.h): the worker keeps a workload's inputs and reference outputs in
// device memory of their own, under a key the judge chooses, from one candidate to the next.
struct Keep {  // the mapped buffer's ranges, one after another, kept under `key`
  std::string key;
  std::vector<BufferRange> ranges;
};
struct Restore {  // from the kept bytes (`from`) into the device copy of the buffer (`to`); reply "missing" if not kept
  std::string key;
  std::vector<BufferCopy> copies;
};
struct Forget {  // the kept bytes of `key` dropped
  std::string key;
};
struct LoadComparison {  // the comparison kernel's cubin, as hex: the sandboxed worker reads no file of the judge's
  std::string cubin_hex;
};
struct OutputComparison {
  std::size_t at = 0;         // the output in the device copy of the buffer
  std::size_t reference = 0;  // its reference in the kept bytes
  std::size_t elements = 0;
  std::string dtype;
  double atol = 0, rtol = 0;
  bool allow_negative_inf = false;
  std::optional<std::uint8_t> poison;  // a non-finite poison the outputs held before the call: left unwritten
};
struct CompareOutputs {  // reply: "findings", one per output
  std::string key;
  std::vector<OutputComparison> outputs;
};

struct Flush {
  std::size_t bytes = 0;  // 0 on a GPU: twice the L2
};

struct Call {
  std::vector<std::size_t> inputs, outputs;  // one offset per tensor
  std::optional<std::uint8_t> poison;        // written over the outputs by the worker first (on a GPU)
  bool null_entry = false;                   // the empty entry point: the judge's own cost
};

struct CustomInput {
  std::string name;
  std::size_t index = 0, offset = 0;
};
struct CustomInputs {  // the reference oracle: the definition's custom_inputs_entrypoint writes these inputs
  std::string entry;
  nlohmann::json axes_and_scalars;
  std::uint64_t seed = 0;
  std::vector<CustomInput> tensors;
};

struct TimeBaseline {  // the reference oracle: torch eager and torch.compile timed on a call's tensors
  Call call;
  int warmup = 0, iterations = 0;
  std::size_t flush_bytes = 0;
};

// Each request as JSON with its "op", and each read back from JSON (throws std::runtime_error or json's exceptions on
// what does not match its type).
void to_json(nlohmann::json& out, const Hello&);
void to_json(nlohmann::json& out, const Noop&);
void to_json(nlohmann::json& out, const Sandbox& request);
void to_json(nlohmann::json& out, const Map& request);
void to_json(nlohmann::json& out, const Load& request);
void to_json(nlohmann::json& out, const TensorBinding& tensor);
void to_json(nlohmann::json& out, const TensorMap& map);
void to_json(nlohmann::json& out, const Launch& launch);
void to_json(nlohmann::json& out, const Bind& request);
void to_json(nlohmann::json& out, const Transfer& request);
void to_json(nlohmann::json& out, const Copy& request);
void to_json(nlohmann::json& out, const Keep& request);
void to_json(nlohmann::json& out, const Restore& request);
void to_json(nlohmann::json& out, const Forget& request);
void to_json(nlohmann::json& out, const LoadComparison& request);
void to_json(nlohmann::json& out, const CompareOutputs& request);
void to_json(nlohmann::json& out, const Flush& request);
void to_json(nlohmann::json& out, const Call& request);
void to_json(nlohmann::json& out, const CustomInputs& request);
void to_json(nlohmann::json& out, const TimeBaseline& request);

void from_json(const nlohmann::json& in, Sandbox& request);
void from_json(const nlohmann::json& in, Map& request);
void from_json(const nlohmann::json& in, Load& request);
void from_json(const nlohmann::json& in, TensorBinding& tensor);
void from_json(const nlohmann::json& in, TensorMap& map);
void from_json(const nlohmann::json& in, Launch& launch);
void from_json(const nlohmann::json& in, Bind& request);
void from_json(const nlohmann::json& in, Transfer& request);
void from_json(const nlohmann::json& in, Copy& request);
void from_json(const nlohmann::json& in, Keep& request);
void from_json(const nlohmann::json& in, Restore& request);
void from_json(const nlohmann::json& in, Forget& request);
void from_json(const nlohmann::json& in, LoadComparison& request);
void from_json(const nlohmann::json& in, CompareOutputs& request);
void from_json(const nlohmann::json& in, Flush& request);
void from_json(const nlohmann::json& in, Call& request);

// A bound tensor list as the worker lays it out (the dtype parsed, the byte count checked not to overflow).
std::vector<TensorLayout> layouts(const std::vector<TensorBinding>& tensors);

}  // namespace kernelarc::judge::message
