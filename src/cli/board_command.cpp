// kernelarc board: the conclusions the runs left, newest first.
#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <iostream>

#include "cli/commands.h"
#include "cli/csv_output.h"
#include "cli/option_checks.h"
#include "cli/options.h"
#include "report/board_printer.h"
#include "store/store.h"

namespace kernelarc::cli {

namespace fs = std::filesystem;

namespace {

struct BoardArguments {
  std::string task;
  std::int64_t run_id = 0;
  std::size_t limit = 0;
  bool json_output = false;
  bool csv_output = false;
  std::string store;
};

// The terminal's width when stdout is one; 0 (no cut) for a pipe or a file.
std::size_t terminal_width() {
  if (!isatty(STDOUT_FILENO)) return 0;
  winsize size{};
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  return 0;
}

int run_board(const BoardArguments& args) {
  const fs::path store_path = args.store.empty() ? default_store_path() : fs::path(args.store);
  if (!fs::exists(store_path)) {
    fmt::print(stderr, "kernelarc board: there is no run store at {} (give --store, or set KERNELARC_STORE)\n", store_path.string());
    return kExitUsage;
  }
  report::BoardQuery query;
  if (!args.task.empty()) query.task = args.task;
  if (args.run_id > 0) query.run_id = args.run_id;
  query.limit = args.limit;
  try {
    const auto store = store::Store::open(store_path);
    const auto entries = report::board_entries(store, query);
    if (args.json_output) {
      std::cout << report::board_json(entries).dump(2) << std::endl;
    } else if (args.csv_output) {
      std::cout << csv_table(report::board_json(entries), {"id", "run", "task", "workload_class", "strategy", "change", "outcome", "effect", "lesson",
                                                           "created_at"})
                << std::flush;
    } else if (entries.empty()) {
      fmt::print(stderr, "kernelarc board: no conclusions{}{} in {}\n", args.task.empty() ? "" : " on task " + args.task,
                 args.run_id > 0 ? fmt::format(" of run {}", args.run_id) : "", store_path.string());
    } else {
      std::cout << report::board_table(entries, terminal_width()) << std::flush;
    }
    return kExitOk;
  } catch (const std::exception& error) {
    fmt::print(stderr, "kernelarc board: {}\n", error.what());
    return kExitUsage;
  }
}

}  // namespace

CLI::App* add_board_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<BoardArguments>();
  auto* command = app.add_subcommand("board", "Print the conclusions the runs left on the board, newest first");
  command->add_option("--task", args->task, "Only this task's conclusions");
  command->add_option("--run", args->run_id, "Only this run's conclusions")->check(whole_number(1, std::numeric_limits<std::int64_t>::max()));
  command->add_option("--limit", args->limit, "The newest N (default: all)")->check(whole_number(0));
  auto* json_flag = command->add_flag("--json", args->json_output, "Print a JSON array instead of the table");
  command->add_flag("--csv", args->csv_output, "Print CSV (a header line, one row per conclusion) instead of the table")->excludes(json_flag);
  command->add_option("--store", args->store, "The run store (default $KERNELARC_STORE or ~/.local/share/kernelarc/runs.db)");
  command->callback([args, &exit_code] { exit_code = run_board(*args); });
  return command;
}

}  // namespace kernelarc::cli
