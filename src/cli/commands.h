// One function per subcommand: each adds itself to the application and runs when chosen.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace kernelarc::cli {

// Each returns the subcommand; its callback stores the process exit code in `exit_code`.
CLI::App* add_eval_command(CLI::App& app, int& exit_code);
CLI::App* add_sweep_command(CLI::App& app, int& exit_code);
CLI::App* add_tasks_command(CLI::App& app, int& exit_code);
CLI::App* add_import_command(CLI::App& app, int& exit_code);
CLI::App* add_calibrate_command(CLI::App& app, int& exit_code);
CLI::App* add_worker_command(CLI::App& app, int& exit_code);
CLI::App* add_run_command(CLI::App& app, int& exit_code);
CLI::App* add_runs_command(CLI::App& app, int& exit_code);
CLI::App* add_export_command(CLI::App& app, int& exit_code);
CLI::App* add_board_command(CLI::App& app, int& exit_code);
CLI::App* add_report_command(CLI::App& app, int& exit_code);
CLI::App* add_serve_command(CLI::App& app, int& exit_code);
CLI::App* add_help_command(CLI::App& app, int& exit_code);
CLI::App* add_completion_command(CLI::App& app, int& exit_code);

// The topics `kernelarc help TOPIC` explains besides the commands.
std::vector<std::string> help_topics();

}  // namespace kernelarc::cli
