// kernelarc: makes GPU kernels fast with a team of agents and a judge that cannot be fooled.
#include <CLI/CLI.hpp>

#include "cli/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"KernelArc: automatic kernel optimisation with a trustworthy judge"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "kernelarc 0.1.0");
  int exit_code = 0;
  kernelarc::cli::add_run_command(app, exit_code);
  kernelarc::cli::add_eval_command(app, exit_code);
  kernelarc::cli::add_tasks_command(app, exit_code);
  kernelarc::cli::add_import_command(app, exit_code);
  kernelarc::cli::add_export_command(app, exit_code);
  kernelarc::cli::add_board_command(app, exit_code);
  kernelarc::cli::add_calibrate_command(app, exit_code);
  kernelarc::cli::add_worker_command(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return app.exit(error);
  }
  return exit_code;
}
