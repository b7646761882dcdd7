#include "cli/usage_errors.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/options.h"
#include "common/closest_name.h"

namespace kernelarc::cli {

std::vector<std::string> command_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App* s) { return !s->get_name().empty() && s->get_name() != "worker"; }))
    names.push_back(sub->get_name());
  return names;
}

std::vector<std::string> long_option_names(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::App* app = &command; app; app = app->get_parent())
    for (const CLI::Option* option : app->get_options())
      for (const auto& name : option->get_lnames()) names.push_back("--" + name);
  return names;
}

namespace {

std::string prefix(const CLI::App* command) {
  return command && command->get_parent() ? fmt::format("kernelarc {}: ", command->get_name()) : "kernelarc: ";
}

int unknown_option(const CLI::App& command, const std::string& typed) {
  const std::string name = typed.substr(0, typed.find('='));
  if (!command.get_parent()) {
    // Before the command: the user may have meant one of a command's options.
    std::vector<std::string> known = long_option_names(command);
    for (const auto& sub : command_names(command))
      for (const auto& option : long_option_names(*command.get_subcommand(sub))) known.push_back(option);
    fmt::print(stderr, "kernelarc: unknown option {}{}; a command's options go after it (kernelarc COMMAND {}...)\n", name,
               common::did_you_mean(name, known), common::closest_name(name, known).value_or("--option"));
    fmt::print(stderr, "  kernelarc help lists the commands\n");
    return kExitUsage;
  }
  fmt::print(stderr, "{}unknown option {}{}\n", prefix(&command), name, common::did_you_mean(name, long_option_names(command)));
  fmt::print(stderr, "  {} lists the options\n", command.get_parent() ? "kernelarc help " + command.get_name() : "kernelarc help");
  return kExitUsage;
}

}  // namespace

std::optional<int> check_names(const CLI::App& app, const std::vector<std::string>& arguments) {
  const CLI::App* command = &app;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const std::string& argument = arguments[i];
    if (argument == "--") break;
    if (argument.rfind("--", 0) == 0) {
      const std::string name = argument.substr(2, argument.find('=') - 2);
      bool known = false;
      for (const CLI::App* scope = command; scope && !known; scope = scope->get_parent())
        known = scope->get_option_no_throw("--" + name) != nullptr;
      if (!known) return unknown_option(*command, argument);
      // The value of an option of the application itself (--config FILE) is not a command.
      if (command == &app && argument.find('=') == std::string::npos && app.get_option_no_throw("--" + name)->get_expected_min() > 0) ++i;
      continue;
    }
    if (command != &app || argument.rfind('-', 0) == 0) continue;
    const auto names = command_names(app);
    if (std::find(names.begin(), names.end(), argument) == names.end() && argument != "worker") {
      fmt::print(stderr, "kernelarc: unknown command \"{}\"{}\n  the commands: {} (kernelarc help COMMAND says more)\n", argument,
                 common::did_you_mean(argument, names), fmt::join(names, ", "));
      return kExitUsage;
    }
    command = app.get_subcommand(argument);
  }
  return std::nullopt;
}

int print_usage_error(const CLI::App& app, const CLI::ParseError& error) {
  const auto chosen = app.get_subcommands();
  const CLI::App* command = chosen.empty() ? &app : chosen.front();
  std::string message = error.what();
  if (dynamic_cast<const CLI::ValidationError*>(&error)) {
    // "--budget: must be at least 1 (got 0)" -> "--budget must be at least 1 (got 0)"
    if (const auto colon = message.find(": must "); colon != std::string::npos) message.erase(colon, 1);
  } else if (dynamic_cast<const CLI::RequiredError*>(&error) && chosen.empty()) {
    message = fmt::format("give a command: {}", fmt::join(command_names(app), ", "));
  } else if (message == "task is required") {
    message = "give a TASK: a task directory or the name of a built-in task (kernelarc tasks lists them)";
  } else if (dynamic_cast<const CLI::ExtrasError*>(&error)) {
    const auto colon = message.find(": ");
    message = "unexpected argument" + std::string(message.find("arguments") != std::string::npos ? "s " : " ") +
              (colon == std::string::npos ? message : message.substr(colon + 2));
  } else if (dynamic_cast<const CLI::ConversionError*>(&error)) {
    // "The value abc is not an allowed value for --seed" -> "--seed must be a whole number (got "abc")"
    const std::string marker = " is not an allowed value for ";
    if (const auto at = message.find(marker); message.rfind("The value ", 0) == 0 && at != std::string::npos)
      message = fmt::format("{} must be a number (got \"{}\")", message.substr(at + marker.size()), message.substr(10, at - 10));
    // "Could not convert: --seed = x" -> "--seed must be a whole number (got "x")"
    const std::string could_not = "Could not convert: ";
    if (const auto equals = message.find(" = "); message.rfind(could_not, 0) == 0 && equals != std::string::npos)
      message = fmt::format("{} must be a whole number (got \"{}\")", message.substr(could_not.size(), equals - could_not.size()),
                            message.substr(equals + 3));
  }
  fmt::print(stderr, "{}{}\n", prefix(command), message);
  fmt::print(stderr, "  kernelarc help {}says more\n", command == &app ? "" : command->get_name() + " ");
  return kExitUsage;
}

}  // namespace kernelarc::cli
