// kernelarc completion bash|zsh: a completion script made from the commands and options of this very binary, so it
// never lags behind them. bash: `source <(kernelarc completion bash)`; zsh: `source <(kernelarc completion zsh)`.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <iostream>

#include "cli/commands.h"
#include "cli/option_checks.h"
#include "cli/options.h"
#include "cli/usage_errors.h"
#include "task/task_library.h"

namespace kernelarc::cli {

namespace {

std::string bash_script(const CLI::App& app) {
  const auto commands = command_names(app);
  std::vector<std::string> tasks;
  std::error_code error;
  if (std::filesystem::is_directory(builtin_tasks_directory(), error))
    for (const auto& directory : task::task_directories(builtin_tasks_directory())) tasks.push_back(directory.filename().string());
  std::string cases;
  for (const auto& name : commands) {
    std::vector<std::string> options = long_option_names(*app.get_subcommand(name));
    cases += fmt::format("    {}) options=\"{}\" ;;\n", name, fmt::join(options, " "));
  }
  std::vector<std::string> help_words = commands;
  for (const auto& topic : help_topics()) help_words.push_back(topic);
  return fmt::format(R"(# kernelarc completion for bash (kernelarc completion bash)
_kernelarc() {{
  local cur=${{COMP_WORDS[COMP_CWORD]}} command=${{COMP_WORDS[1]}} options=""
  if (( COMP_CWORD == 1 )); then
    COMPREPLY=($(compgen -W "{}" -- "$cur"))
    return
  fi
  case $command in
{}  esac
  if [[ $command == help ]]; then
    COMPREPLY=($(compgen -W "{}" -- "$cur"))
  elif [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$options" -- "$cur"))
  elif [[ ($command == run || $command == eval || $command == sweep) && $COMP_CWORD == 2 ]]; then
    COMPREPLY=($(compgen -W "{}" -- "$cur") $(compgen -d -- "$cur"))
  else
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}}
complete -o filenames -F _kernelarc kernelarc
)",
                     fmt::join(commands, " "), cases, fmt::join(help_words, " "), fmt::join(tasks, " "));
}

int print_completion(const CLI::App& app, const std::string& shell) {
  if (shell == "bash") std::cout << bash_script(app);
  else std::cout << "#compdef kernelarc\n# kernelarc completion for zsh, through its bash completion layer\nautoload -U +X bashcompinit && bashcompinit\n"
                 << bash_script(app);
  return kExitOk;
}

}  // namespace

CLI::App* add_completion_command(CLI::App& app, int& exit_code) {
  auto shell = std::make_shared<std::string>();
  auto* command = app.add_subcommand("completion", "Print a shell completion script: source <(kernelarc completion bash)");
  command->add_option("shell", *shell, "bash or zsh")->required()->check(one_of({"bash", "zsh"}));
  command->callback([&app, shell, &exit_code] { exit_code = print_completion(app, *shell); });
  return command;
}

}  // namespace kernelarc::cli
