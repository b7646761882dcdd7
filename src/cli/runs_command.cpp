// kernelarc runs: the runs and evaluations of the store, newest first, as a table, JSON or CSV.
#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/csv_output.h"
#include "cli/option_checks.h"
#include "cli/options.h"
#include "common/units.h"
#include "store/store.h"

namespace kernelarc::cli {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct RunsArguments {
  std::string task;
  std::string status;
  std::string kind;
  std::string format = "table";
  std::size_t limit = 0;
  std::string store;
};

// One row: what a user looks for to pick a run to resume, export or compare.
json row_of(const store::Store& store, const store::RunRecord& run, const std::string& task) {
  const json summary = json::parse(run.summary_json, nullptr, false);
  const json config = json::parse(run.config_json, nullptr, false);
  json row = {{"id", run.id}, {"kind", run.kind}, {"task", task}, {"device", run.device}, {"status", run.status},
              {"started_at", run.started_at}, {"finished_at", run.finished_at.empty() ? json() : json(run.finished_at)}};
  if (run.kind == "run") {
    // A run still going (or killed) has no summary yet: its candidates say how far it got.
    row["judged"] = summary.is_object() && summary.contains("judged") ? summary.at("judged") : json(store.candidates(run.id).size());
    // A resumed run may have been given a larger budget: the one it finished with is in its summary.
    row["budget"] = summary.is_object() && summary.contains("budget") ? summary.at("budget") : config.is_object() ? config.value("budget", json()) : json();
    // The start measured again at the end, when it was, is what the run's speed-up is against.
    row["start_ns"] = summary.is_object() ? summary.value("start_again_ns", json()).is_number() ? summary.at("start_again_ns") : summary.value("start_ns", json()) : json();
    row["best_ns"] = summary.is_object() ? summary.value("best_ns", json()) : json();
    row["best_candidate"] = summary.is_object() ? summary.value("best_candidate", json()) : json();
  } else {
    row["passed"] = summary.is_object() ? summary.value("passed", json()) : json();
  }
  return row;
}

std::string cell(const json& value) {
  if (value.is_null()) return "";
  if (value.is_string()) return value.get<std::string>();
  return value.dump();
}

std::string result_text(const json& row) {
  if (row.at("kind") == "eval") return row.value("passed", json()).is_boolean() ? (row.at("passed").get<bool>() ? "passed" : "failed") : "-";
  const double start = row.value("start_ns", json()).is_number() ? row.at("start_ns").get<double>() : 0;
  const double best = row.value("best_ns", json()).is_number() ? row.at("best_ns").get<double>() : 0;
  if (best <= 0) return "no correct candidate";
  return fmt::format("best {} ({} than the start), candidate {}", common::format_time_ns(best), common::speed_ratio(start, best),
                     cell(row.value("best_candidate", json())));
}

int list_runs(const RunsArguments& args) {
  const fs::path store_path = args.store.empty() ? default_store_path() : fs::path(args.store);
  if (!fs::exists(store_path)) {
    fmt::print(stderr, "kernelarc runs: there is no run store at {} (give --store, or set KERNELARC_STORE)\n", store_path.string());
    return kExitUsage;
  }
  try {
    const auto store = store::Store::open_existing(store_path);
    std::map<std::int64_t, std::string> task_names;
    json rows = json::array();
    for (const auto& run : store.runs()) {
      if (!task_names.count(run.task_id)) task_names[run.task_id] = store.task(run.task_id) ? store.task(run.task_id)->name : "?";
      const std::string& task = task_names[run.task_id];
      if ((!args.task.empty() && task != args.task) || (!args.status.empty() && run.status != args.status) ||
          (!args.kind.empty() && run.kind != args.kind))
        continue;
      rows.push_back(row_of(store, run, task));
      if (args.limit > 0 && rows.size() >= args.limit) break;
    }
    if (args.format == "json") {
      std::cout << rows.dump(2) << std::endl;
    } else if (args.format == "csv") {
      const std::vector<std::string> columns = {"id", "kind", "task", "device", "status", "started_at", "finished_at", "judged", "budget",
                                                "start_ns", "best_ns", "best_candidate", "passed"};
      std::cout << csv_table(rows, columns) << std::flush;
    } else if (rows.empty()) {
      fmt::print(stderr, "kernelarc runs: no runs{}{}{} in {}\n", args.task.empty() ? "" : " of task " + args.task,
                 args.status.empty() ? "" : " with status " + args.status, args.kind.empty() ? "" : " of kind " + args.kind, store_path.string());
    } else {
      std::string out = fmt::format("{:>5}  {:<5} {:<20} {:<7} {:<12} {:<20} {:>9}  {}\n", "id", "kind", "task", "device", "status", "started (UTC)",
                                    "judged", "result");
      for (const auto& row : rows) {
        const std::string judged = row.at("kind") == "run" ? fmt::format("{}/{}", cell(row.value("judged", json())), cell(row.value("budget", json()))) : "";
        out += fmt::format("{:>5}  {:<5} {:<20} {:<7} {:<12} {:<20} {:>9}  {}\n", row.at("id").get<std::int64_t>(), cell(row.at("kind")),
                           cell(row.at("task")), cell(row.at("device")), cell(row.at("status")), cell(row.at("started_at")).substr(0, 19), judged,
                           result_text(row));
      }
      std::cout << out << std::flush;
    }
    return kExitOk;
  } catch (const std::exception& error) {
    fmt::print(stderr, "kernelarc runs: {}\n", error.what());
    return kExitUsage;
  }
}

}  // namespace

CLI::App* add_runs_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<RunsArguments>();
  auto* command = app.add_subcommand("runs", "List the runs and evaluations in the store, newest first");
  command->add_option("--task", args->task, "Only this task's");
  command->add_option("--status", args->status, "Only those with this status")
      ->check(one_of({"running", "interrupted", "finished", "failed", "passed"}));
  command->add_option("--kind", args->kind, "Only runs (kernelarc run) or evaluations (kernelarc eval)")->check(one_of({"run", "eval"}));
  command->add_option("--format", args->format, "table, json or csv")->check(one_of({"table", "json", "csv"}))->capture_default_str();
  // --json and --csv as every other listing has them: short for --format json and --format csv.
  command->add_flag_callback("--json", [args] { args->format = "json"; }, "Print JSON (--format json)");
  command->add_flag_callback("--csv", [args] { args->format = "csv"; }, "Print CSV (--format csv)");
  command->add_option("--limit", args->limit, "The newest N (default: all)")->check(whole_number(0));
  command->add_option("--store", args->store, "The run store (default $KERNELARC_STORE or ~/.local/share/kernelarc/runs.db)");
  command->callback([args, &exit_code] { exit_code = list_runs(*args); });
  return command;
}

}  // namespace kernelarc::cli
