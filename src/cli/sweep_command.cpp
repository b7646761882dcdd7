// kernelarc sweep TASK --template T --knob NAME=v1,v2,...: a template's knob grid screened (judge/screening.h), one row
// per configuration and workload, as a table, JSON or CSV. Records nothing and promotes nothing. With --geometry, each
// configuration's launch instead (cli/sweep_geometry.h): nothing built or run.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/csv_output.h"
#include "cli/option_checks.h"
#include "cli/options.h"
#include "cli/sweep_geometry.h"
#include "common/units.h"
#include "engine/knob_sweep.h"
#include "judge/screening.h"
#include "task/knob_grid.h"

namespace kernelarc::cli {

using nlohmann::json;

namespace {

struct SweepArguments {
  std::string task;
  std::string template_name;
  std::vector<std::string> knobs;      // NAME=v1,v2,...
  bool each_knob = false;              // the default, then one knob changed at a time, instead of a grid
  bool geometry = false;               // the launches only: nothing built or timed
  int num_sms = task::kDefaultNumSms;  // the SM count --geometry's launch rules see
  std::vector<std::string> workloads;  // uuids; empty: every workload
  std::string device = "cpu";
  std::optional<int> iterations;       // default: the backend's screening protocol
  bool json_output = false;
  bool csv_output = false;
  bool quiet = false;
  bool no_held_out = false;
  bool checks_on_device = false;       // a GPU's screenings keep inputs and reference on the device and compare there
  int timeout_ms = 10000;
  std::string time_limit = "0";        // no configuration started after it; 0: none
  std::uint64_t seed = 0;
  std::string reference = "auto";
  std::string extensions;
  CpuPeakOverrides peaks;
};

using SweptKnobs = std::vector<std::pair<std::string, std::vector<std::int64_t>>>;

SweptKnobs parse_swept_knobs(const std::vector<std::string>& items) {
  SweptKnobs swept;
  for (const auto& item : items) {
    const auto equals = item.find('=');
    if (equals == std::string::npos || equals == 0 || equals + 1 == item.size())
      throw std::runtime_error(fmt::format("--knob expects NAME=VALUE[,VALUE...], got \"{}\"", item));
    std::vector<std::int64_t> values;
    std::size_t start = equals + 1;
    while (start <= item.size()) {
      const std::size_t comma = std::min(item.find(',', start), item.size());
      const std::string text = item.substr(start, comma - start);
      try {
        std::size_t used = 0;
        values.push_back(std::stoll(text, &used));
        if (used != text.size()) throw std::invalid_argument("trailing");
      } catch (const std::exception&) {
        throw std::runtime_error(fmt::format("--knob {}: \"{}\" is not an integer", item, text));
      }
      start = comma + 1;
    }
    swept.emplace_back(item.substr(0, equals), std::move(values));
  }
  return swept;
}

// The template named, else the task's first for the device.
const task::Template& find_template(const task::Task& task, const SweepArguments& args, const std::string& device_kind) {
  const auto& templates = task.definition.templates;
  std::vector<std::string> names;
  for (const auto& t : templates) names.push_back(t.name);
  const auto found = std::find_if(templates.begin(), templates.end(), [&](const task::Template& t) {
    return args.template_name.empty() ? t.device == device_kind : t.name == args.template_name;
  });
  if (found == templates.end())
    throw std::runtime_error(args.template_name.empty()
                                 ? fmt::format("task {} has no {} template", task.definition.name, device_kind)
                                 : fmt::format("task {} has no template named \"{}\"; its templates are {}", task.definition.name,
                                               args.template_name, names.empty() ? "none" : fmt::format("{}", fmt::join(names, ", "))));
  if (found->device != device_kind)
    throw std::runtime_error(fmt::format("template \"{}\" is for {}, not {} (give --device)", found->name, found->device, args.device));
  return *found;
}

// The swept knobs (the others are at their defaults in every configuration); with none swept (--each-knob, or the
// default alone), the knobs that differ from the default.
std::string configuration_label(const task::Template& tmpl, const task::KnobValues& knobs, const SweptKnobs& swept) {
  if (swept.empty()) return task::changed_knobs_label(tmpl, knobs);
  std::vector<std::string> parts;
  for (const auto& [name, values] : swept) parts.push_back(fmt::format("{}={}", name, knobs.at(name)));
  return fmt::format("{}", fmt::join(parts, " "));
}

task::KnobGrid knob_grid(const task::Template& tmpl, const SweepArguments& args, const SweptKnobs& swept) {
  return args.each_knob ? task::single_knob_changes(tmpl) : task::expand_knob_grid(tmpl, swept);
}

// --geometry: the template named, else every kernel-only CUDA template of the task (launch rules belong to those alone).
int run_geometry(const SweepArguments& args) {
  task::Task task;
  std::vector<TemplateGrid> grids;
  try {
    task = load_task_argument(args.task, args.extensions);
    keep_only_workloads(task, args.workloads);
    if (args.no_held_out) std::erase_if(task.workloads, [](const task::Workload& w) { return w.held_out; });
    const SweptKnobs swept = parse_swept_knobs(args.knobs);
    for (const auto& tmpl : task.definition.templates) {
      if (args.template_name.empty() ? !tmpl.launch : tmpl.name != args.template_name) continue;
      if (!tmpl.launch)
        throw std::runtime_error(fmt::format("template \"{}\" is not a kernel-only CUDA template: the judge does not launch it", tmpl.name));
      grids.push_back({&tmpl, knob_grid(tmpl, args, swept)});
    }
    if (grids.empty())
      throw std::runtime_error(args.template_name.empty() ? fmt::format("task {} has no kernel-only CUDA template", task.definition.name)
                                                          : fmt::format("task {} has no template named \"{}\"", task.definition.name, args.template_name));
    if (grids.size() > 1 && !swept.empty())
      throw std::runtime_error(fmt::format("task {} has {} kernel-only CUDA templates: give --template with --knob", task.definition.name, grids.size()));
  } catch (const std::exception& error) {
    fmt::print(stderr, "kernelarc sweep: {}\n", error.what());
    return kExitUsage;
  }
  const json out = sweep_geometry(task, grids, args.num_sms);
  if (args.json_output) std::cout << out.dump(2) << std::endl;
  else if (args.csv_output) std::cout << sweep_geometry_csv(out) << std::flush;
  else print_sweep_geometry(out);
  return out["refused"].get<int>() == 0 ? kExitOk : kExitFailed;
}

std::string status_text(const judge::ScreenedWorkload& row) {
  return row.status ? std::string(judge::status_name(*row.status)) : "NOT_SCREENED";
}

json workload_row_json(const judge::ScreenedWorkload& row) {
  json out = {{"uuid", row.uuid}, {"held_out", row.held_out}, {"status", status_text(row)}, {"reason", row.reason},
              {"sol_ns", row.sol_ns ? json(*row.sol_ns) : json()}};
  for (const char* key : {"median_ns", "q1_ns", "q3_ns", "min_ns"}) out[key] = nullptr;
  if (row.timing) {
    out["median_ns"] = row.timing->median_ns;
    out["q1_ns"] = row.timing->q1_ns;
    out["q3_ns"] = row.timing->q3_ns;
    out["min_ns"] = row.timing->min_ns;
    out["samples_ns"] = row.timing->samples_ns;
    out["timer"] = row.timing->timer;
  }
  return out;
}

json sweep_json(const task::Task& task, const task::Template& tmpl, const SweepArguments& args, const judge::JudgeOptions& options,
                const SweptKnobs& swept, const task::KnobGrid& grid, const engine::KnobSweep& sweep) {
  json out = {{"task", task.definition.name}, {"template", tmpl.name}, {"device", args.device},
              {"protocol", {{"rounds", options.rounds}, {"warmup", options.warmup}, {"iterations", options.iterations},
                            {"checks_on_device", options.screen_on_device && options.device != "cpu"}}},
              {"swept", json::object()}, {"configurations", json::array()}, {"skipped", json::array()},
              {"not_screened", sweep.not_screened}, {"seconds", sweep.seconds}, {"configurations_per_minute", sweep.configurations_per_minute()}};
  for (const auto& [name, values] : swept) out["swept"][name] = values;
  for (const auto& screening : sweep.screenings) {
    json configuration = {{"name", screening.name}, {"label", configuration_label(tmpl, screening.knobs, swept)}, {"knobs", screening.knobs},
                          {"outcome", judge::screening_outcome_name(screening.outcome)},
                          {"geomean_ns", screening.geomean_ns() ? json(*screening.geomean_ns()) : json()},
                          {"seconds", screening.seconds}, {"phase_seconds", screening.phase_seconds},
                          {"build", {{"ok", screening.build.ok}, {"cache_hit", screening.build.cache_hit}, {"seconds", screening.build.seconds}}},
                          {"workloads", json::array()}};
    for (const auto& row : screening.workloads) configuration["workloads"].push_back(workload_row_json(row));
    out["configurations"].push_back(std::move(configuration));
  }
  for (const auto& skipped : grid.skipped)
    out["skipped"].push_back({{"label", configuration_label(tmpl, skipped.knobs, swept)}, {"knobs", skipped.knobs}, {"constraint", skipped.constraint}});
  return out;
}

std::string sweep_csv(const json& out) {
  json rows = json::array();
  for (const auto& configuration : out["configurations"])
    for (const auto& row : configuration["workloads"])
      rows.push_back({{"configuration", configuration["label"]}, {"outcome", configuration["outcome"]}, {"workload", row["uuid"]},
                      {"held_out", row["held_out"]}, {"status", row["status"]}, {"median_ns", row["median_ns"]}, {"q1_ns", row["q1_ns"]},
                      {"q3_ns", row["q3_ns"]}, {"min_ns", row["min_ns"]}, {"sol_ns", row["sol_ns"]}, {"reason", row["reason"]}});
  for (const auto& skipped : out["skipped"])
    rows.push_back({{"configuration", skipped["label"]}, {"outcome", "skipped"}, {"status", "SKIPPED"},
                    {"reason", fmt::format("breaks the constraint \"{}\"", skipped["constraint"].get<std::string>())}});
  return csv_table(rows, {"configuration", "outcome", "workload", "held_out", "status", "median_ns", "q1_ns", "q3_ns", "min_ns", "sol_ns", "reason"});
}

void print_table(const json& out) {
  fmt::print("{} template {} on {}: {} configurations screened, {} skipped by constraints; {} timed calls per workload\n",
             out["task"].get<std::string>(), out["template"].get<std::string>(), out["device"].get<std::string>(), out["configurations"].size(),
             out["skipped"].size(), out["protocol"]["iterations"].get<int>());
  std::size_t width = 13;
  for (const auto& configuration : out["configurations"]) width = std::max(width, configuration["label"].get<std::string>().size());
  fmt::print("{:<{}}  {:<28} {:<20} {:>12} {:>10}  {}\n", "configuration", width, "workload", "status", "median", "spread", "reason");
  for (const auto& configuration : out["configurations"])
    for (const auto& row : configuration["workloads"]) {
      const bool timed = !row["median_ns"].is_null();
      fmt::print("{:<{}}  {:<28} {:<20} {:>12} {:>10}  {}\n", configuration["label"].get<std::string>(), width,
                 row["uuid"].get<std::string>() + (row["held_out"].get<bool>() ? "*" : ""), row["status"].get<std::string>(),
                 timed ? common::format_time_ns(row["median_ns"].get<double>()) : "-",
                 timed ? common::format_time_ns(row["q3_ns"].get<double>() - row["q1_ns"].get<double>()) : "-",
                 row["reason"].get<std::string>().substr(0, 160));
    }
  for (const auto& skipped : out["skipped"])
    fmt::print("skipped {}: breaks the constraint \"{}\"\n", skipped["label"].get<std::string>(), skipped["constraint"].get<std::string>());
  // The measured configurations, fastest first by the geometric mean of their medians.
  std::vector<const json*> measured;
  for (const auto& configuration : out["configurations"])
    if (!configuration["geomean_ns"].is_null()) measured.push_back(&configuration);
  std::stable_sort(measured.begin(), measured.end(),
                   [](const json* a, const json* b) { return (*a)["geomean_ns"].get<double>() < (*b)["geomean_ns"].get<double>(); });
  fmt::print("{} of {} configurations measured (the rest wrong or failed: dropped); screened in {} ({:.0f} configurations a minute)\n",
             measured.size(), out["configurations"].size(), common::format_duration_s(out["seconds"].get<double>()),
             out["configurations_per_minute"].get<double>());
  if (const auto left = out["not_screened"].get<std::size_t>(); left > 0)
    fmt::print("{} more configurations not screened: the time limit came first\n", left);
  for (std::size_t i = 0; i < measured.size() && i < 5; ++i)
    fmt::print("  {}. {}  geometric mean {}\n", i + 1, (*measured[i])["label"].get<std::string>(),
               common::format_time_ns((*measured[i])["geomean_ns"].get<double>()));
}

int run_sweep(const SweepArguments& args) {
  if (args.geometry) return run_geometry(args);
  const auto device = parse_device(args.device);
  if (!device) {
    fmt::print(stderr, "kernelarc sweep: unknown device \"{}\" (expected {})\n", args.device, judge::known_device_names());
    return kExitUsage;
  }
  if (auto why = judge::device_unavailable_reason(args.device)) {
    fmt::print(stderr, "kernelarc sweep: no GPU is available for {}: {}\n", args.device, *why);
    return kExitUsage;
  }
  task::Task task;
  const task::Template* tmpl = nullptr;
  SweptKnobs swept;
  task::KnobGrid grid;
  std::chrono::seconds time_limit{0};
  try {
    time_limit = parse_duration(args.time_limit, "--time-limit");
    task = load_task_argument(args.task, args.extensions);
    keep_only_workloads(task, args.workloads);
    tmpl = &find_template(task, args, device->kind);
    swept = parse_swept_knobs(args.knobs);
    grid = knob_grid(*tmpl, args, swept);
  } catch (const std::exception& error) {
    fmt::print(stderr, "kernelarc sweep: {}\n", error.what());
    return kExitUsage;
  }
  const auto started = std::chrono::steady_clock::now();
  const auto progress = [&](const std::string& line) {
    if (!args.quiet) fmt::print(stderr, "{}\n", line);
  };
  for (const auto& skipped : grid.skipped)
    progress(fmt::format("skipped {}: breaks the constraint \"{}\"", configuration_label(*tmpl, skipped.knobs, swept), skipped.constraint));
  judge::JudgeOptions base;
  base.device = device->text();
  base.call_timeout = std::chrono::milliseconds(args.timeout_ms);
  base.seed = args.seed;
  base.include_held_out = !args.no_held_out;
  base.reference = args.reference;
  base.screen_on_device = args.checks_on_device;
  const judge::JudgeOptions options = judge::screening_options(base, args.iterations);
  try {
    const auto peaks = device_peaks(options.device, options.compiler, args.peaks);
    judge::Screener screener(task, options, peaks);
    const auto screened = [&](const judge::Screening& screening, std::size_t index, std::size_t total) {
      const auto geomean = screening.geomean_ns();
      progress(fmt::format("[{}/{}] {}: {}{}", index + 1, total, configuration_label(*tmpl, screening.knobs, swept),
                           judge::screening_outcome_name(screening.outcome),
                           geomean ? fmt::format(", geometric mean {}", common::format_time_ns(*geomean)) : ""));
    };
    const auto sweep = engine::sweep_knob_grid(task, *tmpl, grid, screener, judge::backend_for(options.device).builds_while_timing(),
                                               screened, progress,
                                               time_limit.count() > 0 ? started + time_limit : std::chrono::steady_clock::time_point::max());
    const json out = sweep_json(task, *tmpl, args, options, swept, grid, sweep);
    if (args.json_output) std::cout << out.dump(2) << std::endl;
    else if (args.csv_output) std::cout << sweep_csv(out) << std::flush;
    else print_table(out);
    const bool any_measured = std::any_of(sweep.screenings.begin(), sweep.screenings.end(),
                                          [](const judge::Screening& s) { return s.outcome == judge::ScreeningOutcome::measured; });
    return any_measured ? kExitOk : kExitFailed;
  } catch (const std::exception& error) {
    fmt::print(stderr, "kernelarc sweep: {}\n", error.what());
    return kExitUsage;
  }
}

}  // namespace

CLI::App* add_sweep_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<SweepArguments>();
  auto* command = app.add_subcommand(
      "sweep", "Screen a template's knob grid: one correctness round and a few timed calls per configuration and workload; promotes nothing");
  command->add_option("task", args->task, "A task directory or the name of a built-in task (kernelarc tasks)")->required();
  command->add_option("--template", args->template_name, "The template whose knobs are swept (default: the task's first for the device)");
  command->add_option("--knob", args->knobs,
                      "NAME=V1,V2,...: the values of one knob to sweep (repeatable; the grid is every combination; a knob not given "
                      "stays at its default, the first value in the template)");
  auto* each_knob = command->add_flag("--each-knob", args->each_knob,
                                      "One knob at a time instead of a grid: the default configuration, then each other value of each "
                                      "knob with the rest at their defaults");
  each_knob->excludes(command->get_option("--knob"));
  auto* geometry = command->add_flag("--geometry", args->geometry,
                                     "Print each configuration's launch (grid, block, shared bytes, arguments) on each workload as the "
                                     "judge would launch it, and nothing else: nothing is built or timed and no GPU is needed. Without "
                                     "--template, every kernel-only CUDA template of the task");
  command->add_option("--num-sms", args->num_sms, "The device's SM count that --geometry's launch rules see")
      ->check(whole_number(1))
      ->needs(geometry)
      ->capture_default_str();
  command->add_option("--workloads", args->workloads, "Only these workloads (uuids, comma-separated or repeated)")->delimiter(',');
  command->add_option("--device", args->device, judge::known_device_names())->check(device_name())->envname("KERNELARC_DEVICE")->capture_default_str();
  command->add_option("--iterations", args->iterations, "Timed calls per workload (default: the device's screening protocol, " +
                                                            search_protocol_defaults(&judge::JudgeProtocol::iterations, judge::ProtocolUse::screening) + ")")
      ->check(whole_number(1));
  auto* json_flag = command->add_flag("--json", args->json_output, "Print one JSON document on stdout instead of the table");
  command->add_flag("--csv", args->csv_output, "Print CSV, one row per configuration and workload, instead of the table")->excludes(json_flag);
  command->add_flag("--quiet,-q", args->quiet, "No progress lines on stderr");
  command->add_flag("--no-held-out", args->no_held_out, "Leave out the held-out workloads");
  command->add_flag("--checks-on-device", args->checks_on_device,
                    "On a GPU, keep each workload's inputs and reference outputs on the device and compare kernel-only candidates' "
                    "outputs there, instead of bringing every output back to the host (experimental: see docs/JUDGE.md)");
  command->add_option("--timeout-ms", args->timeout_ms, "Deadline of one call")->check(whole_number(1))->envname("KERNELARC_TIMEOUT_MS")->capture_default_str();
  command->add_option("--time-limit", args->time_limit,
                      "Start no configuration after this long (600, 90s, 15m, 2h; 0: no limit); the one under way finishes and "
                      "the output holds what was screened")
      ->capture_default_str();
  command->add_option("--seed", args->seed, "Input seed (default: a fresh secret one)")->envname("KERNELARC_SEED");
  command->add_option("--reference", args->reference, "auto (a native reference, else the PyTorch one), native, or python")
      ->check(one_of({"auto", "native", "python"}))
      ->capture_default_str();
  command->add_option("--extensions", args->extensions, kExtensionsHelp)->check(existing_file());
  command->add_option("--cpu-bandwidth", args->peaks.bandwidth_gbps, "CPU peak bandwidth in GB/s (default: calibrated)")->check(number_at_least(0));
  command->add_option("--cpu-gflops", args->peaks.gflops, "CPU peak fp32 GFLOP/s (default: calibrated)")->check(number_at_least(0));
  command->callback([args, &exit_code] { exit_code = run_sweep(*args); });
  return command;
}

}  // namespace kernelarc::cli
