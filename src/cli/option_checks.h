// Checks of option values whose messages a newcomer can read: "--budget must be at least 1 (got 0)", not CLI11's
// "Value 0 not in range 0.000000 to 1797...". CLI11 prefixes the option's name and a colon; print_usage_error
// (usage_errors.h) drops the colon.
#pragma once

#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace kernelarc::cli {

// A whole number in [minimum, maximum].
CLI::Validator whole_number(std::int64_t minimum, std::int64_t maximum = std::numeric_limits<int>::max());

// A number (a fraction allowed) at least `minimum`.
CLI::Validator number_at_least(double minimum);

// One of `choices`, with the closest one suggested.
CLI::Validator one_of(std::vector<std::string> choices);

// "cpu", "cuda" or "cuda:N".
CLI::Validator device_name();

// An existing file.
CLI::Validator existing_file();

// "600", "90s", "15m", "2h" -> seconds; throws a message naming `option` for anything else.
std::chrono::seconds parse_duration(const std::string& text, const std::string& option);

// Every option of `app` and its subcommands that has no environment variable gets KERNELARC_<NAME> (--time-limit:
// KERNELARC_TIME_LIMIT), so every flag can be set from the environment; --help, --version and positionals excepted.
void name_options_in_environment(CLI::App& app);

}  // namespace kernelarc::cli
