// Reading a task's JSON files strictly: every value carries its file and field path, so each complaint says where it
// is, and a field a part may not have is refused. load_task (task.cpp) puts the parsers of the parts together.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "common/closest_name.h"
#include "task/task.h"

namespace kernelarc::task::task_file {

// ordered: inputs and outputs are ordered maps (the reference's and the ABI's argument order).
using json = nlohmann::ordered_json;
namespace fs = std::filesystem;

std::string type_name(const json& value);

// A JSON value with its file and field path, so every complaint can say where it is.
class Node {
 public:
  Node(const json& value, const fs::path& file, std::string path)
      : value_(value), file_(file), path_(std::move(path)) {}

  [[noreturn]] void fail(const std::string& problem) const { throw TaskError(file_, path_, problem); }

  const json& raw() const { return value_; }

  // A field this object may not have is a typo more often than not: "helt_out" silently ignored made a held-out
  // workload visible. The message names the closest known field.
  void allow_only(const std::vector<std::string>& known) const {
    if (!value_.is_object()) return;
    for (const auto& item : value_.items())
      if (std::find(known.begin(), known.end(), item.key()) == known.end())
        Node(item.value(), file_, child_path(item.key()))
            .fail(fmt::format("unknown field{}; the fields here are {}", common::did_you_mean(item.key(), known), fmt::join(known, ", ")));
  }
  const std::string& path() const { return path_; }
  const fs::path& file() const { return file_; }

  bool has(const std::string& key) const { return value_.contains(key) && !value_.at(key).is_null(); }

  Node at(const std::string& key) const {
    if (!value_.is_object()) fail(fmt::format("expected an object, got {}", type_name(value_)));
    if (!value_.contains(key)) Node(value_, file_, child_path(key)).fail("is required but missing");
    return Node(value_.at(key), file_, child_path(key));
  }
  std::optional<Node> find(const std::string& key) const {
    if (!has(key)) return std::nullopt;
    return Node(value_.at(key), file_, child_path(key));
  }
  Node index(std::size_t i) const { return Node(value_.at(i), file_, fmt::format("{}[{}]", path_, i)); }

  const json& object() const {
    if (!value_.is_object()) fail(fmt::format("expected an object, got {}", type_name(value_)));
    return value_;
  }
  std::size_t array_size() const {
    if (!value_.is_array()) fail(fmt::format("expected a list, got {}", type_name(value_)));
    return value_.size();
  }
  std::string string() const {
    if (!value_.is_string()) fail(fmt::format("expected a string, got {}", type_name(value_)));
    return value_.get<std::string>();
  }
  std::string string_or(const std::string& key, std::string fallback) const {
    return has(key) ? at(key).string() : fallback;
  }
  double number() const {
    if (!value_.is_number()) fail(fmt::format("expected a number, got {}", type_name(value_)));
    return value_.get<double>();
  }
  std::int64_t integer() const {
    if (!value_.is_number_integer()) fail(fmt::format("expected an integer, got {}", type_name(value_)));
    return value_.get<std::int64_t>();
  }
  bool boolean() const {
    if (!value_.is_boolean()) fail(fmt::format("expected true or false, got {}", type_name(value_)));
    return value_.get<bool>();
  }
  Expression expression() const {
    const std::string text = value_.is_number_integer() ? std::to_string(value_.get<std::int64_t>()) : string();
    try {
      return Expression::parse(text);
    } catch (const ExpressionError& error) {
      fail(fmt::format("expected an expression: {}", error.what()));
    }
  }
  std::vector<std::string> string_list() const {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < array_size(); ++i) out.push_back(index(i).string());
    return out;
  }

 private:
  std::string child_path(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

  const json& value_;
  const fs::path& file_;
  std::string path_;
};

std::string read_file(const fs::path& file);
json parse_json(const std::string& text, const fs::path& file, const std::string& where);
bool is_identifier(const std::string& name);
fs::path inside_directory(const Node& node, const fs::path& directory);

// definition_parser.cpp: definition.json and its "kernelarc" section (also read from a file of its own).
Definition parse_definition(const Node& root, const fs::path& directory, std::vector<std::string>& held_out_uuids,
                            std::optional<fs::path>& held_out_file);
void parse_extensions(const Node& node, const fs::path& directory, Definition& definition,
                      std::vector<std::string>& held_out_uuids, std::optional<fs::path>& held_out_file);
// The roofline is evaluated over the axes alone: an unknown name must fail at load time, not mid-run.
void check_roofline_axes(const Definition& definition, const Node& extensions);

// template_parser.cpp: one of the "templates".
Template parse_template(const Node& node, const fs::path& directory, const std::vector<Axis>& axes,
                        const std::vector<TensorSpec>& inputs);

// launch_rule.cpp: a launch rule's "let" bindings, then grid, block and shared_bytes; every name an expression uses must
// be an axis, a knob, num_sms or a binding before it.
LaunchGeometry parse_launch(const Node& launch, const std::vector<Axis>& axes, const std::vector<Knob>& knobs,
                            const std::vector<TensorSpec>& inputs);

// workload_parser.cpp: a JSON-lines file of workloads.
std::vector<Workload> parse_workload_file(const fs::path& file, const Definition& definition,
                                          const fs::path& directory, const std::string& text);

}  // namespace kernelarc::task::task_file
