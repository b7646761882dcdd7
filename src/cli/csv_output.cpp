#include "cli/csv_output.h"

#include <fmt/format.h>

namespace kernelarc::cli {

using nlohmann::json;

namespace {

std::string plain(const json& value) {
  if (value.is_null()) return "";
  if (value.is_string()) return value.get<std::string>();
  if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
  if (value.is_number_float()) return fmt::format("{}", value.get<double>());  // shortest round trip
  if (value.is_array()) {
    std::string out;
    for (const auto& item : value) out += (out.empty() ? "" : ";") + plain(item);
    return out;
  }
  return value.dump();
}

}  // namespace

std::string csv_cell(const json& value) {
  const std::string text = plain(value);
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string csv_table(const json& rows, const std::vector<std::string>& columns) {
  std::string out;
  for (std::size_t i = 0; i < columns.size(); ++i) out += (i ? "," : "") + csv_cell(columns[i]);
  out += "\n";
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < columns.size(); ++i) out += (i ? "," : "") + csv_cell(row.is_object() ? row.value(columns[i], json()) : json());
    out += "\n";
  }
  return out;
}

}  // namespace kernelarc::cli
