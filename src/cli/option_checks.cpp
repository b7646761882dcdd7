#include "cli/option_checks.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <stdexcept>

#include "cli/options.h"
#include "common/closest_name.h"

namespace kernelarc::cli {

CLI::Validator whole_number(std::int64_t minimum, std::int64_t maximum) {
  return CLI::Validator(
      [minimum, maximum](std::string& text) -> std::string {
        std::int64_t value = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (error == std::errc::result_out_of_range) return fmt::format("must be at most {} (got {})", maximum, text);
        if (error != std::errc() || end != text.data() + text.size()) return fmt::format("must be a whole number (got \"{}\")", text);
        if (value < minimum) return fmt::format("must be at least {} (got {})", minimum, text);
        if (value > maximum) return fmt::format("must be at most {} (got {})", maximum, text);
        return "";
      },
      maximum >= std::numeric_limits<int>::max() ? fmt::format(">={}", minimum) : fmt::format("{}..{}", minimum, maximum));
}

std::chrono::seconds parse_duration(const std::string& text, const std::string& option) {
  long long value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  const std::string unit(end, text.data() + text.size());
  const long long scale = unit.empty() || unit == "s" ? 1 : unit == "m" ? 60 : unit == "h" ? 3600 : -1;
  if (error != std::errc() || end == text.data() || value < 0 || scale < 0)
    throw std::runtime_error(fmt::format("{} expects a duration such as 600, 90s, 15m or 2h, got \"{}\"", option, text));
  return std::chrono::seconds(value * scale);
}

CLI::Validator number_at_least(double minimum) {
  return CLI::Validator(
      [minimum](std::string& text) -> std::string {
        double value = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (error != std::errc() || end != text.data() + text.size()) return fmt::format("must be a number (got \"{}\")", text);
        if (value < minimum) return fmt::format("must be at least {} (got {})", minimum, text);
        return "";
      },
      fmt::format(">={}", minimum));
}

CLI::Validator one_of(std::vector<std::string> choices) {
  const std::string listed = fmt::format("{}", fmt::join(choices, ", "));
  return CLI::Validator(
      [choices, listed](std::string& text) -> std::string {
        if (std::find(choices.begin(), choices.end(), text) != choices.end()) return "";
        return fmt::format("must be one of {} (got \"{}\"){}", listed, text, common::did_you_mean(text, choices));
      },
      fmt::format("{{{}}}", fmt::join(choices, ",")));
}

CLI::Validator device_name() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (parse_device(text)) return "";
        return fmt::format("must be {}, N the GPU's number (got \"{}\")", judge::known_device_names(), text);
      },
      "cpu|cuda:N");
}

CLI::Validator existing_file() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        std::error_code error;
        if (std::filesystem::is_regular_file(text, error)) return "";
        if (std::filesystem::exists(text, error)) return fmt::format("must be a file ({} is not one)", text);
        return fmt::format("must be an existing file ({} does not exist)", text);
      },
      "FILE");
}

void name_options_in_environment(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    if (option->get_positional() || !option->get_envname().empty() || option->get_lnames().empty()) continue;
    const std::string& name = option->get_lnames().front();
    if (name == "help" || name == "version" || name == "help-all" || name == "config") continue;
    std::string variable = "KERNELARC_";
    for (char c : name) variable += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    option->envname(variable);
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) name_options_in_environment(*sub);
}

}  // namespace kernelarc::cli
