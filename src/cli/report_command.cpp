// kernelarc report RUN [RUN...]: one run, or several of one task compared, as a self-contained HTML page.
#include <fmt/format.h>

#include <iostream>

#include "cli/commands.h"
#include "cli/option_checks.h"
#include "cli/options.h"
#include "judge/build_cache.h"
#include "report/html_report.h"
#include "store/run_reader.h"

namespace kernelarc::cli {

namespace fs = std::filesystem;

namespace {

struct ReportArguments {
  std::vector<std::int64_t> runs;
  std::string output;
  std::string store;
};

std::string default_output(const std::vector<std::int64_t>& runs) {
  std::string name = runs.size() == 1 ? "kernelarc-run" : "kernelarc-runs";
  for (const auto id : runs) name += fmt::format("-{}", id);
  return name + ".html";
}

int write_report(const ReportArguments& args) {
  const fs::path store_path = args.store.empty() ? default_store_path() : fs::path(args.store);
  if (!fs::exists(store_path)) {
    fmt::print(stderr, "kernelarc report: there is no run store at {} (give --store, or set KERNELARC_STORE)\n", store_path.string());
    return kExitUsage;
  }
  try {
    // Read-only: a report never writes the store, and reads a store that a running run is writing.
    const auto reader = store::RunReader::open(store_path);
    std::vector<report::RunData> runs;
    for (const auto id : args.runs) runs.push_back(report::load_run(reader, id));
    const std::string html = runs.size() == 1 ? report::run_report_html(runs.front()) : report::comparison_html(runs);
    const std::string output = args.output.empty() ? default_output(args.runs) : args.output;
    if (output == "-") {
      std::cout << html << std::flush;
    } else {
      const fs::path target(output);
      if (target.has_parent_path() && !fs::is_directory(target.parent_path())) {
        fmt::print(stderr, "kernelarc report: the folder {} does not exist\n", target.parent_path().string());
        return kExitUsage;
      }
      judge::write_file_atomically(target, html);
      fmt::print(stderr, "kernelarc report: {} written ({:.0f} kB)\n", output, static_cast<double>(html.size()) / 1024);
    }
    return kExitOk;
  } catch (const std::exception& error) {
    fmt::print(stderr, "kernelarc report: {}\n", error.what());
    return kExitUsage;
  }
}

}  // namespace

CLI::App* add_report_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ReportArguments>();
  auto* command = app.add_subcommand("report", "Write a run (or several of one task, compared) as a self-contained HTML page");
  command->add_option("runs", args->runs, "The run id(s): one for its report, several of one task for a comparison")
      ->required()
      ->check(whole_number(1, std::numeric_limits<std::int64_t>::max()));
  command->add_option("-o,--output", args->output, "The HTML file to write (default kernelarc-run-ID.html here; - for stdout)");
  command->add_option("--store", args->store, "The run store (default $KERNELARC_STORE or ~/.local/share/kernelarc/runs.db)");
  command->callback([args, &exit_code] { exit_code = write_report(*args); });
  return command;
}

}  // namespace kernelarc::cli
