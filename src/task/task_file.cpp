#include "task/task_file.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

namespace kernelarc::task::task_file {

std::string type_name(const json& value) {
  if (value.is_number_integer()) return "an integer";
  if (value.is_number()) return "a number";
  return std::string("a") + (value.is_object() || value.is_array() ? "n " : " ") + value.type_name();
}

std::string read_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw TaskError(file, "", "cannot be read (missing or not permitted)");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

json parse_json(const std::string& text, const fs::path& file, const std::string& where) {
  try {
    return json::parse(text);
  } catch (const json::exception& error) {  // a parse error, or a number too large for a double (out_of_range)
    throw TaskError(file, where, fmt::format("expected valid JSON: {}", error.what()));
  }
}

bool is_identifier(const std::string& name) {
  if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

fs::path inside_directory(const Node& node, const fs::path& directory) {
  const std::string relative = node.string();
  const fs::path resolved = fs::weakly_canonical(directory / relative);
  const fs::path root = fs::weakly_canonical(directory);
  auto [root_end, _] = std::mismatch(root.begin(), root.end(), resolved.begin(), resolved.end());
  if (root_end != root.end()) node.fail(fmt::format("expected a path inside the task directory, got '{}'", relative));
  if (!fs::is_regular_file(resolved)) node.fail(fmt::format("file '{}' does not exist", relative));
  return resolved;
}

}  // namespace kernelarc::task::task_file
