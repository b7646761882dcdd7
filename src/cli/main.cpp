// kernelarc: makes GPU kernels fast with a team of agents and a judge that cannot be fooled.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <filesystem>

#include "cli/commands.h"
#include "cli/config_file.h"
#include "cli/option_checks.h"
#include "cli/options.h"
#include "cli/usage_errors.h"

int main(int argc, char** argv) {
  namespace cli = kernelarc::cli;
  CLI::App app{"KernelArc: automatic kernel optimisation with a trustworthy judge", "kernelarc"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "kernelarc 0.1.0");
  app.footer("kernelarc help TOPIC: a command's options, or one of the topics verdict, environment, config, exit-codes");
  int exit_code = 0;
  cli::add_run_command(app, exit_code);
  cli::add_runs_command(app, exit_code);
  cli::add_eval_command(app, exit_code);
  cli::add_sweep_command(app, exit_code);
  cli::add_tasks_command(app, exit_code);
  cli::add_import_command(app, exit_code);
  cli::add_export_command(app, exit_code);
  cli::add_board_command(app, exit_code);
  cli::add_report_command(app, exit_code);
  cli::add_serve_command(app, exit_code);
  cli::add_calibrate_command(app, exit_code);
  cli::add_help_command(app, exit_code);
  cli::add_completion_command(app, exit_code);
  cli::add_worker_command(app, exit_code);
  cli::name_options_in_environment(app);

  std::vector<std::string> arguments(argv + 1, argv + argc);
  const auto config = cli::take_config_file(arguments);
  if (config.given && !std::filesystem::is_regular_file(config.path)) {
    fmt::print(stderr, "kernelarc: the configuration file {} does not exist (given by {})\n", config.path,
               std::getenv("KERNELARC_CONFIG") && config.path == std::getenv("KERNELARC_CONFIG") ? "KERNELARC_CONFIG" : "--config");
    return cli::kExitUsage;
  }
  if (!config.path.empty() && (arguments.empty() || arguments.front() != "worker")) cli::read_config_file(app, config.path);
  if (auto code = cli::check_names(app, arguments)) return *code;
  std::reverse(arguments.begin(), arguments.end());  // CLI11 takes them last first
  try {
    app.parse(arguments);
  } catch (const CLI::Success& help_or_version) {
    return app.exit(help_or_version);
  } catch (const CLI::ParseError& error) {
    return cli::print_usage_error(app, error);
  }
  return exit_code;
}
