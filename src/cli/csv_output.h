// CSV for the commands whose --json is a table (--csv beside --json): RFC 4180 quoting, one header line, one row per
// object; a list cell is its items joined by ';', an object cell its JSON text, null an empty cell.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kernelarc::cli {

std::string csv_cell(const nlohmann::json& value);

// `rows` is an array of objects; a column an object lacks is an empty cell.
std::string csv_table(const nlohmann::json& rows, const std::vector<std::string>& columns);

}  // namespace kernelarc::cli
