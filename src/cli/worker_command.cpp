#include "cli/commands.h"
#include "judge/worker.h"

namespace kernelarc::cli {

CLI::App* add_worker_command(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand("worker", "Run candidates for a judge (started by kernelarc itself; JSON lines on stdin/stdout)");
  auto device = std::make_shared<std::string>("cpu");
  command->add_option("--device", *device, "cpu (cuda:N needs a CUDA build)")->capture_default_str();
  command->callback([device, &exit_code] { exit_code = judge::run_worker(*device); });
  return command;
}

}  // namespace kernelarc::cli
