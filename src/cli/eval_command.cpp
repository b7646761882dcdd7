// kernelarc eval TASK CANDIDATE: judge one candidate on every workload, print a table or JSON, record it.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli/commands.h"
#include "cli/csv_output.h"
#include "cli/option_checks.h"
#include "cli/options.h"
#include "common/closest_name.h"
#include "common/units.h"
#include "engine/recording.h"
#include "judge/build_cache.h"
#include "judge/judge.h"
#include "store/store.h"
#include "task/solution_file.h"

namespace kernelarc::cli {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct EvalArguments {
  std::string task;
  std::string candidate;
  std::string template_name;
  std::string device = "cpu";
  bool json_output = false;
  bool csv_output = false;
  bool quiet = false;
  std::string store;
  std::vector<std::string> knobs;
  std::vector<std::string> flags;
  std::string baseline_candidate;
  std::string baseline_file;
  int rounds = judge::JudgeProtocol{}.rounds;  // the thorough protocol (judge/judge_protocol.h)
  int warmup = judge::JudgeProtocol{}.warmup;
  int iterations = judge::JudgeProtocol{}.iterations;
  int timeout_ms = 10000;
  std::uint64_t seed = 0;
  bool no_held_out = false;
  bool strict_tolerance = false;
  std::vector<std::string> workloads;  // empty: all
  bool correctness_only = false;
  std::string reference = "auto";
  std::string extensions;
  bool baseline_torch = false;
  CpuPeakOverrides peaks;
};

std::string format_time(double ns) { return common::format_time_ns(ns); }

std::map<std::string, std::int64_t> parse_knobs(const std::vector<std::string>& items) {
  std::map<std::string, std::int64_t> knobs;
  for (const auto& item : items) {
    const auto equals = item.find('=');
    if (equals == std::string::npos || equals == 0) throw std::runtime_error(fmt::format("--knob expects NAME=VALUE, got \"{}\"", item));
    try {
      std::size_t used = 0;
      knobs[item.substr(0, equals)] = std::stoll(item.substr(equals + 1), &used);
      if (used != item.size() - equals - 1) throw std::invalid_argument("trailing");
    } catch (const std::exception&) {
      throw std::runtime_error(fmt::format("--knob {}: the value must be an integer", item));
    }
  }
  return knobs;
}

// The candidate file (full form), or a template of the task (by name, or the first for the device) with its knobs at
// their first values unless --knob says otherwise.
judge::CandidateSource candidate_source(const task::Task& task, const EvalArguments& args) {
  judge::CandidateSource source;
  auto knobs = parse_knobs(args.knobs);
  fs::path file = args.candidate;
  if (file.empty()) {
    const auto name = parse_device(args.device);
    const std::string device = name ? name->kind : args.device;
    const auto& templates = task.definition.templates;
    const auto tmpl = std::find_if(templates.begin(), templates.end(), [&](const task::Template& t) {
      return args.template_name.empty() ? t.device == device : t.name == args.template_name;
    });
    if (tmpl == templates.end())
      throw std::runtime_error(args.template_name.empty()
                                   ? fmt::format("task {} has no {} template; give a candidate file", task.definition.name, device)
                                   : fmt::format("task {} has no template named \"{}\"", task.definition.name, args.template_name));
    if (tmpl->device != device)
      throw std::runtime_error(fmt::format("template \"{}\" is for {}, not {}", tmpl->name, tmpl->device, args.device));
    file = tmpl->source;
    source.form = tmpl->form;
    source.launch = tmpl->launch;
    std::vector<std::string> names;
    for (const auto& knob : tmpl->knobs) names.push_back(knob.name);
    for (const auto& [name, value] : knobs)
      if (std::find(names.begin(), names.end(), name) == names.end())
        throw std::runtime_error(fmt::format("--knob {}={}: template \"{}\" has no knob {}{}; its knobs are {}", name, value, tmpl->name, name,
                                             common::did_you_mean(name, names), names.empty() ? "none" : fmt::format("{}", fmt::join(names, ", "))));
    for (const auto& knob : tmpl->knobs) knobs.try_emplace(knob.name, knob.values.front());
    // The template's own rules between knobs, checked before anything is built (the ones over a workload's axes too
    // are the judge's).
    task::Bindings values;
    for (const auto& [name, value] : knobs) values[name] = static_cast<double>(value);
    for (const auto& constraint : tmpl->constraints) {
      const auto variables = constraint.variables();
      if (!std::all_of(variables.begin(), variables.end(), [&](const std::string& v) { return values.count(v) > 0; })) continue;
      if (constraint.evaluate_condition(values)) continue;
      std::vector<std::string> involved;
      for (const auto& v : variables) involved.push_back(fmt::format("{}={}", v, knobs.at(v)));
      throw std::runtime_error(fmt::format("the knobs {} break template \"{}\"'s constraint \"{}\"", fmt::join(involved, " "), tmpl->name,
                                           constraint.text()));
    }
  }
  std::string stem = file.stem().string();
  source.source = judge::read_text_file(file);
  // A SOL-ExecBench solution.json: the source that defines the ABI's entry point is the candidate.
  if (file.extension() == ".json") {
    task::SolutionCandidate solution;
    try {
      solution = task::read_solution(source.source);
    } catch (const task::SolutionError& error) {
      throw std::runtime_error(fmt::format("{} is not a solution KernelArc can judge: {}", file.string(), error.what()));
    }
    if (solution.definition != task.definition.name)
      throw std::runtime_error(fmt::format("{} solves \"{}\", not task {}", file.string(), solution.definition, task.definition.name));
    stem = solution.name;
    if (task::runs_in_oracle(solution)) {
      // A Python solution or a torch extension: the oracle's candidate role runs it; the file itself is the recorded source.
      if (!args.knobs.empty() || !args.flags.empty())
        throw std::runtime_error(fmt::format("{} is a {}: --knob and --flag do not apply (its spec's compile_options do)", file.string(),
                                             task::solution_kind_name(solution.kind)));
      source.solution = std::make_shared<const task::SolutionCandidate>(std::move(solution));
    } else {
      source.source = solution.source;
    }
  }
  source.flags = args.flags;
  source.knobs = knobs;
  std::vector<std::string> knob_text;
  for (const auto& [name, value] : knobs) knob_text.push_back(fmt::format("{}{}", name, value));
  source.name = fmt::format("{}.{}{}{}", task.definition.name, stem, knob_text.empty() ? "" : ".", fmt::join(knob_text, "_"));
  return source;
}

// The machine around the timing, as the verdict read it: null when nothing was timed.
json conditions_json(const judge::CandidateVerdict& verdict) {
  if (!verdict.conditions_before || !verdict.conditions_after) return nullptr;
  return {{"before", judge::to_json(*verdict.conditions_before)}, {"after", judge::to_json(*verdict.conditions_after)},
          {"warnings", verdict.measurement_warnings}};
}

// "machine during timing: load 0.52 -> 0.61 (1-minute average, 2 cores); SM clock 1980 -> 1980 MHz"; nullopt when nothing
// was timed.
std::optional<std::string> conditions_text(const judge::CandidateVerdict& verdict, bool on_gpu) {
  if (!verdict.conditions_before || !verdict.conditions_after) return std::nullopt;
  const auto& before = *verdict.conditions_before;
  const auto& after = *verdict.conditions_after;
  std::string text = "machine during timing: ";
  text += before.load_1min && after.load_1min ? fmt::format("load {:.2f} -> {:.2f} (1-minute average, {} cores)", *before.load_1min,
                                                            *after.load_1min, std::thread::hardware_concurrency())
                                              : "load not readable (no /proc/loadavg)";
  if (on_gpu)
    text += before.sm_clock_mhz && after.sm_clock_mhz ? fmt::format("; SM clock {} -> {} MHz", *before.sm_clock_mhz, *after.sm_clock_mhz)
                                                      : "; SM clock not readable (NVML is not available)";
  return text;
}

void print_table(const task::Task& task, const judge::CandidateVerdict& verdict, const task::DevicePeaks& peaks) {
  fmt::print("{} on {} ({}, peaks: {})\n", verdict.name, task.definition.name, peaks.name, peaks.source);
  if (!verdict.kind.empty()) fmt::print("candidate: {}\n", verdict.kind);
  fmt::print("build: {} in {:.2f} s{}\n", verdict.build.ok ? "ok" : "FAILED", verdict.build.seconds,
             verdict.build.cache_hit ? " (cached)" : "");
  if (!verdict.build.ok) fmt::print("{}\n", verdict.build.diagnostics);
  fmt::print("{:<28} {:<20} {:>12} {:>10} {:>12} {:>7} {:>6}  {}\n", "workload", "status", "median", "spread", "T_sol", "%SOL",
             "score", "reason");
  for (const auto& row : verdict.workloads) {
    std::string median = "-", spread = "-", sol = "-", percent = "-", score = "-";
    if (row.roofline) sol = format_time(row.roofline->seconds * 1e9);
    if (row.timing) {
      median = format_time(row.timing->median_ns);
      spread = format_time(row.timing->spread());
      if (row.roofline && row.timing->median_ns > 0)
        percent = fmt::format("{:.1f}", 100.0 * row.roofline->seconds * 1e9 / row.timing->median_ns);
    }
    if (row.score) score = fmt::format("{:.3f}", *row.score);
    std::string reason = row.reason;
    if (!verdict.build.ok) reason = "see the build diagnostics above";
    if (reason.size() > 160) reason = reason.substr(0, 157) + "...";
    for (auto& c : reason) if (c == '\n') c = ' ';
    fmt::print("{:<28} {:<20} {:>12} {:>10} {:>12} {:>7} {:>6}  {}\n", row.uuid + (row.held_out ? "*" : ""),
               judge::status_name(row.status), median, spread, sol, percent, score, reason);
  }
  const auto passed = std::count_if(verdict.workloads.begin(), verdict.workloads.end(),
                                    [](const judge::WorkloadVerdict& w) { return w.status == judge::Status::passed; });
  fmt::print("{} of {} workloads passed{}", passed, verdict.workloads.size(),
             std::any_of(verdict.workloads.begin(), verdict.workloads.end(), [](const auto& w) { return w.held_out; })
                 ? " (* held out)" : "");
  if (auto mean = verdict.mean_score()) fmt::print("; mean SOL score {:.3f}", *mean);
  fmt::print("; judged in {:.1f} s\n", verdict.judge_seconds);
}

void record(store::Store& store, const task::Task& task, const EvalArguments& args, const judge::Judge& judge,
            const judge::CandidateSource& source, const judge::CandidateVerdict& verdict, std::int64_t& run_id) {
  store.transaction([&] {
    const auto task_id = store.upsert_task({0, task.definition.name, task.directory.string(), task.content_hash, task.definition_json});
    json config = {{"rounds", args.rounds}, {"warmup", args.warmup}, {"iterations", args.iterations},
                   {"timeout_ms", args.timeout_ms}, {"held_out", !args.no_held_out}};
    store::RunRecord run;
    run.task_id = task_id;
    run.kind = "eval";
    run.device = args.device;
    run.seed = judge.seed();
    run.config_json = config.dump();
    run_id = store.begin_run(run);
    engine::record_candidate(store, run_id, source, verdict, {std::nullopt, "user", ""});
    store.finish_run(run_id, verdict.passed() ? "passed" : "failed",
                     json{{"passed", verdict.passed()}, {"judge_seconds", verdict.judge_seconds}, {"conditions", conditions_json(verdict)}}.dump());
  });
}

int run_eval(const EvalArguments& args) {
  const auto device = parse_device(args.device);
  if (!device) {
    fmt::print(stderr, "kernelarc eval: unknown device \"{}\" (expected {})\n", args.device, judge::known_device_names());
    return kExitUsage;
  }
  if (auto why = judge::device_unavailable_reason(args.device)) {
    fmt::print(stderr, "kernelarc eval: no GPU is available for {}: {}\n", args.device, *why);
    return kExitUsage;
  }
  const std::string device_text = device->text();
  const judge::Backend& backend = judge::backend_for(device_text);
  task::Task task;
  judge::CandidateSource source;
  std::optional<store::Store> store;
  const fs::path store_path = args.store.empty() ? default_store_path() : fs::path(args.store);
  try {
    task = load_task_argument(args.task, args.extensions);
    keep_only_workloads(task, args.workloads);
    source = candidate_source(task, args);
    store.emplace(open_store_for_writing(args.store));  // before minutes of judging, not after
  } catch (const std::exception& error) {
    fmt::print(stderr, "kernelarc eval: {}\n", error.what());
    return kExitUsage;
  }
  judge::JudgeOptions options;
  options.use_protocol(backend.protocol(judge::ProtocolUse::evaluation));
  options.rounds = args.rounds;
  options.warmup = args.warmup;
  options.iterations = args.iterations;
  options.call_timeout = std::chrono::milliseconds(args.timeout_ms);
  options.seed = args.seed;
  options.include_held_out = !args.no_held_out;
  options.strict_tolerance = args.strict_tolerance;
  options.time_candidates = !args.correctness_only;
  options.reference = args.reference;
  options.torch_baseline = args.baseline_torch;
  if (args.baseline_torch) {
    // The oracle that runs the PyTorch reference is the one that times it.
    if (args.reference == "native") {
      fmt::print(stderr, "kernelarc eval: --baseline-torch needs the PyTorch reference (not --reference native)\n");
      return kExitUsage;
    }
    options.reference = "python";
  }
  options.device = device_text;
  const auto progress = [&](const std::string& line) {
    if (!args.quiet) fmt::print(stderr, "{}\n", line);
  };
  try {
    const auto peaks = device_peaks(options.device, options.compiler, args.peaks);
    judge::Judge judge(task, options, peaks);
    if (!args.baseline_file.empty()) {
      judge.set_baselines(load_baseline_file(args.baseline_file));
    } else if (!args.baseline_candidate.empty()) {
      EvalArguments baseline_args = args;
      baseline_args.candidate = args.baseline_candidate;
      baseline_args.knobs.clear();
      baseline_args.template_name.clear();
      const auto baseline_source = candidate_source(task, baseline_args);
      progress(fmt::format("timing the baseline {}", baseline_source.name));
      const auto baseline = judge.evaluate(baseline_source, progress);
      std::map<std::string, double> ns;
      for (const auto& row : baseline.workloads)
        if (row.status == judge::Status::passed && row.timing) ns[row.uuid] = row.timing->median_ns;
      if (ns.empty()) progress("the baseline passed no workload, so there is no SOL score");
      judge.set_baselines(ns);
    }
    const auto verdict = judge.evaluate(source, progress);
    std::int64_t run_id = 0;
    std::string store_error;  // the results are printed all the same
    try {
      record(*store, task, args, judge, source, verdict, run_id);
    } catch (const std::exception& error) {
      store_error = error.what();
    }
    if (args.json_output) {
      json out = {{"task", task.definition.name}, {"candidate", source.name}, {"candidate_kind", verdict.kind}, {"device", args.device},
                  {"peaks", {{"name", peaks.name}, {"source", peaks.source}, {"bytes_per_second", peaks.bytes_per_second},
                             {"flops_per_second", peaks.flops_per_second}}},
                  {"seed", std::to_string(judge.seed())}, {"passed", verdict.passed()}, {"judge_seconds", verdict.judge_seconds},
                  {"worker_restarts", verdict.worker_restarts}, {"reused_rounds", verdict.reused_rounds},
                  {"phase_seconds", verdict.phase_seconds}, {"sandbox", verdict.sandbox},
                  {"store", store_path.string()}, {"run_id", run_id > 0 ? json(run_id) : json()},
                  {"build", {{"ok", verdict.build.ok}, {"cache_hit", verdict.build.cache_hit}, {"seconds", verdict.build.seconds},
                             {"cache_key", verdict.build.cache_key}, {"diagnostics", verdict.build.diagnostics}}},
                  {"workloads", json::array()}};
      if (auto mean = verdict.mean_score()) out["mean_score"] = *mean;
      out["conditions"] = conditions_json(verdict);
      for (const auto& row : verdict.workloads) out["workloads"].push_back(engine::workload_json(row));
      if (!store_error.empty()) out["store_error"] = store_error;
      std::cout << out.dump(2) << std::endl;
    } else if (args.csv_output) {
      // One row per workload, the nested timing and roofline flattened into columns.
      json rows = json::array();
      for (const auto& row : verdict.workloads) {
        const json w = engine::workload_json(row);
        json flat = {{"workload", w.at("uuid")}, {"held_out", w.at("held_out")}, {"status", w.at("status")}, {"reason", w.at("reason")},
                     {"baseline_ns", w.value("baseline_ns", json())}, {"score", w.value("score", json())}};
        if (w.contains("timing"))
          for (const char* key : {"median_ns", "min_ns", "q1_ns", "q3_ns"}) flat[key] = w["timing"].value(key, json());
        if (w.contains("roofline"))
          for (const char* key : {"sol_ns", "flops", "bytes", "bound"}) flat[key] = w["roofline"].value(key, json());
        rows.push_back(std::move(flat));
      }
      std::cout << csv_table(rows, {"workload", "held_out", "status", "median_ns", "min_ns", "q1_ns", "q3_ns", "sol_ns", "flops", "bytes", "bound",
                                    "baseline_ns", "score", "reason"})
                << std::flush;
    } else {
      print_table(task, verdict, peaks);
      for (const auto& row : verdict.workloads)
        for (const auto& warning : row.warnings) fmt::print("warning: {}\n", warning);
      if (const auto said = conditions_text(verdict, backend.reads_clock())) fmt::print("{}\n", *said);
      for (const auto& warning : verdict.measurement_warnings) fmt::print("warning: {}\n", warning);
      if (store_error.empty()) fmt::print("recorded as run {} in {}\n", run_id, store_path.string());
    }
    if (!store_error.empty()) {
      fmt::print(stderr, "kernelarc eval: the results above were not recorded in {}: {}\n", store_path.string(), store_error);
      return kExitStore;
    }
    return verdict.passed() ? kExitOk : kExitFailed;
  } catch (const std::exception& error) {
    fmt::print(stderr, "kernelarc eval: {}\n", error.what());
    return kExitUsage;
  }
}

}  // namespace

CLI::App* add_eval_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<EvalArguments>();
  auto* command = app.add_subcommand("eval", "Judge one candidate on every workload of a task; exits 0 only if all pass");
  command->add_option("task", args->task, "A task directory or the name of a built-in task (kernelarc tasks)")->required();
  command->add_option("candidate", args->candidate,
                      "The candidate's source: C++ for the CPU, a full CUDA source (.cu) for a GPU, or a SOL-ExecBench solution.json (its "
                      "kernel in the candidate ABI, as kernelarc export writes it, judged natively; a Python solution, pytorch, triton, "
                      "cute_dsl, cutile, or C++ sources with a torch binding, judged through the oracle process) (default: the task's "
                      "first template for the device)");
  command->add_option("--template", args->template_name, "Judge this template of the task (kernelarc tasks lists them)");
  command->add_option("--device", args->device, judge::known_device_names())->check(device_name())->envname("KERNELARC_DEVICE")->capture_default_str();
  auto* json_flag = command->add_flag("--json", args->json_output, "Print one JSON document on stdout instead of the table");
  command->add_flag("--csv", args->csv_output, "Print CSV, one row per workload (its timing and roofline as columns), instead of the table")
      ->excludes(json_flag);
  command->add_flag("--quiet,-q", args->quiet, "No progress lines on stderr");
  command->add_option("--store", args->store, "The run store (SQLite; default $KERNELARC_STORE or ~/.local/share/kernelarc/runs.db)");
  command->add_option("--knob", args->knobs, "NAME=VALUE, defined for the candidate's build (repeatable)");
  command->add_option("--flag", args->flags, "An extra compiler flag for the candidate (repeatable)");
  auto* baseline_candidate = command->add_option("--baseline-candidate", args->baseline_candidate,
                                                 "Judge this candidate first; its times are T_b for the SOL score");
  auto* baseline_file = command->add_option("--baseline-file", args->baseline_file, "JSON object: workload uuid -> baseline time in ms");
  command->add_flag("--baseline-torch", args->baseline_torch,
                    "T_b from the task's PyTorch reference, timed through the oracle in eager mode and under torch.compile where "
                    "that torch has it (the faster; on a GPU each call's kernel span, as a candidate's), with the judge's flush, "
                    "warm-up and iterations; checks against the PyTorch reference too")
      ->excludes(baseline_candidate)
      ->excludes(baseline_file);
  command->add_option("--rounds", args->rounds, "Correctness rounds per workload, fresh inputs each")->check(whole_number(1))->capture_default_str();
  command->add_option("--warmup", args->warmup, "Untimed calls before timing")->check(whole_number(0))->capture_default_str();
  command->add_option("--iterations", args->iterations, "Timed calls per workload")->check(whole_number(1))->capture_default_str();
  command->add_option("--timeout-ms", args->timeout_ms, "Deadline of one call")->check(whole_number(1))->envname("KERNELARC_TIMEOUT_MS")->capture_default_str();
  command->add_option("--seed", args->seed, "Input seed (default: a fresh secret one)")->envname("KERNELARC_SEED");
  command->add_flag("--no-held-out", args->no_held_out, "Skip the held-out workloads");
  command->add_flag("--strict-tolerance", args->strict_tolerance,
                    "A workload whose tolerance a degenerate answer passes (zeros, a constant, the reference's mean, the reference "
                    "shifted by a row) is INVALID_REFERENCE instead of a warning");
  command->add_option("--workload", args->workloads, "Judge only this workload (by uuid; repeatable)");
  command->add_flag("--correctness-only", args->correctness_only, "Check without timing");
  command->add_option("--extensions", args->extensions, kExtensionsHelp)->check(existing_file());
  command->add_option("--reference", args->reference,
                      "auto (a native reference, else the PyTorch one), native, or python (the task's PyTorch reference, "
                      "run by python/kernelarc_oracle.py with $KERNELARC_PYTHON, default /usr/bin/python3)")
      ->check(one_of({"auto", "native", "python"}))
      ->capture_default_str();
  command->add_option("--cpu-bandwidth", args->peaks.bandwidth_gbps, "CPU peak bandwidth in GB/s (default: calibrated)")->check(number_at_least(0));
  command->add_option("--cpu-gflops", args->peaks.gflops, "CPU peak fp32 GFLOP/s (default: calibrated)")->check(number_at_least(0));
  command->callback([args, &exit_code] { exit_code = run_eval(*args); });
  return command;
}

}  // namespace kernelarc::cli
