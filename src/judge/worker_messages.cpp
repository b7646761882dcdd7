#include "judge/worker_messages.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "task/dtype.h"

namespace kernelarc::judge::message {

using nlohmann::json;

namespace {

// A byte count or offset: a non-negative integer, never a float (converting 1e54 to size_t is undefined behaviour).
std::size_t count_at(const json& value) {
  if (!value.is_number_unsigned() && !(value.is_number_integer() && value.get<std::int64_t>() >= 0))
    throw std::runtime_error(fmt::format("expected a non-negative integer, got {}", value.dump()));
  return value.get<std::size_t>();
}

std::vector<std::size_t> counts_at(const json& list) {
  if (!list.is_array()) throw std::runtime_error(fmt::format("expected a list of offsets, got {}", list.dump()));
  std::vector<std::size_t> out;
  out.reserve(list.size());
  for (const auto& value : list) out.push_back(count_at(value));
  return out;
}

std::optional<std::string> optional_string(const json& in, const char* name) {
  const auto found = in.find(name);
  if (found == in.end() || found->is_null()) return std::nullopt;
  return found->get<std::string>();
}

}  // namespace

void to_json(json& out, const Hello&) { out = {{"op", "hello"}}; }
void to_json(json& out, const Noop&) { out = {{"op", "noop"}}; }

void to_json(json& out, const Sandbox& request) {
  out = {{"op", "sandbox"}, {"policy", request.policy}};
  if (request.library) out["library"] = *request.library;
}

void to_json(json& out, const Map& request) { out = {{"op", "map"}, {"file", request.file}, {"bytes", request.bytes}}; }

void to_json(json& out, const Load& request) {
  out = {{"op", "load"}};
  if (request.library) out["library"] = *request.library;
  if (request.cubin) out["cubin"] = *request.cubin;
  if (request.kernel) out["kernel"] = *request.kernel;
  if (request.python) out["python"] = *request.python;
  if (request.solution) out["solution"] = *request.solution;
}

void to_json(json& out, const TensorBinding& tensor) {
  out = {{"dtype", tensor.dtype}, {"shape", tensor.shape}, {"scalar", tensor.scalar}};
  if (tensor.name) out["name"] = *tensor.name;
}

void to_json(json& out, const TensorMap& map) {
  out = {{"input", map.input},     {"element_bytes", map.element_bytes}, {"columns", map.columns},
         {"rows", map.rows},       {"box", {map.box_columns, map.box_rows}}, {"swizzle_bytes", map.swizzle_bytes}};
}

void to_json(json& out, const Launch& launch) {
  out = {{"grid", launch.grid}, {"block", launch.block}, {"shared_bytes", launch.shared_bytes}, {"arguments", launch.arguments}};
  if (launch.kernel) out["kernel"] = *launch.kernel;
  if (!launch.tensor_maps.empty()) out["tensor_maps"] = launch.tensor_maps;
}

void to_json(json& out, const Bind& request) {
  out = {{"op", "bind"}, {"inputs", request.inputs}, {"outputs", request.outputs}};
  if (request.launch) out["launch"] = *request.launch;
}

void to_json(json& out, const Transfer& request) {
  json ranges = json::array();
  for (const auto& range : request.ranges) ranges.push_back({range.offset, range.bytes});
  out = {{"op", request.direction == Direction::upload ? "upload" : "download"}, {"ranges", std::move(ranges)}};
}

void to_json(json& out, const Copy& request) {
  json ranges = json::array();
  for (const auto& copy : request.ranges) ranges.push_back({copy.from, copy.to, copy.bytes});
  out = {{"op", "copy"}, {"ranges", std::move(ranges)}};
}

void to_json(json& out, const Keep& request) {
  json ranges = json::array();
  for (const auto& range : request.ranges) ranges.push_back({range.offset, range.bytes});
  out = {{"op", "keep"}, {"key", request.key}, {"ranges", std::move(ranges)}};
}

void to_json(json& out, const Restore& request) {
  json copies = json::array();
  for (const auto& copy : request.copies) copies.push_back({copy.from, copy.to, copy.bytes});
  out = {{"op", "restore"}, {"key", request.key}, {"copies", std::move(copies)}};
}

void to_json(json& out, const Forget& request) { out = {{"op", "forget"}, {"key", request.key}}; }

void to_json(json& out, const LoadComparison& request) { out = {{"op", "load_comparison"}, {"cubin_hex", request.cubin_hex}}; }

void to_json(json& out, const CompareOutputs& request) {
  json outputs = json::array();
  for (const auto& output : request.outputs) {
    json one = {{"at", output.at},     {"reference", output.reference}, {"elements", output.elements},
                {"dtype", output.dtype}, {"atol", output.atol},          {"rtol", output.rtol},
                {"allow_negative_inf", output.allow_negative_inf}};
    if (output.poison) one["poison"] = static_cast<int>(*output.poison);
    outputs.push_back(std::move(one));
  }
  out = {{"op", "compare"}, {"key", request.key}, {"outputs", std::move(outputs)}};
}

void to_json(json& out, const Flush& request) { out = {{"op", "flush"}, {"bytes", request.bytes}}; }

void to_json(json& out, const Call& request) {
  out = {{"op", "call"}, {"inputs", request.inputs}, {"outputs", request.outputs}};
  if (request.poison) out["poison"] = static_cast<int>(*request.poison);
  if (request.null_entry) out["null"] = true;
}

void to_json(json& out, const CustomInputs& request) {
  json tensors = json::array();
  for (const auto& tensor : request.tensors) tensors.push_back({{"name", tensor.name}, {"index", tensor.index}, {"offset", tensor.offset}});
  out = {{"op", "inputs"}, {"entry", request.entry}, {"axes_and_scalars", request.axes_and_scalars}, {"seed", request.seed},
         {"tensors", std::move(tensors)}};
}

void to_json(json& out, const TimeBaseline& request) {
  out = request.call;
  out.update({{"op", "time"}, {"warmup", request.warmup}, {"iterations", request.iterations}, {"flush_bytes", request.flush_bytes}});
}

void from_json(const json& in, Sandbox& request) {
  request.policy = in.at("policy");
  request.library = optional_string(in, "library");
}

void from_json(const json& in, Map& request) {
  request.file = in.at("file").get<std::string>();
  request.bytes = count_at(in.at("bytes"));
}

void from_json(const json& in, Load& request) {
  request.library = optional_string(in, "library");
  request.cubin = optional_string(in, "cubin");
  request.kernel = optional_string(in, "kernel");
  request.python = optional_string(in, "python");
  if (const auto solution = in.find("solution"); solution != in.end()) request.solution = *solution;
  if (!request.library && !request.cubin && !request.python && !request.solution)
    throw std::runtime_error("load names nothing to load (library, cubin, python or solution)");
}

void from_json(const json& in, TensorBinding& tensor) {
  tensor.dtype = in.at("dtype").get<std::string>();
  tensor.shape.clear();
  for (const auto& extent : in.at("shape")) tensor.shape.push_back(static_cast<std::int64_t>(std::min<std::size_t>(count_at(extent), INT64_MAX)));
  tensor.scalar = in.value("scalar", false);
  tensor.name = optional_string(in, "name");
}

void from_json(const json& in, TensorMap& map) {
  map.input = in.at("input").get<std::int32_t>();
  map.element_bytes = in.at("element_bytes").get<unsigned>();
  map.columns = in.at("columns").get<std::int64_t>();
  map.rows = in.at("rows").get<std::int64_t>();
  const auto box = in.at("box").get<std::vector<unsigned>>();
  if (box.size() != 2) throw std::runtime_error("a tensor map's box has two sizes");
  map.box_columns = box[0], map.box_rows = box[1];
  map.swizzle_bytes = in.value("swizzle_bytes", 0u);
}

void from_json(const json& in, Launch& launch) {
  launch.grid = in.at("grid").get<std::vector<unsigned>>();
  launch.block = in.at("block").get<std::vector<unsigned>>();
  launch.shared_bytes = in.value("shared_bytes", 0u);
  launch.arguments = in.at("arguments").get<std::vector<long long>>();
  launch.kernel.reset();
  if (const auto kernel = in.find("kernel"); kernel != in.end() && kernel->is_string()) launch.kernel = kernel->get<std::string>();
  launch.tensor_maps.clear();
  if (const auto maps = in.find("tensor_maps"); maps != in.end()) launch.tensor_maps = maps->get<std::vector<TensorMap>>();
}

void from_json(const json& in, Bind& request) {
  request.inputs = in.at("inputs").get<std::vector<TensorBinding>>();
  request.outputs = in.at("outputs").get<std::vector<TensorBinding>>();
  request.launch.reset();
  if (const auto launch = in.find("launch"); launch != in.end() && !launch->is_null()) request.launch = launch->get<Launch>();
}

void from_json(const json& in, Transfer& request) {
  const auto op = in.at("op").get<std::string>();
  if (op != "upload" && op != "download") throw std::runtime_error(fmt::format("{} is not a transfer", op));
  request.direction = op == "upload" ? Direction::upload : Direction::download;
  request.ranges.clear();
  for (const auto& range : in.at("ranges")) request.ranges.push_back({count_at(range.at(0)), count_at(range.at(1))});
}

void from_json(const json& in, Copy& request) {
  request.ranges.clear();
  for (const auto& range : in.at("ranges")) request.ranges.push_back({count_at(range.at(0)), count_at(range.at(1)), count_at(range.at(2))});
}

void from_json(const json& in, Keep& request) {
  request.key = in.at("key").get<std::string>();
  request.ranges.clear();
  for (const auto& range : in.at("ranges")) request.ranges.push_back({count_at(range.at(0)), count_at(range.at(1))});
}

void from_json(const json& in, Restore& request) {
  request.key = in.at("key").get<std::string>();
  request.copies.clear();
  for (const auto& copy : in.at("copies")) request.copies.push_back({count_at(copy.at(0)), count_at(copy.at(1)), count_at(copy.at(2))});
}

void from_json(const json& in, Forget& request) { request.key = in.at("key").get<std::string>(); }

void from_json(const json& in, LoadComparison& request) { request.cubin_hex = in.at("cubin_hex").get<std::string>(); }

void from_json(const json& in, CompareOutputs& request) {
  request.key = in.at("key").get<std::string>();
  request.outputs.clear();
  for (const auto& one : in.at("outputs")) {
    OutputComparison output;
    output.at = count_at(one.at("at"));
    output.reference = count_at(one.at("reference"));
    output.elements = count_at(one.at("elements"));
    output.dtype = one.at("dtype").get<std::string>();
    output.atol = one.at("atol").get<double>();
    output.rtol = one.at("rtol").get<double>();
    output.allow_negative_inf = one.value("allow_negative_inf", false);
    if (const auto poison = one.find("poison"); poison != one.end()) {
      const auto value = count_at(*poison);
      if (value > 255) throw std::runtime_error(fmt::format("poison {} is not a byte", value));
      output.poison = static_cast<std::uint8_t>(value);
    }
    request.outputs.push_back(std::move(output));
  }
}

void from_json(const json& in, Flush& request) { request.bytes = in.contains("bytes") ? count_at(in.at("bytes")) : 0; }

void from_json(const json& in, Call& request) {
  request.inputs = counts_at(in.at("inputs"));
  request.outputs = counts_at(in.at("outputs"));
  request.poison.reset();
  if (const auto poison = in.find("poison"); poison != in.end()) {
    const auto value = count_at(*poison);
    if (value > 255) throw std::runtime_error(fmt::format("poison {} is not a byte", value));
    request.poison = static_cast<std::uint8_t>(value);
  }
  request.null_entry = in.value("null", false);
}

std::vector<TensorLayout> layouts(const std::vector<TensorBinding>& tensors) {
  constexpr std::size_t kMostElements = std::size_t{1} << 48;  // beyond any buffer: the byte count cannot overflow
  std::vector<TensorLayout> out;
  for (const auto& tensor : tensors) {
    const auto dtype = task::parse_dtype(tensor.dtype);
    if (!dtype) throw std::runtime_error(fmt::format("unknown dtype {} in bind", tensor.dtype));
    std::size_t elements = 1;
    for (const auto extent : tensor.shape)
      if (__builtin_mul_overflow(elements, static_cast<std::size_t>(extent), &elements) || elements > kMostElements)
        throw std::runtime_error(fmt::format("shape {} in bind is too large", json(tensor.shape).dump()));
    out.push_back({task::to_dlpack(*dtype), tensor.shape});
  }
  return out;
}

}  // namespace kernelarc::judge::message
