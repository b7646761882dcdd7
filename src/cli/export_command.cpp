// kernelarc export --run ID: the run's best kernel as a self-contained source, or as a SOL-ExecBench solution.json.
#include <fmt/format.h>

#include <iostream>

#include "cli/commands.h"
#include "cli/option_checks.h"
#include "cli/options.h"
#include "judge/build_cache.h"
#include "report/export.h"
#include "store/store.h"

namespace kernelarc::cli {

namespace fs = std::filesystem;

namespace {

struct ExportArguments {
  std::int64_t run_id = 0;
  std::int64_t candidate_id = 0;  // 0: the run's best
  std::string format = "source";
  std::vector<std::string> targets = {"LOCAL"};
  std::string output;
  std::string store;
  std::string task;
};

int run_export(const ExportArguments& args) {
  const fs::path store_path = args.store.empty() ? default_store_path() : fs::path(args.store);
  // Opening creates a missing store; an export reads one that exists.
  if (!fs::exists(store_path)) {
    fmt::print(stderr, "kernelarc export: there is no run store at {} (give --store, or set KERNELARC_STORE)\n", store_path.string());
    return kExitUsage;
  }
  report::ExportRequest request;
  request.run_id = args.run_id;
  if (args.candidate_id > 0) request.candidate_id = args.candidate_id;
  request.format = args.format == "solution-json" ? report::ExportFormat::solution_json : report::ExportFormat::source;
  request.target_hardware = args.targets;
  try {
    if (!args.task.empty()) request.task_directory = load_task_argument(args.task).directory;
    const auto store = store::Store::open(store_path);
    const auto exported = report::export_candidate(store, request);
    // cu and cpp name the language: asking for the other one is a mistake worth saying.
    if ((args.format == "cu" && exported.extension != ".cu") || (args.format == "cpp" && exported.extension != ".cpp")) {
      fmt::print(stderr, "kernelarc export: run {} was judged on {}, so its source is {}, not {} (use --format source)\n", exported.run_id,
                 exported.device, exported.extension.substr(1), args.format);
      return kExitUsage;
    }
    for (const auto& note : exported.notes) fmt::print(stderr, "kernelarc export: note: {}\n", note);
    if (args.output.empty()) {
      std::cout << exported.text << std::flush;
    } else {
      const fs::path target(args.output);
      if (target.has_parent_path()) fs::create_directories(target.parent_path());
      judge::write_file_atomically(target, exported.text);
    }
    fmt::print(stderr, "kernelarc export: candidate {} of run {} ({}, {}{}){}\n", exported.candidate_id, exported.run_id, exported.candidate_name,
               exported.device,
               exported.time_ns <= 0   ? ""
               : exported.time_ns >= 1e6 ? fmt::format(", {:.3f} ms", exported.time_ns / 1e6)
                                         : fmt::format(", {:.3f} us", exported.time_ns / 1e3),
               args.output.empty() ? "" : " written to " + args.output);
    return kExitOk;
  } catch (const std::exception& error) {
    fmt::print(stderr, "kernelarc export: {}\n", error.what());
    return kExitUsage;
  }
}

}  // namespace

CLI::App* add_export_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ExportArguments>();
  auto* command = app.add_subcommand("export", "Export a run's best kernel: a self-contained source, or a SOL-ExecBench solution.json");
  command->add_option("--run", args->run_id, "The run (its id in the store)")->required()->check(whole_number(1, std::numeric_limits<std::int64_t>::max()));
  command->add_option("--candidate", args->candidate_id, "Export this candidate of the run instead of its best")->check(whole_number(1, std::numeric_limits<std::int64_t>::max()));
  command
      ->add_option("--format", args->format,
                   "source (.cpp for a CPU run, .cu for a CUDA run; cpp and cu also accepted), or solution-json (SOL-ExecBench, CUDA runs)")
      ->check(one_of({"source", "cpp", "cu", "solution-json"}))
      ->capture_default_str();
  command->add_option("--target", args->targets, "solution.json's target hardware: LOCAL, B200 (repeatable)")
      ->check(one_of({"LOCAL", "B200"}))
      ->delimiter(',')
      ->capture_default_str();
  command->add_option("-o,--output", args->output, "Write the file here (atomically) instead of to stdout");
  command->add_option("--store", args->store, "The run store (default $KERNELARC_STORE or ~/.local/share/kernelarc/runs.db)");
  command->add_option("--task", args->task, "Where the run's task is now (a directory or a built-in name; default: where it was)");
  command->callback([args, &exit_code] { exit_code = run_export(*args); });
  return command;
}

}  // namespace kernelarc::cli
