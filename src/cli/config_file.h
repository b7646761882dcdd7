// The configuration file: JSON whose keys are option names, at the top level for every command that has the option,
// or under a command's name for that command alone (kernelarc help config). The command line and the environment win.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace kernelarc::cli {

struct ConfigFileChoice {
  std::string path;
  bool given = false;  // by --config or $KERNELARC_CONFIG: then a missing file is an error
};

// --config FILE (or --config=FILE) anywhere before "--", taken out of `arguments`; else $KERNELARC_CONFIG; else
// $XDG_CONFIG_HOME/kernelarc/config.json or ~/.config/kernelarc/config.json.
ConfigFileChoice take_config_file(std::vector<std::string>& arguments);

// `app` reads `path` (when it exists) before its options are checked; its errors are CLI::ConfigError, naming the
// file and the closest option to an unknown key.
void read_config_file(CLI::App& app, const std::string& path);

}  // namespace kernelarc::cli
