// kernelarc run TASK: make the task's kernel faster with a team of agents (knob searches or language models), judged,
// recorded in the store.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "brains/brains.h"
#include "brains/llm_brain.h"
#include "cli/commands.h"
#include "cli/option_checks.h"
#include "cli/options.h"
#include "engine/run.h"
#include "judge/build_cache.h"
#include "judge/judge.h"
#include "judge/screening.h"
#include "llm/team_config.h"
#include "report/live_display.h"
#include "report/run_summary.h"
#include "store/store.h"

namespace kernelarc::cli {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct RunArguments {
  std::string task;
  std::int64_t resume = 0;
  bool budget_given = false;  // with --resume: the run's new budget
  std::string device = "cpu";
  std::string template_name;
  int agents = 4;
  std::string strategies;
  int budget = 64;
  std::string time_limit = "0";
  std::string board_capacity = "unlimited";
  std::string brain = "search";
  std::string reference = "auto";
  std::string extensions;
  std::uint64_t seed = 1;
  std::uint64_t judge_seed = 0;  // 0: a fresh secret one
  std::string store;
  std::string baseline_file;
  bool baseline_torch = false;
  // --brain llm: a configuration file, or one endpoint from the flags.
  std::string llm_config, model, endpoint, protocol = "openai", api_key_env;
  std::optional<double> max_cost;
  bool json_output = false;
  bool quiet = false;
  // The judge's protocol; unset: lighter on the CPU, where one call of a large workload takes milliseconds and a
  // candidate judged with the GPU's protocol takes 15 to 30 s on two cores.
  std::optional<int> rounds, warmup, iterations, rechecks;
  std::string start = "default";
  std::string screening = "auto";
  int screen_round = engine::RunOptions{}.screen_round;
  bool checks_on_device = false;  // a GPU's screenings keep inputs and reference on the device and compare there
  int finalists = engine::RunOptions{}.finalists;
  int scouts = engine::RunOptions{}.scouts;
  std::size_t plateau_window = 16;
  double plateau_gain = 0.02;
  std::size_t specialise = 4;
  CpuPeakOverrides peaks;
};

std::atomic<bool> stop_requested{false};

constexpr int kPairedCalls = 20;     // pairs per workload when a challenger and the incumbent are timed side by side
constexpr int kLongerScreening = 4;  // a round's fastest are screened again with this many times the timed calls

// The first Ctrl-C or SIGTERM asks the run to stop after the candidate being judged; the handler then resets itself
// (SA_RESETHAND), so a second one ends the process at once (the run stays resumable).
void request_stop(int) {
  stop_requested = true;
  constexpr char kSaid[] = "\nkernelarc run: stopping after the candidate being judged (Ctrl-C again to stop at once)\n";
  [[maybe_unused]] const auto written = write(STDERR_FILENO, kSaid, sizeof kSaid - 1);
}

void stop_on_signals() {
  struct sigaction action{};
  action.sa_handler = request_stop;
  action.sa_flags = SA_RESETHAND;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

std::optional<std::size_t> parse_capacity(const std::string& text) {
  if (text == "unlimited") return std::nullopt;
  try {
    std::size_t used = 0;
    const long long value = std::stoll(text, &used);
    if (used == text.size() && value >= 0) return static_cast<std::size_t>(value);
  } catch (const std::exception&) {
  }
  throw std::runtime_error(fmt::format("--board-capacity expects 0, a number of entries or unlimited, got \"{}\"", text));
}

std::vector<std::string> parse_strategies(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream list(text);
  for (std::string item; std::getline(list, item, ',');) {
    if (item.empty()) continue;
    const auto& known = task::strategy_names();
    if (std::find(known.begin(), known.end(), item) == known.end())
      throw std::runtime_error(fmt::format("unknown strategy \"{}\" (known: {})", item, fmt::join(known, ", ")));
    out.push_back(item);
  }
  return out;
}

// The team's configuration as JSON text, checked: the file's, or one endpoint made of --model, --endpoint and --protocol.
std::string llm_config_text(const RunArguments& args) {
  if (!args.llm_config.empty()) {
    if (!args.model.empty() || !args.endpoint.empty()) throw std::runtime_error("give --llm-config or --model and --endpoint, not both");
    llm::load_team_config(args.llm_config);  // its errors name the file and the field
    return json::parse(judge::read_text_file(args.llm_config)).dump();
  }
  if (args.model.empty() || args.endpoint.empty())
    throw std::runtime_error("--brain llm needs --model NAME and --endpoint URL, or --llm-config FILE (docs/LLM.md)");
  llm::single_endpoint_config(args.protocol, args.endpoint, args.model, args.api_key_env);  // its errors name the flag
  json endpoint = {{"protocol", args.protocol}, {"base_url", args.endpoint}, {"model", args.model}};
  if (!args.api_key_env.empty()) endpoint["api_key_env"] = args.api_key_env;
  return json{{"endpoints", {{"command-line", endpoint}}}, {"default", "command-line"}}.dump();
}

// What the prompts say about the device: its kind and the peaks T_sol is computed from.
std::string device_facts(const std::string& device, const task::DevicePeaks& peaks) {
  std::string text = fmt::format("{} ({}): memory bandwidth {:.0f} GB/s", device, peaks.name.empty() ? "unnamed" : peaks.name,
                                 peaks.bytes_per_second / 1e9);
  for (const auto& [math, rate] : peaks.flops_per_second) text += fmt::format(", {} {:.1f} TFLOP/s", math, rate / 1e12);
  text += fmt::format(" ({})", peaks.source);
  if (device == "cpu") text += fmt::format("; {} hardware threads", std::thread::hardware_concurrency());
  return text;
}

int run_command(const RunArguments& args) {
  const auto device = parse_device(args.device);
  if (!device) {
    fmt::print(stderr, "kernelarc run: unknown device \"{}\" (expected {})\n", args.device, judge::known_device_names());
    return kExitUsage;
  }
  if (auto why = judge::device_unavailable_reason(args.device)) {
    fmt::print(stderr, "kernelarc run: no GPU is available for {}: {}\n", args.device, *why);
    return kExitUsage;
  }
  task::Task task;
  engine::RunOptions options;
  const fs::path store_path = args.store.empty() ? default_store_path() : fs::path(args.store);
  std::optional<store::Store> store;
  engine::BrainFactory brains;
  try {
    if (args.resume > 0) {
      // A resume reads a store that exists: it never makes an empty one to say there is no such run.
      try {
        store.emplace(store::Store::open_existing(store_path));
      } catch (const store::StoreError&) {
        throw std::runtime_error(fmt::format("there is no run store at {}, so no run {} to resume (give --store, or set KERNELARC_STORE)",
                                             store_path.string(), args.resume));
      }
    } else {
      store.emplace(open_store_for_writing(args.store));
    }
    if (args.resume > 0) {
      // The run's own settings and task, from the store: only the judge's protocol comes from this command line.
      const auto record = store->run(args.resume);
      if (!record || record->kind != "run") throw std::runtime_error(fmt::format("{} has no run {}", store_path.string(), args.resume));
      const auto task_record = store->task(record->task_id);
      options = engine::run_options_from_store(*record);
      task = task::load_task(task_record->path, options.extensions_file.empty() ? std::nullopt : std::optional(options.extensions_file));
      if (task.content_hash != task_record->definition_hash)
        throw std::runtime_error(fmt::format("the task at {} changed since run {} started", task_record->path, args.resume));
    } else {
      task = load_task_argument(args.task, args.extensions);
      options.device = device->text();
      options.agents = args.agents;
      options.strategies = parse_strategies(args.strategies);
      options.budget = args.budget;
      options.time_limit = parse_duration(args.time_limit, "--time-limit");
      options.board_capacity = parse_capacity(args.board_capacity);
      options.seed = args.seed;
      options.judge_seed = args.judge_seed != 0 ? args.judge_seed : judge::fresh_seed();
      options.template_name = args.template_name;
      options.brain = args.brain;
      options.reference = args.reference;
      if (!args.baseline_file.empty()) options.baseline_ns = load_baseline_file(args.baseline_file);
      options.baseline_torch = args.baseline_torch;
      if (options.baseline_torch && options.reference == "native")
        throw std::runtime_error("--baseline-torch needs the PyTorch reference (not --reference native)");
      options.plateau = {args.plateau_window, args.plateau_gain};
      options.start = args.start;
      // On the CPU a candidate costs its compile (seconds), which screening cannot shorten; on a GPU NVRTC takes a
      // fraction of a second and the full judge's protocol is the cost.
      options.screening = args.screening == "on" || (args.screening == "auto" && device->kind != "cpu");
      options.screen_round = args.screen_round;
      options.finalists = args.finalists;
      options.scouts = args.scouts;
      options.specialise = args.specialise;
    }
    if (options.brain == "llm") {
      if (args.resume == 0) options.llm_config = llm_config_text(args);
      const auto team = llm::parse_team_config(options.llm_config, "the run's LLM configuration");
      if (args.max_cost) options.max_cost_usd = args.max_cost;
      else if (args.resume == 0) options.max_cost_usd = team.max_cost_usd;
    } else {
      if (!args.llm_config.empty() || !args.model.empty() || !args.endpoint.empty() || args.max_cost)
        throw std::runtime_error("--llm-config, --model, --endpoint and --max-cost are for --brain llm");
      brains = brains::brain_factory(options.brain);
    }
  } catch (const std::exception& error) {
    fmt::print(stderr, "kernelarc run: {}\n", error.what());
    return kExitUsage;
  }
  // A resumed run judges where it started.
  if (auto why = judge::device_unavailable_reason(options.device)) {
    fmt::print(stderr, "kernelarc run: no GPU is available for {}: {}\n", options.device, *why);
    return kExitUsage;
  }
  const judge::Backend& backend = judge::backend_for(options.device);
  judge::JudgeOptions judge_options;
  judge_options.device = options.device;
  judge_options.use_protocol(backend.protocol(judge::ProtocolUse::search));
  judge_options.rounds = args.rounds.value_or(judge_options.rounds);
  judge_options.warmup = args.warmup.value_or(judge_options.warmup);
  judge_options.iterations = args.iterations.value_or(judge_options.iterations);
  judge_options.rechecks = args.rechecks.value_or(judge_options.rechecks);
  judge_options.seed = options.judge_seed;
  judge_options.reference = options.baseline_torch ? "python" : options.reference;  // the oracle that checks is the one that times
  judge_options.torch_baseline = options.baseline_torch;
  const std::string title = fmt::format("{} on {}", task.definition.name, options.device);
  report::LiveDisplay display(stderr, report::LiveDisplay::is_terminal(stderr), title);
  const auto progress = [&](const std::string& line) {
    if (!args.quiet) display.line(line);
  };
  try {
    const auto peaks = device_peaks(options.device, judge_options.compiler, args.peaks);
    if (options.brain == "llm") brains = brains::llm_brain_factory(llm::parse_team_config(options.llm_config, "the run's LLM configuration"), task, device_facts(options.device, peaks));
    judge::Judge judge(task, judge_options, peaks);
    judge.set_baselines(options.baseline_ns);
    engine::Run run(task, options, [&](const judge::CandidateSource& source) { return judge.evaluate(source); }, brains, *store, progress);
    // Screening: the judge's own protocol, lighter (judge/screening.h), on the visible workloads; a longer one for a round's fastest.
    judge::JudgeOptions screen_options = judge::screening_options(judge_options);
    screen_options.include_held_out = false;
    screen_options.screen_on_device = args.checks_on_device;
    judge::Screener quick(task, screen_options, peaks);
    judge::Screener longer(task, judge::screening_options(screen_options, kLongerScreening * screen_options.iterations), peaks);
    quick.share_rounds_with(judge);
    longer.share_rounds_with(judge);
    run.screen_with([&](const judge::CandidateSource& source, int fidelity) { return (fidelity == 0 ? quick : longer).screen(source); });
    // A promotion and the final speed-up: the two candidates timed interleaved by the judge (Judge::time_paired).
    run.confirm_paired([&](const judge::CandidateSource& incumbent, const judge::CandidateSource& challenger) {
      const auto timing = judge.time_paired(incumbent, challenger, kPairedCalls);
      engine::PairedTimes times{timing.failure, {}, timing.warnings, timing.seconds};
      if (timing.failure) return times;
      std::vector<std::vector<engine::PairedSample>> by_workload;
      for (const auto& workload : timing.workloads) {
        auto& pairs = by_workload.emplace_back();
        for (std::size_t i = 0; i < workload.first_ns.size() && i < workload.second_ns.size(); ++i)
          pairs.push_back({workload.first_ns[i], workload.second_ns[i]});
      }
      times.samples = engine::pairs_over_workloads(by_workload);
      return times;
    });
    // On a GPU the compilers take the host's cores while the device is timed; on the CPU they would disturb the timing.
    if (backend.builds_while_timing()) run.build_ahead([&judge](const judge::CandidateSource& source) { judge.build(source); });
    if (!args.quiet) run.on_snapshot([&](const engine::RunSummary& so_far, int budget) { display.update(so_far, budget); });
    run.stop_when([] { return stop_requested.load(); });
    stop_on_signals();
    engine::RunSummary summary;
    try {
      summary = args.resume > 0 ? run.resume(args.resume, args.budget_given ? std::optional(args.budget) : std::nullopt) : run.execute();
    } catch (const store::StoreError& error) {
      // A full disk mid-run: each candidate is written in one transaction, so what was recorded is whole.
      display.line(fmt::format("kernelarc run: the run store {} could not be written: {}", store_path.string(), error.what()));
      display.line("  The run stopped there. Everything it recorded before is kept, each candidate with its verdict and conclusion.");
      if (run.id() > 0)
        display.line(fmt::format("  Free some space (or move the store), then continue with: kernelarc run --resume {} --store {}", run.id(),
                                 store_path.string()));
      return kExitStore;
    }
    display.close();  // its last state stays on the screen above the summary
    if (args.json_output) {
      json out = report::summary_json(summary);
      out["task"] = task.definition.name;
      out["device"] = options.device;
      out["judge_seed"] = options.judge_seed;
      out["store"] = store_path.string();
      std::cout << out.dump(2) << std::endl;
    } else {
      fmt::print("{}", report::summary_table(title, summary));
      fmt::print("  recorded as run {} in {} (kernelarc export --run {} writes its best kernel)\n", summary.run_id, store_path.string(),
                 summary.run_id);
    }
    if (stop_requested) {
      fmt::print(stderr, "kernelarc run: run {} interrupted after {} candidates; continue it with: kernelarc run --resume {} --store {}\n",
                 summary.run_id, summary.judged, summary.run_id, store_path.string());
      return kExitInterrupted;
    }
    return summary.best ? kExitOk : kExitFailed;
  } catch (const std::exception& error) {
    fmt::print(stderr, "kernelarc run: {}\n", error.what());
    return kExitUsage;
  }
}

}  // namespace

CLI::App* add_run_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<RunArguments>();
  auto* command = app.add_subcommand("run", "Make a task's kernel faster with a team of agents; every candidate judged and recorded");
  auto* task_option = command->add_option("task", args->task, "A task directory or the name of a built-in task (kernelarc tasks)");
  auto* resume_option = command->add_option("--resume", args->resume, "Continue run RUN_ID of the store where it stopped (its own settings)")
                            ->check(whole_number(1, std::numeric_limits<std::int64_t>::max()));
  task_option->excludes(resume_option);
  command->add_option("--device", args->device, judge::known_device_names())->check(device_name())->envname("KERNELARC_DEVICE")->capture_default_str();
  command->add_option("--template", args->template_name, "The template to search (default: the first with knobs for the device)");
  command->add_option("--agents", args->agents, "Agents, each with a strategy")->check(whole_number(1))->capture_default_str();
  command->add_option("--strategies", args->strategies, "Comma-separated strategies dealt to the agents (default: those with knobs)");
  command->add_option("--budget", args->budget, "Candidates to judge, the starting one included (with --resume: the run's new budget, to give a finished run more)")->check(whole_number(1))->capture_default_str();
  command->add_option("--time-limit", args->time_limit, "Stop after this long (600, 90s, 15m, 2h; 0: no limit)")->capture_default_str();
  command->add_option("--board-capacity", args->board_capacity, "Conclusions kept on the board: 0, K or unlimited")->capture_default_str();
  command->add_option("--specialise", args->specialise,
                      "At the end, judge a candidate composed of up to K configurations, each best on a class of workload sizes, "
                      "that picks one by the shapes at launch (1: none)")
      ->check(whole_number(1, 16))
      ->envname("KERNELARC_SPECIALISE")
      ->capture_default_str();
  command->add_option("--brain", args->brain, "search (the built-in knob search), random (uniform samples, a control) or llm (language models)")
      ->check(one_of({"search", "random", "llm"}))
      ->capture_default_str();
  auto* extensions_option = command->add_option("--extensions", args->extensions, kExtensionsHelp)->check(existing_file());
  extensions_option->excludes(resume_option);
  command->add_option("--reference", args->reference,
                      "auto (a native reference, else the PyTorch one), native, or python (the task's PyTorch reference through "
                      "python/kernelarc_oracle.py): what candidates are checked against; a resumed run keeps its own")
      ->check(one_of({"auto", "native", "python"}))
      ->capture_default_str();
  command->add_option("--llm-config", args->llm_config, "--brain llm: the team's endpoints, models and prices (JSON; docs/LLM.md)");
  command->add_option("--model", args->model, "--brain llm: the model every agent asks");
  command->add_option("--endpoint", args->endpoint, "--brain llm: its base URL (OpenAI: http://host:8000/v1; Anthropic: https://api.anthropic.com)");
  command->add_option("--protocol", args->protocol, "--brain llm: openai (chat completions) or anthropic (Messages)")
      ->check(one_of({"openai", "anthropic"}))
      ->capture_default_str();
  command->add_option("--api-key-env", args->api_key_env, "--brain llm: the environment variable that holds the key (never stored)");
  command->add_option("--max-cost", args->max_cost, "--brain llm: stop once the models cost this many US dollars")->check(number_at_least(0));
  command->add_option("--seed", args->seed, "Seed of the agents")->envname("KERNELARC_SEED")->capture_default_str();
  command->add_option("--judge-seed", args->judge_seed,
                      "Seed of the judge's inputs (default: a fresh secret one per run, recorded in the store, so answers recorded in "
                      "one run cannot be replayed in the next; give the recorded one to replay a run's inputs on purpose)")
      ->envname("KERNELARC_JUDGE_SEED");
  command->add_option("--store", args->store, "The run store (default $KERNELARC_STORE or ~/.local/share/kernelarc/runs.db)");
  auto* baseline_file = command->add_option("--baseline-file", args->baseline_file, "JSON object: workload uuid -> T_b in ms, for SOL scores (kept with the run)");
  command->add_flag("--baseline-torch", args->baseline_torch,
                    "T_b from the task's PyTorch reference through the oracle, as for eval (eager and torch.compile, the faster), "
                    "measured at the first candidate and kept in the cache folder, so a resumed run scores against the same T_b; "
                    "checks against the PyTorch reference")
      ->excludes(baseline_file);
  command->add_flag("--json", args->json_output, "Print the summary as JSON");
  command->add_flag("--quiet,-q", args->quiet, "No progress lines on stderr");
  command->add_option("--rounds", args->rounds, fmt::format("Correctness rounds per workload (default: {})", search_protocol_defaults(&judge::JudgeProtocol::rounds)))->check(whole_number(1));
  command->add_option("--warmup", args->warmup, fmt::format("Untimed calls before timing (default: {})", search_protocol_defaults(&judge::JudgeProtocol::warmup)))->check(whole_number(0));
  command->add_option("--iterations", args->iterations, fmt::format("Timed calls per workload (default: {})", search_protocol_defaults(&judge::JudgeProtocol::iterations)))->check(whole_number(1));
  command->add_option("--rechecks", args->rechecks, fmt::format("Timed calls whose outputs are checked again (default: {})", search_protocol_defaults(&judge::JudgeProtocol::rechecks)))
      ->check(whole_number(0));
  command->add_option("--start", args->start, "default (the template's first values) or random (a configuration drawn with --seed, redrawn while it fails)")
      ->check(one_of({"default", "random"}))
      ->capture_default_str();
  command->add_option("--screening", args->screening,
                      "on: proposals are screened (one correctness round, a few timed calls), each round's fastest screened again "
                      "longer and the fastest of those judged in full; off: every proposal judged in full; auto: on for a GPU")
      ->check(one_of({"auto", "on", "off"}))
      ->capture_default_str();
  command->add_flag("--checks-on-device", args->checks_on_device,
                    "On a GPU, screenings of kernel-only candidates keep each workload's inputs and reference outputs on the device "
                    "and compare there, instead of bringing every output back to the host (experimental: see docs/JUDGE.md)");
  command->add_option("--screen-round", args->screen_round, "Proposals screened per round before the fastest go on")->check(whole_number(1))->capture_default_str();
  command->add_option("--finalists", args->finalists, "At most this many of a round judged in full")->check(whole_number(1))->capture_default_str();
  command->add_option("--scouts", args->scouts, "Random configurations screened as a screening run's first round (0: none)")
      ->check(whole_number(0))
      ->capture_default_str();
  command->add_option("--plateau-window", args->plateau_window, "Judged candidates a plateau is judged over")->check(whole_number(1))->capture_default_str();
  command->add_option("--plateau-gain", args->plateau_gain, "Improvement (fraction) the window must bring")->check(number_at_least(0))->capture_default_str();
  command->add_option("--cpu-bandwidth", args->peaks.bandwidth_gbps, "CPU peak bandwidth in GB/s (default: calibrated)")->check(number_at_least(0));
  command->add_option("--cpu-gflops", args->peaks.gflops, "CPU peak fp32 GFLOP/s (default: calibrated)")->check(number_at_least(0));
  command->parse_complete_callback([args, task_option, resume_option] {
    if (task_option->count() == 0 && resume_option->count() == 0) throw CLI::RequiredError("TASK or --resume RUN_ID");
  });
  command->callback([args, &exit_code, command] {
    args->budget_given = command->get_option("--budget")->count() > 0;
    exit_code = run_command(*args);
  });
  return command;
}

}  // namespace kernelarc::cli
