#include "engine/run.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "common/hash.h"
#include "engine/recording.h"
#include "judge/build_cache.h"

namespace kernelarc::engine {

using nlohmann::json;

namespace {

std::string first_line(const std::string& text) {
  const auto end = text.find('\n');
  std::string line = text.substr(0, end);
  return line.size() > 160 ? line.substr(0, 157) + "..." : line;
}

}  // namespace

Run::Run(const task::Task& task, RunOptions options, JudgeFunction judge, store::Store& store, ProgressCallback progress)
    : task_(task), options_(std::move(options)), judge_(std::move(judge)), store_(store), progress_(std::move(progress)) {}

Measured Run::measure(std::int64_t candidate_id, const judge::CandidateVerdict& verdict) {
  Measured measured;
  measured.candidate_id = candidate_id;
  measured.passed = verdict.passed();
  double log_sum = 0;
  int timed = 0;
  std::vector<double> spreads;
  for (const auto& row : verdict.workloads) {
    if (row.status != judge::Status::passed && measured.reason.empty())
      measured.reason = fmt::format("{} on {}: {}", judge::status_name(row.status), row.uuid, first_line(row.reason));
    if (row.held_out || !row.timing || row.timing->median_ns <= 0) continue;
    log_sum += std::log(row.timing->median_ns);
    spreads.push_back(row.timing->spread() / row.timing->median_ns);
    ++timed;
  }
  // The median workload's relative spread: the largest would let the noisiest tiny workload veto every promotion.
  if (!spreads.empty()) {
    std::nth_element(spreads.begin(), spreads.begin() + static_cast<std::ptrdiff_t>(spreads.size() / 2), spreads.end());
    measured.spread = spreads[spreads.size() / 2];
  }
  if (!verdict.build.ok && measured.reason.empty()) measured.reason = "COMPILE_ERROR: " + first_line(verdict.build.diagnostics);
  measured.time_ns = timed ? std::exp(log_sum / timed) : 0;
  if (measured.passed && timed == 0) measured.passed = false, measured.reason = "no workload was timed";
  return measured;
}

judge::CandidateSource Run::source_for(const Knobs& knobs) const {
  judge::CandidateSource source;
  source.source = judge::read_text_file(template_->source);
  source.knobs = knobs;
  source.form = template_->form;
  source.launch = template_->launch;
  std::string text;
  for (const auto& [name, value] : knobs) text += fmt::format("{}{}{}", text.empty() ? "" : "_", name, value);
  source.name = fmt::format("{}.{}.{}", task_.definition.name, template_->name, text);
  return source;
}

std::int64_t Run::record(const judge::CandidateSource& source, const judge::CandidateVerdict& verdict, std::optional<std::int64_t> parent,
                         const std::string& proposer, const std::string& hypothesis) {
  std::int64_t id = 0;
  store_.transaction([&] { id = record_candidate(store_, run_id_, source, verdict, {parent, proposer, hypothesis}); });
  return id;
}

void Run::event(const std::string& kind, const json& payload) {
  store_.add_event({0, run_id_, kind, payload.dump(), ""});
}

RunSummary Run::execute() {
  const auto say = [&](const std::string& line) {
    if (progress_) progress_(line);
  };
  const std::string device_kind = options_.device == "cpu" ? "cpu" : "cuda";
  for (const auto& tmpl : task_.definition.templates)
    if (options_.template_name.empty() ? (tmpl.device == device_kind && !tmpl.knobs.empty()) : tmpl.name == options_.template_name) {
      template_ = &tmpl;
      break;
    }
  if (!template_)
    throw std::runtime_error(options_.template_name.empty()
                                 ? fmt::format("task {} has no {} template with knobs to search", task_.definition.name, device_kind)
                                 : fmt::format("task {} has no template named \"{}\"", task_.definition.name, options_.template_name));
  std::vector<std::string> strategies = options_.strategies;
  if (strategies.empty())
    for (const auto& name : task::strategy_names())
      if (std::any_of(template_->knobs.begin(), template_->knobs.end(), [&](const task::Knob& k) { return k.strategy == name; }))
        strategies.push_back(name);
  if (strategies.empty() || options_.agents < 1) throw std::runtime_error("a run needs at least one agent and one strategy");

  RunSummary summary;
  std::vector<SearchBrain> brains;
  for (int i = 0; i < options_.agents; ++i) {
    summary.agents.push_back({fmt::format("agent-{}", i + 1), strategies[static_cast<std::size_t>(i) % strategies.size()]});
    brains.emplace_back(*template_, summary.agents.back().strategy, common::mix64(options_.seed + static_cast<std::uint64_t>(i)));
  }

  const json config = {{"device", options_.device}, {"agents", options_.agents}, {"strategies", strategies}, {"budget", options_.budget},
                       {"time_limit_s", options_.time_limit.count()}, {"template", template_->name},
                       {"board_capacity", options_.board_capacity ? json(*options_.board_capacity) : json("unlimited")},
                       {"plateau", {{"window", options_.plateau.window}, {"min_gain", options_.plateau.min_gain}}}};
  store_.transaction([&] {
    const auto task_id = store_.upsert_task({0, task_.definition.name, task_.directory.string(), task_.content_hash, task_.definition_json});
    run_id_ = store_.begin_run({0, task_id, "run", options_.device, options_.seed, config.dump(), "running", "{}", "", ""});
  });
  summary.run_id = run_id_;
  json agents_json = json::array();
  for (const auto& agent : summary.agents) agents_json.push_back({{"name", agent.name}, {"strategy", agent.strategy}});
  event("run_started", {{"config", config}, {"agents", agents_json}});

  Controller controller(options_.controller);
  Board board(options_.board_capacity);
  std::map<std::int64_t, Knobs> knobs_of;
  std::set<Knobs> tried;
  const auto started = std::chrono::steady_clock::now();
  const auto finish = [&](const std::string& status, const std::string& reason) {
    summary.stop_reason = reason;
    if (const auto& best = controller.incumbent()) summary.best = *best, summary.best_knobs = knobs_of[best->candidate_id];
    const json result = {{"stop_reason", reason}, {"judged", summary.judged}, {"promotions", summary.promotions},
                         {"plateaus", summary.plateaus}, {"start_ns", summary.start.time_ns},
                         {"best_ns", summary.best ? json(summary.best->time_ns) : json()},
                         {"best_candidate", summary.best ? json(summary.best->candidate_id) : json()}, {"best_knobs", summary.best_knobs}};
    event("run_finished", result);
    store_.finish_run(run_id_, status, result.dump());
    say(fmt::format("run {} {}: {}", run_id_, status, reason));
    return summary;
  };

  // The starting candidate: the template's defaults.
  const Knobs start = SearchBrain::defaults(*template_);
  tried.insert(start);
  say(fmt::format("judging the starting candidate ({})", template_->name));
  const auto first = judge_(source_for(start));
  const auto first_id = record(source_for(start), first, std::nullopt, "start", "the template's knobs at their first values");
  knobs_of[first_id] = start;
  summary.judged = 1;
  summary.start = measure(first_id, first);
  if (controller.consider(summary.start) != Verdict::first) return finish("failed", "the starting candidate failed: " + summary.start.reason);
  say(fmt::format("start: {:.2f} us", summary.start.time_ns / 1e3));

  std::size_t since_plateau = 0, turn = 0, idle = 0;
  std::optional<Knobs> restart_from;
  for (;;) {
    if (summary.judged >= options_.budget) return finish("finished", fmt::format("budget of {} candidates spent", options_.budget));
    if (options_.time_limit.count() > 0 && std::chrono::steady_clock::now() - started >= options_.time_limit)
      return finish("finished", fmt::format("time limit of {} s reached", options_.time_limit.count()));
    const std::size_t index = turn++ % summary.agents.size();
    const Agent& agent = summary.agents[index];
    const std::int64_t parent = controller.incumbent()->candidate_id;
    const Knobs base = restart_from ? *restart_from : knobs_of[parent];
    const auto proposal = brains[index].propose(base, tried);
    restart_from.reset();
    if (!proposal) {
      if (++idle >= summary.agents.size()) return finish("finished", "every agent has tried every configuration it can reach");
      continue;
    }
    idle = 0;
    tried.insert(proposal->knobs);
    const auto source = source_for(proposal->knobs);
    const auto verdict = judge_(source);
    ++summary.judged;
    const auto id = record(source, verdict, parent, agent.name, proposal->hypothesis);
    knobs_of[id] = proposal->knobs;
    const Measured measured = measure(id, verdict);
    const double incumbent_ns = controller.incumbent()->time_ns;
    Verdict decision = controller.consider(measured);
    const bool measured_twice = decision == Verdict::measure_again;
    if (measured_twice) {
      say(fmt::format("  {} looks faster ({:.2f} us): measuring it again", source.name, measured.time_ns / 1e3));
      const auto again = judge_(source);
      store_.transaction([&] { record_measurement(store_, id, again, "second measurement before promotion"); });
      decision = controller.confirm(measure(id, again));
    }
    const double effect = measured.passed && incumbent_ns > 0 ? (incumbent_ns - measured.time_ns) / incumbent_ns : 0;
    std::string outcome = verdict_name(decision), lesson;
    if (decision == Verdict::rejected) {
      outcome = "rejected: " + measured.reason.substr(0, measured.reason.find(' '));
      lesson = fmt::format("{} fails: {}", proposal->hypothesis, measured.reason);
    } else if (decision == Verdict::promoted) {
      ++summary.promotions;
      lesson = fmt::format("{} is {:.1f}% faster: keep it", proposal->hypothesis, 100 * effect);
      event("promoted", {{"candidate", id}, {"agent", agent.name}, {"from_ns", incumbent_ns}, {"to_ns", controller.incumbent()->time_ns}});
    } else if (measured_twice) {
      lesson = fmt::format("{} was {:.1f}% faster once, not when measured again: noise", proposal->hypothesis, 100 * effect);
    } else {
      lesson = fmt::format("{} is correct but {:+.1f}% (not faster beyond the noise)", proposal->hypothesis, 100 * effect);
    }
    Conclusion conclusion{task_.definition.name, task_.definition.op_type, "all", agent.strategy, proposal->hypothesis, outcome, effect, lesson, 0};
    board.add(conclusion);
    store_.add_conclusion({0, run_id_, conclusion.task, conclusion.workload_class, conclusion.strategy, conclusion.change,
                           conclusion.outcome, conclusion.effect, conclusion.lesson, ""});
    event("judged", {{"candidate", id}, {"agent", agent.name}, {"strategy", agent.strategy}, {"decision", verdict_name(decision)},
                     {"time_ns", measured.time_ns}, {"knobs", proposal->knobs}});
    say(fmt::format("  [{}/{}] {} {}: {} ({})", summary.judged, options_.budget, agent.name, source.name, verdict_name(decision),
                    measured.passed ? fmt::format("{:.2f} us", measured.time_ns / 1e3) : measured.reason));

    if (on_plateau(controller.history(), since_plateau, options_.plateau)) {
      // A forced change: every agent takes the next agent's strategy, and the next proposal starts from the best backup.
      ++summary.plateaus;
      since_plateau = controller.history().size();
      std::rotate(strategies.begin(), strategies.begin() + 1, strategies.end());
      brains.clear();
      for (std::size_t i = 0; i < summary.agents.size(); ++i) {
        summary.agents[i].strategy = strategies[i % strategies.size()];
        brains.emplace_back(*template_, summary.agents[i].strategy,
                            common::mix64(options_.seed + 1000 * static_cast<std::uint64_t>(summary.plateaus) + i));
      }
      json action = {{"strategies_rotated", true}};
      if (!controller.backups().empty()) {
        restart_from = knobs_of[controller.backups().front().candidate_id];
        action["restart_from"] = controller.backups().front().candidate_id;
      }
      event("plateau", {{"judged", summary.judged}, {"window", options_.plateau.window}, {"min_gain", options_.plateau.min_gain},
                        {"action", action}});
      say(fmt::format("  plateau after {} candidates: strategies rotated{}", summary.judged,
                      restart_from ? ", next proposal from the best backup" : ""));
    }
  }
}

}  // namespace kernelarc::engine
