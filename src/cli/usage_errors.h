// Usage errors in plain words, each with exit code 2: an unknown command or option named with the closest known one,
// CLI11's parse errors reworded, and a pointer to `kernelarc help COMMAND`.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

namespace kernelarc::cli {

// Before CLI11 parses: an unknown command or long option is said (with "did you mean") on stderr; returns the exit
// code then, nullopt when every name is known.
std::optional<int> check_names(const CLI::App& app, const std::vector<std::string>& arguments);

// Prints a parse error of CLI11 in plain words on stderr, prefixed with the command it concerns; returns 2.
int print_usage_error(const CLI::App& app, const CLI::ParseError& error);

// The names of `app`'s commands that a user types (not the internal worker), in the order they were added.
std::vector<std::string> command_names(const CLI::App& app);

// The long option names (--budget) of `command`, --help and the application's own (--config) included.
std::vector<std::string> long_option_names(const CLI::App& command);

}  // namespace kernelarc::cli
