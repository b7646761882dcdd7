// kernelarc help [TOPIC]: a command's options, or a topic a newcomer asks about (how to read a verdict, the
// environment variables, the configuration file, the exit codes).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>
#include <map>

#include "cli/commands.h"
#include "cli/options.h"
#include "cli/usage_errors.h"
#include "common/closest_name.h"

namespace kernelarc::cli {

namespace {

const std::map<std::string, std::string>& topics() {
  static const std::map<std::string, std::string> text = {
      {"verdict", R"(How to read a verdict. `kernelarc eval` prints one row per workload:
  workload  the workload's uuid; * marks a held-out one (judged, never shown to the agents)
  status    PASSED, or what failed: COMPILE_ERROR, RUNTIME_ERROR, TIMEOUT, INCORRECT_SHAPE, INCORRECT_DTYPE,
            INCORRECT_NUMERICAL, REWARD_HACK (a candidate that games the judge), INVALID_REFERENCE
  median    the median time of one call over the timed calls, in the unit that suits its size (ns, us, ms, s)
  spread    the interquartile range of those times: how much to trust the median
  T_sol     the speed-of-light time: the workload's bytes over the device's bandwidth or its FLOPs over its peak
            rate, whichever is longer (the roofline; `kernelarc calibrate` measures a CPU's peaks)
  %SOL      T_sol over the median: 100% would be the roofline itself
  score     the SOL score S = 1 / (1 + (T - T_sol) / (T_b - T_sol)), T the median, T_b the baseline's time
            (--baseline-file, --baseline-candidate or --baseline-torch): 0.5 at the baseline, 1 at speed of light
  reason    why a workload failed
Under the table, "machine during timing": the 1-minute load average (and on a GPU the SM clock) before the first
timed loop and after the last; a "warning:" line when either moved beyond noise (load by 1 or a quarter of the
cores, clock by 5%): judge again before trusting the times.
`kernelarc run` compares every candidate with the starting one: "2.00x faster" halves the time, "0.50x slower"
doubles it.
)"},
      {"environment", R"(Every option can be set from the environment: KERNELARC_ and the option's name in capitals with
underscores (--budget: KERNELARC_BUDGET, --time-limit: KERNELARC_TIME_LIMIT, --json: KERNELARC_JSON=1). The
command line wins over the environment, which wins over the configuration file (kernelarc help config).
`kernelarc COMMAND --help` shows each option's variable as (Env:...). Other variables:
  KERNELARC_STORE      the run store (default ~/.local/share/kernelarc/runs.db)
  KERNELARC_CACHE_DIR  compiled candidates and the CPU's calibration (default ~/.cache/kernelarc)
  KERNELARC_TASKS_DIR  the built-in task library
  KERNELARC_PYTHON     the python3 that runs PyTorch references (default /usr/bin/python3)
  KERNELARC_CONFIG     the configuration file (default ~/.config/kernelarc/config.json)
)"},
      {"config", R"(The configuration file: $KERNELARC_CONFIG, else ~/.config/kernelarc/config.json (or --config FILE). A JSON
object whose keys are option names without the dashes. A key at the top level applies to every command that has
that option; a key named after a command holds that command's own:
  {
    "device": "cpu",
    "store": "/data/kernelarc/runs.db",
    "run": {"agents": 2, "budget": 32, "time-limit": "15m"},
    "eval": {"iterations": 20}
  }
An unknown key is an error that names the closest option. The command line and the environment win over the file.
)"},
      {"exit-codes", R"(Exit codes of every command:
  0  success
  1  a candidate failed a check (eval), or no correct kernel was found (run)
  2  bad input: an unknown option or command, a value out of range, an unknown task, a malformed task file,
     an unsupported device, a store that cannot be used
  3  (run) the run store could not be written mid-run, a full disk say: the run stopped, resumable
  130 (run) interrupted by Ctrl-C or SIGTERM: the run is marked interrupted, resumable
)"},
  };
  return text;
}

int print_help(const CLI::App& app, const std::string& topic) {
  const auto commands = command_names(app);
  if (topic.empty()) {
    std::cout << app.help();
    fmt::print("Topics: {} (kernelarc help TOPIC)\n", fmt::join(help_topics(), ", "));
    return kExitOk;
  }
  if (std::find(commands.begin(), commands.end(), topic) != commands.end()) {
    std::cout << app.get_subcommand(topic)->help();
    return kExitOk;
  }
  if (const auto found = topics().find(topic); found != topics().end()) {
    std::cout << found->second;
    return kExitOk;
  }
  std::vector<std::string> known = commands;
  for (const auto& [name, _] : topics()) known.push_back(name);
  fmt::print(stderr, "kernelarc help: no command or topic \"{}\"{}\n  commands: {}\n  topics: {}\n", topic, common::did_you_mean(topic, known),
             fmt::join(commands, ", "), fmt::join(help_topics(), ", "));
  return kExitUsage;
}

}  // namespace

std::vector<std::string> help_topics() {
  std::vector<std::string> names;
  for (const auto& [name, _] : topics()) names.push_back(name);
  return names;
}

CLI::App* add_help_command(CLI::App& app, int& exit_code) {
  auto topic = std::make_shared<std::string>();
  auto* command = app.add_subcommand("help", "A command's options, or a topic: verdict, environment, config, exit-codes");
  command->add_option("topic", *topic, "A command (run, eval, ...) or a topic");
  command->callback([&app, topic, &exit_code] { exit_code = print_help(app, *topic); });
  return command;
}

}  // namespace kernelarc::cli
