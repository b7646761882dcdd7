#include "cli/config_file.h"

#include <fmt/format.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/usage_errors.h"
#include "common/closest_name.h"

namespace kernelarc::cli {

namespace {

using nlohmann::json;

// CLI11's reader of the JSON file: one item per option it sets, with the command as its parent.
class JsonConfig : public CLI::Config {
 public:
  JsonConfig(const CLI::App& app, std::string path) : app_(app), path_(std::move(path)) {}

  std::string to_config(const CLI::App*, bool, bool, std::string) const override { return "{}"; }

  std::vector<CLI::ConfigItem> from_config(std::istream& input) const override {
    json root;
    try {
      root = json::parse(input);
    } catch (const json::exception& error) {
      throw CLI::ConfigError(fmt::format("{} is not JSON: {}", path_, error.what()));
    }
    if (!root.is_object()) throw CLI::ConfigError(fmt::format("{} must hold a JSON object of option names", path_));
    const auto commands = command_names(app_);
    // Only the chosen command's options are set: another command's value is checked when that command runs.
    const auto chosen = app_.get_subcommands();
    const auto is_chosen = [&](const std::string& name) {
      return std::any_of(chosen.begin(), chosen.end(), [&](const CLI::App* c) { return c->get_name() == name; });
    };
    std::vector<CLI::ConfigItem> items;
    for (const auto& [key, value] : root.items()) {
      if (std::find(commands.begin(), commands.end(), key) != commands.end()) {
        if (!value.is_object()) throw CLI::ConfigError(fmt::format("{}: \"{}\" must hold an object of {}'s options", path_, key, key));
        const CLI::App* command = app_.get_subcommand(key);
        for (const auto& [name, inner] : value.items()) {
          const CLI::Option* option = command->get_option_no_throw("--" + name);
          if (!option) {
            std::vector<std::string> known;
            for (const auto& long_name : long_option_names(*command)) known.push_back(long_name.substr(2));
            throw CLI::ConfigError(fmt::format("{}: \"{}.{}\" is not an option of kernelarc {}{}", path_, key, name, key,
                                               common::did_you_mean(name, known)));
          }
          if (is_chosen(key)) add(items, {key}, name, *option, inner);
        }
        continue;
      }
      bool used = false;
      for (const CLI::App* command : app_.get_subcommands([](const CLI::App*) { return true; }))
        if (const CLI::Option* option = command->get_option_no_throw("--" + key)) {
          if (is_chosen(command->get_name())) add(items, {command->get_name()}, key, *option, value);
          used = true;
        }
      if (!used) {
        std::vector<std::string> known = commands;
        for (const CLI::App* command : app_.get_subcommands([](const CLI::App*) { return true; }))
          for (const CLI::Option* option : command->get_options())
            for (const auto& name : option->get_lnames()) known.push_back(name);
        throw CLI::ConfigError(fmt::format("{}: \"{}\" is neither an option nor a command{}", path_, key, common::did_you_mean(key, known)));
      }
    }
    return items;
  }

 private:
  void add(std::vector<CLI::ConfigItem>& items, std::vector<std::string> parents, const std::string& name, const CLI::Option& option,
           const json& value) const {
    // The environment wins over the file.
    if (const auto variable = option.get_envname(); !variable.empty())
      if (const char* set = std::getenv(variable.c_str()); set && *set) return;
    if (value.is_null()) return;
    std::vector<std::string> inputs;
    for (const auto& element : value.is_array() ? value : json::array({value}))
      inputs.push_back(element.is_string() ? element.get<std::string>() : element.dump());
    items.push_back({std::move(parents), name, std::move(inputs)});
  }

  const CLI::App& app_;
  std::string path_;
};

}  // namespace

ConfigFileChoice take_config_file(std::vector<std::string>& arguments) {
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    if (arguments[i] == "--") break;
    if (arguments[i].rfind("--config=", 0) == 0) {
      ConfigFileChoice choice{arguments[i].substr(9), true};
      arguments.erase(arguments.begin() + static_cast<std::ptrdiff_t>(i));
      return choice;
    }
    if (arguments[i] == "--config" && i + 1 < arguments.size()) {
      ConfigFileChoice choice{arguments[i + 1], true};
      arguments.erase(arguments.begin() + static_cast<std::ptrdiff_t>(i), arguments.begin() + static_cast<std::ptrdiff_t>(i) + 2);
      return choice;
    }
  }
  if (const char* path = std::getenv("KERNELARC_CONFIG"); path && *path) return {path, true};
  if (const char* home = std::getenv("XDG_CONFIG_HOME"); home && *home) return {std::string(home) + "/kernelarc/config.json", false};
  if (const char* home = std::getenv("HOME"); home && *home) return {std::string(home) + "/.config/kernelarc/config.json", false};
  return {};
}

void read_config_file(CLI::App& app, const std::string& path) {
  app.config_formatter(std::make_shared<JsonConfig>(app, path));
  app.set_config("--config", path,
                 "A JSON file of option values, at the top level for every command or under a command's name (kernelarc help config; "
                 "default $KERNELARC_CONFIG or ~/.config/kernelarc/config.json)");
}

}  // namespace kernelarc::cli
