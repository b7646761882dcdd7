#include "engine/run.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <vector>

#include "common/hash.h"
#include "common/units.h"
#include "engine/candidate_source.h"
#include "engine/composition.h"
#include "engine/feedback.h"
#include "engine/finalists.h"
#include "engine/journal.h"
#include "engine/lesson.h"
#include "engine/measurement.h"
#include "engine/proposal_queue.h"
#include "engine/recording.h"
#include "engine/run_state.h"
#include "engine/specialisation.h"
#include "judge/backend.h"
#include "task/knob_grid.h"

namespace kernelarc::engine {

using nlohmann::json;

namespace {

constexpr std::size_t kEvidenceEntries = 32;  // board entries an agent reads before each proposal
constexpr const char* kStartHypothesis = "the template's knobs at their first values";
constexpr const char* kRandomStartHypothesis = "a random configuration of the template's knobs (--start random)";
constexpr int kRandomStarts = 16;  // random starting configurations tried before the run gives up
constexpr double kLateFraction = 0.75;  // of the time limit: before any round has ended, past it every round closes at once
constexpr double kEndMargin = 1.5;      // times the longest end of a round so far: less time left than that is late

double seconds_since(std::chrono::steady_clock::time_point began) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
}

void longest(std::optional<double>& so_far, double seconds) { so_far = std::max(so_far.value_or(0.0), seconds); }

// What a later full judgement repeats of the start's `seconds`: not the workers' start and the buffers, and about half of
// the inputs and reference calls (each workload's first round stays in the judge's cache, later rounds may be made
// again: 18 of the start's 66 s of inputs on an H100 gemm_bf16 run, 2026-12-07, where the start's whole 146 s made the
// run's end look 2.6 times as long as it was).
double repeated_seconds(const judge::CandidateVerdict& start, double seconds) {
  const auto phase = [&](const char* name) {
    const auto found = start.phase_seconds.find(name);
    return found == start.phase_seconds.end() ? 0.0 : found->second;
  };
  return std::max(0.0, seconds - phase("workers") - phase("buffers") - 0.5 * (phase("inputs") + phase("reference calls")));
}

}  // namespace

Run::Run(const task::Task& task, RunOptions options, JudgeFunction judge, BrainFactory brains, store::Store& store, ProgressCallback progress)
    : task_(task), options_(std::move(options)), judge_(std::move(judge)), brain_factory_(std::move(brains)), store_(store), progress_(std::move(progress)) {}

Run::~Run() = default;  // the queue stops the brains still answering, so the threads asking them end

void Run::build_ahead(BuildFunction build, unsigned threads) {
  build_ahead_ = std::move(build);
  build_threads_ = threads;
}

judge::CandidateSource Run::source_for(const Knobs& knobs) const { return candidate_source(task_, *template_, knobs, state_->sources); }

ProposalContext Run::context_for(std::size_t index, const Knobs& base, const std::set<Knobs>& taken) const {
  const State& st = *state_;
  const auto& agent = st.summary.agents[index];
  ProposalContext context{base, taken, st.board.relevant(agent.strategy, task_.definition.name, task_.definition.op_type, kEvidenceEntries),
                          "", st.incumbent_times, st.feedback[index]};
  // Only a brain that reads sources needs the text: the knob searches run without a file read per proposal.
  if (st.brains[index]->asynchronous()) context.base_source = source_for(base).source;
  return context;
}

void Run::event(const journal::Event& event) { journal::write(store_, run_id_, event); }

void Run::choose_template() {
  const auto device_name = judge::parse_device(options_.device);
  const std::string device_kind = device_name ? device_name->kind : options_.device;  // a template's device
  for (const auto& tmpl : task_.definition.templates)
    if (options_.template_name.empty() ? (tmpl.device == device_kind && !tmpl.knobs.empty()) : tmpl.name == options_.template_name) {
      searched_ = task::search_space(tmpl);
      template_ = &searched_;
      return;
    }
  throw std::runtime_error(options_.template_name.empty()
                               ? fmt::format("task {} has no {} template with knobs to search", task_.definition.name, device_kind)
                               : fmt::format("task {} has no template named \"{}\"", task_.definition.name, options_.template_name));
}

void Run::deal_strategies(const std::vector<std::string>& strategies, std::uint64_t seed_offset) {
  State& st = *state_;
  st.strategies = strategies;
  st.summary.agents.clear();
  st.brains.clear();
  st.summary.agent_status.resize(static_cast<std::size_t>(options_.agents));
  st.feedback.resize(static_cast<std::size_t>(options_.agents));
  st.failed_in_a_row.resize(static_cast<std::size_t>(options_.agents));
  for (int i = 0; i < options_.agents; ++i) {
    st.summary.agents.push_back({fmt::format("agent-{}", i + 1), strategies[static_cast<std::size_t>(i) % strategies.size()]});
    st.summary.agent_status[static_cast<std::size_t>(i)].name = st.summary.agents.back().name;
    st.summary.agent_status[static_cast<std::size_t>(i)].strategy = st.summary.agents.back().strategy;
    st.brains.push_back(brain_factory_(*template_, st.summary.agents.back().strategy,
                                       common::mix64(options_.seed + seed_offset + static_cast<std::uint64_t>(i))));
  }
}

Decision Run::judge_and_record(const Knobs& knobs, const std::string& proposer, const std::string& strategy, const std::string& hypothesis,
                              const ModelUsage& usage) {
  State& st = *state_;
  const auto number = static_cast<std::int64_t>(st.knobs_of.size());
  const std::optional<std::int64_t> parent =
      st.controller.incumbent() ? std::optional(st.store_id_of[static_cast<std::size_t>(st.controller.incumbent()->candidate_id)]) : std::nullopt;
  const double incumbent_ns = st.controller.incumbent() ? st.controller.incumbent()->time_ns : 0;
  const auto source = source_for(knobs);
  const auto judging = std::chrono::steady_clock::now();
  const auto verdict = judge_(source);
  if (proposer == "start")
    longest(st.start_judge_seconds, repeated_seconds(verdict, seconds_since(judging)));
  else
    longest(st.judge_seconds, seconds_since(judging));
  const Measured measured = measure(number, verdict);
  Decision decision = st.controller.consider(measured);
  std::optional<judge::CandidateVerdict> again;
  std::optional<Measured> measured_again;
  std::optional<journal::PairedRecord> paired;
  if (decision == Decision::measure_again && paired_) {
    if (progress_)
      progress_(fmt::format("  {} looks faster ({}, {} than the incumbent): timing it beside the incumbent", source.name,
                            common::format_time_ns(measured.time_ns), common::speed_ratio(incumbent_ns, measured.time_ns)));
    const auto incumbent_knobs = st.knobs_of[static_cast<std::size_t>(st.controller.incumbent()->candidate_id)];
    paired = pair_up(incumbent_knobs, knobs, number);
    decision = st.controller.confirm_paired(number, paired->outcome);
  } else if (decision == Decision::measure_again) {
    if (progress_)
      progress_(fmt::format("  {} looks faster ({}, {} than the incumbent): measuring it again", source.name, common::format_time_ns(measured.time_ns),
                            common::speed_ratio(incumbent_ns, measured.time_ns)));
    const auto confirming = std::chrono::steady_clock::now();
    again = judge_(source);
    longest(st.confirm_seconds, seconds_since(confirming));
    measured_again = measure(number, *again);
    decision = st.controller.confirm(*measured_again);
  }
  st.tried.insert(knobs);
  st.knobs_of.push_back(knobs);
  ++st.summary.judged;
  if (proposer == "start") st.summary.start = measured, st.start_number = static_cast<std::size_t>(number);
  if (decision == Decision::promoted) ++st.summary.promotions;

  Lesson lesson = lesson_of(hypothesis, decision, measured, measured_again.has_value() || paired.has_value(), incumbent_ns);
  if (paired && paired->outcome == PairedOutcome::failed)
    lesson.lesson = fmt::format("{} failed when timed beside the incumbent: {}", hypothesis, paired->failure.value_or("?"));
  std::vector<std::string> warnings = verdict.measurement_warnings;
  if (again) warnings.insert(warnings.end(), again->measurement_warnings.begin(), again->measurement_warnings.end());
  if (paired) warnings.insert(warnings.end(), paired->warnings.begin(), paired->warnings.end());
  st.summary.measurement_warnings += !warnings.empty();
  // One transaction per candidate: a kill at any moment leaves all of it in the store or none of it.
  std::int64_t id = 0;
  store_.transaction([&] {
    id = record_candidate(store_, run_id_, source, verdict, {parent, proposer, hypothesis});
    if (again) record_measurement(store_, id, *again, "second measurement before promotion");
    journal::Judged judged{number, id, proposer, strategy, knobs, decision, std::nullopt, std::nullopt,
                           verdict.judge_seconds + (again ? again->judge_seconds : 0.0), verdict.phase_seconds, json(), warnings, {}, {}, {}};
    if (knobs.count(kSourceKnob)) judged.source = source.source;
    judged.paired = paired;
    if (!usage.empty()) judged.usage = usage;
    if (verdict.conditions_before && verdict.conditions_after)
      judged.conditions = {{"before", judge::to_json(*verdict.conditions_before)}, {"after", judge::to_json(*verdict.conditions_after)}};
    event(judged);
    if (decision == Decision::first) return;
    if (proposer != run_detail::kScoutAgent) {  // a random configuration is no move a strategy could learn from
      Conclusion conclusion{task_.definition.name, task_.definition.op_type, "all", strategy, hypothesis, lesson.outcome, lesson.effect, lesson.lesson, 0};
      st.board.add(conclusion);
      store_.add_conclusion({0, run_id_, conclusion.task, conclusion.workload_class, conclusion.strategy, conclusion.change,
                             conclusion.outcome, conclusion.effect, conclusion.lesson, ""});
    }
    if (decision == Decision::promoted)
      event(journal::Promoted{id, proposer, incumbent_ns, st.controller.incumbent()->time_ns});
  });
  st.store_id_of.push_back(id);
  if (proposer == "start") st.summary.start_candidate = id;
  if (st.summary.sandbox.is_null() && verdict.sandbox.is_object()) {
    st.summary.sandbox = verdict.sandbox;
    event(journal::Sandbox{verdict.sandbox});
  }
  count_judged(st.summary.agent_status, proposer, decision, lesson.outcome, measured_again ? *measured_again : measured, st.store_id_of);
  for (auto& status : st.summary.agent_status)
    if (status.name == proposer) status.usage += usage;
  if (decision == Decision::first || decision == Decision::promoted) st.incumbent_times = workload_times(task_, verdict);
  for (std::size_t i = 0; i < st.summary.agents.size(); ++i)
    if (st.summary.agents[i].name == proposer) st.feedback[i] = feedback_for(hypothesis, lesson.outcome, measured, verdict, incumbent_ns);
  if (progress_) {
    // A second measurement that kept a faster candidate out says what it saw: its time and its spread decided.
    const std::string second = measured_again ? fmt::format("; measured again {}, spread {:.0f}% against {:.0f}% first",
                                                            common::format_time_ns(measured_again->time_ns), 100 * measured_again->spread,
                                                            100 * measured.spread)
                                              : "";
    // The counter is judged out of the budget; the candidate's number is the store's, as runs, the summary and export say it.
    std::string what = measured.passed ? common::format_time_ns(measured.time_ns) : measured.reason;
    if (measured.passed && incumbent_ns > 0) what += fmt::format(", {} than the incumbent", common::speed_ratio(incumbent_ns, measured.time_ns));
    if (paired) what += "; beside the incumbent: " + (paired->failure ? *paired->failure : paired->result.reason);
    progress_(fmt::format("  [{}/{}] candidate {} by {}: {} ({}{}) {}", st.summary.judged, options_.budget, id, proposer, decision_name(decision),
                          what, second, source.name));
    for (const auto& warning : warnings) progress_(fmt::format("    warning (candidate {}): {}", id, warning));
  }
  tell_snapshot();
  return decision;
}

journal::PairedRecord Run::pair_up(const Knobs& incumbent, const Knobs& challenger, std::int64_t number) {
  journal::PairedRecord record;
  PairedTimes times;
  const auto pairing = std::chrono::steady_clock::now();
  try {
    times = paired_(source_for(incumbent), source_for(challenger));
  } catch (const std::exception& error) {
    times.failure = error.what();
  }
  longest(state_->confirm_seconds, seconds_since(pairing));
  record.failure = times.failure;
  record.seconds = times.seconds;
  record.warnings = times.warnings;
  if (record.failure) {
    record.outcome = PairedOutcome::failed;
    record.result.reason = *record.failure;
    return record;
  }
  PairedOptions paired_options;
  paired_options.noise_floor = options_.controller.min_improvement;
  paired_options.seed = common::mix64(options_.seed ^ static_cast<std::uint64_t>(number));
  record.result = compare_paired(times.samples, paired_options);
  record.outcome = record.result.challenger_wins ? PairedOutcome::won : PairedOutcome::lost;
  return record;
}

void Run::pair_start_with_best() {
  RunSummary& summary = state_->summary;
  if (progress_) progress_(fmt::format("  timing the start (candidate {}) and the best (candidate {}) side by side for the final speed-up",
                                       summary.start_candidate, summary.best_candidate));
  const auto seed_number = static_cast<std::int64_t>(state_->knobs_of.size());  // after every candidate's own
  journal::PairedRecord record = pair_up(state_->knobs_of[state_->start_number], summary.best_knobs, seed_number);
  event(journal::StartPaired{summary.start_candidate, summary.best_candidate, record});
  if (record.outcome != PairedOutcome::failed && record.result.pairs > 0) summary.start_vs_best = record.result;
  if (progress_)
    progress_(summary.start_vs_best ? fmt::format("  side by side: the best takes {:.3f} of the start's time ({})", record.result.ratio, record.result.reason)
                                    : fmt::format("  the side-by-side timing failed ({}): the speed-up is against the start's first time",
                                                  record.failure.value_or(record.result.reason)));
}

void Run::tell_snapshot() {
  if (!snapshot_) return;
  State& st = *state_;
  st.summary.best = st.controller.incumbent();
  st.summary.best_candidate = st.summary.best ? st.store_id_of[static_cast<std::size_t>(st.summary.best->candidate_id)] : 0;
  st.summary.board_size = st.board.entries().size();
  st.summary.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - st.started).count();
  snapshot_(st.summary, options_.budget);
}

RunSummary Run::finish(const std::string& status, const std::string& reason) {
  State& st = *state_;
  discard_in_flight();
  if (status == "finished" && options_.specialise > 1 && st.controller.incumbent()) specialise();
  RunSummary& summary = st.summary;
  summary.run_id = run_id_;
  summary.stop_reason = reason;
  summary.board_size = st.board.entries().size();
  summary.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - st.started).count();
  if (const auto& best = st.controller.incumbent()) {
    summary.best = *best;
    summary.best_candidate = st.store_id_of[static_cast<std::size_t>(best->candidate_id)];
    summary.best_knobs = st.knobs_of[static_cast<std::size_t>(best->candidate_id)];
  }
  // The start was judged first, perhaps on a cooler or quieter machine: judged again now, beside the best, it is what the
  // final speed-up is reported against. Not for a run stopped on request (the user is waiting) or one whose best is the start.
  if (options_.remeasure_start && status == "finished" && summary.best && summary.best_candidate != summary.start_candidate && summary.start.passed) {
    if (paired_) pair_start_with_best();
    else measure_start_again();
  }
  const json result = run_result(summary, options_.budget);
  store_.transaction([&] {
    event(journal::RunFinished{result});
    store_.finish_run(run_id_, status, result.dump());
  });
  if (progress_) progress_(fmt::format("run {} {}: {}", run_id_, status, reason));
  return summary;
}

void Run::specialise() {
  State& st = *state_;
  std::string why;
  std::optional<Specialisation> found;
  try {
    found = specialisation_of(store_, run_id_, task_, *template_, options_.specialise,
                              st.knobs_of[static_cast<std::size_t>(st.controller.incumbent()->candidate_id)], why);
    if (found) source_for(found->knobs);  // a template that cannot be composed says so here, not in the judge
  } catch (const std::exception& error) {
    found.reset();
    why = error.what();
  }
  if (!found || st.tried.count(found->knobs)) {
    if (progress_) progress_(fmt::format("  no composed candidate: {}", found ? "it was judged already" : why));
    return;
  }
  if (progress_)
    progress_(fmt::format("  judging a candidate composed of {} configurations over {} classes of sizes", configuration_count(found->parts),
                          found->parts.size()));
  judge_and_record(found->knobs, "specialise", "", found->hypothesis);
}

void Run::measure_start_again() {
  RunSummary& summary = state_->summary;
  if (progress_) progress_(fmt::format("  measuring the starting candidate {} again for the final speed-up", summary.start_candidate));
  try {
    const auto again = judge_(source_for(state_->knobs_of[state_->start_number]));
    summary.start_again = measure(1, again);
    event(journal::StartMeasuredAgain{summary.start_candidate, *summary.start_again, summary.start.time_ns, again.judge_seconds,
                                      again.measurement_warnings});
    for (const auto& warning : again.measurement_warnings)
      if (progress_) progress_(fmt::format("    warning (the start again): {}", warning));
    if (progress_)
      progress_(summary.start_again->passed
                    ? fmt::format("  the start now takes {} (first {}): the best is {} than the faster of the two",
                                  common::format_time_ns(summary.start_again->time_ns), common::format_time_ns(summary.start.time_ns),
                                  common::speed_ratio(summary.start_ns(), summary.best->time_ns))
                    : fmt::format("  the start failed when judged again ({}): the speed-up is against its first time", summary.start_again->reason));
  } catch (const std::exception& error) {
    if (progress_) progress_(fmt::format("  the start could not be judged again ({}): the speed-up is against its first time", error.what()));
  }
}

RunSummary Run::execute() {
  choose_template();
  std::vector<std::string> strategies = options_.strategies;
  if (strategies.empty()) strategies = strategies_with_knobs(*template_);
  if (strategies.empty() || options_.agents < 1) throw std::runtime_error("a run needs at least one agent and one strategy");
  state_ = std::make_unique<State>(options_);
  deal_strategies(strategies, 0);

  const json config = run_config(options_, strategies, template_->name, task_.extensions_file);
  std::vector<journal::Seat> agents;
  for (const auto& agent : state_->summary.agents) agents.push_back({agent.name, agent.strategy});
  store_.transaction([&] {
    const auto task_id = store_.upsert_task({0, task_.definition.name, task_.directory.string(), task_.content_hash, task_.definition_json});
    run_id_ = store_.begin_run({0, task_id, "run", options_.device, options_.seed, config.dump(), "running", "{}", "", ""});
    event(journal::RunStarted{config, agents});
  });
  state_->summary.run_id = run_id_;
  load_earlier_conclusions();

  if (judge_start() != Decision::first) return finish("failed", "the starting candidate failed: " + state_->summary.start.reason);
  return loop();
}

Decision Run::judge_start() {
  if (progress_)
    progress_(fmt::format("run {}: judging the starting candidate ({}{})", run_id_, template_->name, options_.start == "random" ? ", a random configuration" : ""));
  if (options_.start != "random") return judge_and_record(engine::default_knobs(*template_), "start", "", kStartHypothesis);
  Decision decision = Decision::rejected;
  for (int draw = 0; draw < kRandomStarts && decision != Decision::first; ++draw) {
    const auto knobs = random_knobs(*template_, common::mix64(options_.seed * 1000003u + static_cast<std::uint64_t>(draw)));
    if (!knobs) throw std::runtime_error(fmt::format("template {} has no configuration its constraints allow", template_->name));
    if (state_->tried.count(*knobs)) continue;
    decision = judge_and_record(*knobs, "start", "", kRandomStartHypothesis);
  }
  return decision;
}

void Run::top_up_proposals() {
  State& st = *state_;
  // One pass per proposal held ahead, so that the queue takes the agents in turn.
  const std::size_t ahead = screening() && pool_ ? run_detail::kProposalsAheadWhenScreening : 1;
  for (std::size_t pass = 0; pass < ahead; ++pass) {
    for (std::size_t index = 0; index < st.summary.agents.size(); ++index) {
      if (st.summary.agent_status[index].retired) continue;
      if (st.pending.held_by(index) > pass) continue;
      std::set<Knobs> taken = st.tried;
      taken.merge(st.pending.knobs());
      if (st.brains[index]->asynchronous()) {
        if (pass == 0) ask_in_background(index, taken);  // a model's answer at a time
        continue;
      }
      auto proposal = propose_for(index, taken, pass == 0);
      if (!proposal) continue;
      st.restart_from.reset();
      ProposalQueue::Pending next{st.summary.agents[index], index, std::move(*proposal), {}, {}, {}, {}, {}};
      if (pool_) next.built = pool_->submit(source_for(next.proposal->knobs));
      st.pending.push(std::move(next));
    }
  }
}

void Run::ask_in_background(std::size_t index, const std::set<Knobs>& taken) {
  State& st = *state_;
  const Knobs base = search_base(st.restart_from ? *st.restart_from : st.knobs_of[static_cast<std::size_t>(st.controller.incumbent()->candidate_id)]);
  st.restart_from.reset();
  st.pending.ask(st.summary.agents[index], index, st.brains[index], context_for(index, base, taken));
}

std::optional<std::size_t> Run::next_ready() {
  State& st = *state_;
  const auto i = st.pending.wait_for_next();
  if (!i || st.pending[*i].proposal) return i;
  auto answer = st.pending.collect(*i);
  auto& p = st.pending[*i];
  if (auto& proposal = answer.proposal) {
    if (proposal->source) {
      const auto key = static_cast<std::int64_t>(common::fnv1a64(*proposal->source) >> 1);
      proposal->knobs[kSourceKnob] = key;
      st.sources.emplace(key, *proposal->source);
    }
    if (!st.tried.count(proposal->knobs) && !st.pending.holds(proposal->knobs)) {
      p.proposal = std::move(proposal);
      p.usage = answer.usage;
      st.failed_in_a_row[p.index] = 0;
      return i;
    }
    answer.why = "it proposed a candidate that was judged already (the same source and knobs)";
  }
  const std::size_t index = p.index;
  st.pending.take(*i);
  proposal_failed(index, answer.why, answer.usage);
  return std::nullopt;
}

void Run::proposal_failed(std::size_t index, const std::string& why, const ModelUsage& usage) {
  State& st = *state_;
  auto& status = st.summary.agent_status[index];
  count_no_proposal(status, st.failed_in_a_row[index], usage);
  const int in_a_row = st.failed_in_a_row[index];
  st.feedback[index] = feedback_for_no_proposal(why);
  event(journal::ProposalFailed{status.name, status.strategy, why, in_a_row, status.retired, usage.empty() ? std::nullopt : std::optional(usage)});
  if (progress_)
    progress_(fmt::format("  {} proposed nothing: {}{}", status.name, first_line(why),
                          status.retired ? fmt::format(" ({} in a row: it proposes no more)", in_a_row) : ""));
  tell_snapshot();
}

void Run::discard_in_flight() {
  State& st = *state_;
  std::map<std::string, ModelUsage> spent;
  for (const auto& discarded : st.pending.discard()) {
    st.summary.agent_status[discarded.index].usage += discarded.usage;
    spent[discarded.agent] = discarded.usage;
  }
  if (!spent.empty()) event(journal::ProposalsDiscarded{spent});
}

// From the incumbent (or the backup a plateau restarts from); when that neighbourhood is spent, from each backup,
// fastest first; when those are spent too, the agent takes another strategy (those no agent holds first) and says so.
std::optional<Proposal> Run::propose_for(std::size_t index, const std::set<Knobs>& taken, bool may_reassign) {
  State& st = *state_;
  const auto incumbent_id = st.controller.incumbent()->candidate_id;
  const auto incumbent = search_base(st.knobs_of[static_cast<std::size_t>(incumbent_id)]);
  std::vector<std::pair<Knobs, std::string>> bases;
  // First the fastest screening since the incumbent's promotion, until the full judge has had its say on it (then it is the
  // incumbent or a backup); not after a plateau, whose restart from a backup is the change it forces.
  if (const auto& leader = st.leader; leader && leader->incumbent == incumbent_id && !st.restart_from &&
                                      std::find(st.knobs_of.begin(), st.knobs_of.end(), leader->knobs) == st.knobs_of.end())
    bases.emplace_back(leader->knobs, fmt::format(" [from the fastest screening since the incumbent's promotion, {:.2f}x its time]", leader->ratio));
  bases.emplace_back(st.restart_from ? search_base(*st.restart_from) : incumbent, "");
  for (const auto& backup : st.controller.backups())
    bases.emplace_back(search_base(st.knobs_of[static_cast<std::size_t>(backup.candidate_id)]), fmt::format(" [from backup {}]", st.store_id_of[static_cast<std::size_t>(backup.candidate_id)]));
  // Then the fastest screened configurations: a screening run judges few in full, so its backups alone leave most of a large
  // space unreachable once the incumbent's neighbours are tried.
  for (const auto& [ratio, knobs] : st.screened_bases) bases.emplace_back(knobs, fmt::format(" [from a configuration screened at {:.2f}x the incumbent's time]", ratio));
  const auto from_any_base = [&]() -> std::optional<Proposal> {
    const auto& agent = st.summary.agents[index];
    const auto evidence = st.board.relevant(agent.strategy, task_.definition.name, task_.definition.op_type, kEvidenceEntries);
    for (const auto& [base, note] : bases)
      if (auto proposal = st.brains[index]->propose(ProposalContext{base, taken, evidence, "", st.incumbent_times, st.feedback[index]})) {
        proposal->hypothesis += note;
        return proposal;
      }
    return std::nullopt;
  };
  if (auto proposal = from_any_base()) return proposal;
  if (!may_reassign) return std::nullopt;
  const std::vector<std::string> others = other_strategies(*template_, st.summary.agents, index);
  const std::string before = st.summary.agents[index].strategy;
  auto own_brain = std::move(st.brains[index]);
  for (const auto& strategy : others) {
    st.summary.agents[index].strategy = strategy;
    st.summary.agent_status[index].strategy = strategy;
    st.brains[index] = brain_factory_(*template_, strategy, common::mix64(options_.seed + 31u * static_cast<std::uint64_t>(st.summary.judged) + index));
    if (auto proposal = from_any_base()) {
      event(journal::AgentReassigned{st.summary.agents[index].name, before, strategy, st.summary.judged,
                                     "nothing left to try from the incumbent or any backup"});
      if (progress_) progress_(fmt::format("  {} has nothing left to try as {}: it takes {}", st.summary.agents[index].name, before, strategy));
      return proposal;
    }
  }
  st.summary.agents[index].strategy = st.summary.agent_status[index].strategy = before;  // nothing anywhere: as it was
  st.brains[index] = std::move(own_brain);
  return std::nullopt;
}

// The engine's rules, one judged candidate a turn (docs/DESIGN.md): stop when a limit is reached; every agent keeps a
// proposal in flight; the first one ready in turn order is judged and decided; a plateau forces a change.
RunSummary Run::loop() {
  State& st = *state_;
  if (build_ahead_ && !pool_) pool_ = std::make_unique<CompilePool>(build_ahead_, build_threads_);
  if (screening() && options_.scouts > 0 && st.summary.screened == 0) scout();  // a new run's (or one killed before it screened)
  for (;;) {
    if (stop_requested_ && stop_requested_()) return finish("interrupted", fmt::format("interrupted after {} of {} candidates", st.summary.judged, options_.budget));
    if (st.summary.judged >= options_.budget) return finish("finished", fmt::format("budget of {} candidates spent", options_.budget));
    // The loop ends early enough for the run's end (end_seconds) to finish within the limit, and without screening the
    // next judgement too. Near that, a round closes early: what it found is judged before the run ends, not dropped. Late
    // is when the time left is less than ending a round has taken (kEndMargin times the longest so far); before any round
    // has ended with a full judgement, it is past kLateFraction of the time.
    const bool limited = options_.time_limit.count() > 0;
    const double elapsed = seconds_since(st.started);
    const double until = static_cast<double>(options_.time_limit.count()) - end_seconds();
    if (limited && elapsed + (screening() ? 0.0 : st.judging_seconds()) >= until)
      return finish("finished", fmt::format("time limit of {} s reached", options_.time_limit.count()));
    if (options_.max_cost_usd && st.summary.usage().cost_usd >= *options_.max_cost_usd)
      return finish("finished", fmt::format("cost limit of ${:.2f} reached (${:.4f} spent)", *options_.max_cost_usd, st.summary.usage().cost_usd));
    const bool late = limited && (st.round_end_seconds ? until - elapsed < kEndMargin * *st.round_end_seconds : elapsed >= kLateFraction * until);
    if (screening() && (st.round.size() >= static_cast<std::size_t>(options_.screen_round) || (late && !st.round.empty()))) {
      finish_round();
      continue;
    }
    top_up_proposals();
    if (st.pending.empty() && !st.round.empty()) {  // nothing left to screen: the round ends early, a promotion may open new moves
      finish_round();
      continue;
    }
    if (st.pending.empty()) {
      const bool all_retired = std::all_of(st.summary.agent_status.begin(), st.summary.agent_status.end(), [](const AgentStatus& a) { return a.retired; });
      return finish("finished", all_retired ? fmt::format("every agent gave up after {} proposals in a row that came to nothing", kFailuresBeforeRetiring)
                                            : "every agent has tried every configuration it can reach");
    }
    const auto ready = next_ready();
    if (!ready) continue;
    ProposalQueue::Pending next = st.pending.take(*ready);
    if (next.built.valid()) {
      try {
        next.built.get();
      } catch (const std::exception&) {
        // The judge builds it again and reports why it fails.
      }
    }
    if (screening()) {
      screen_and_record(next.agent, *next.proposal, next.usage);
    } else {
      judge_and_record(next.proposal->knobs, next.agent.name, next.agent.strategy, next.proposal->hypothesis, next.usage);
    }
    if (on_plateau(st.controller.history(), st.since_plateau, options_.plateau)) force_change();
  }
}

double Run::end_seconds() const {
  const State& st = *state_;
  const double judging = st.judging_seconds();
  const double confirming = st.confirm_seconds.value_or(judging);
  const bool remeasured = options_.remeasure_start;
  return (options_.specialise > 1 ? judging + confirming : 0.0) + (remeasured ? (paired_ ? confirming : judging) : 0.0);
}

void Run::force_change() {
  State& st = *state_;
  ++st.summary.plateaus;
  st.since_plateau = st.controller.history().size();
  std::vector<std::string> rotated = st.strategies;
  std::rotate(rotated.begin(), rotated.begin() + 1, rotated.end());
  deal_strategies(rotated, 1000u * static_cast<std::uint64_t>(st.summary.plateaus));
  std::optional<std::int64_t> restart_from;
  if (!st.controller.backups().empty()) {
    const auto backup = st.controller.backups().front().candidate_id;
    st.restart_from = st.knobs_of[static_cast<std::size_t>(backup)];
    restart_from = st.store_id_of[static_cast<std::size_t>(backup)];
  }
  event(journal::Plateau{st.summary.judged, options_.plateau.window, options_.plateau.min_gain, st.since_plateau, rotated, restart_from});
  if (progress_)
    progress_(fmt::format("  plateau after {} candidates: strategies rotated{}", st.summary.judged,
                          st.restart_from ? ", next proposal from the best backup" : ""));
  tell_snapshot();
}

}  // namespace kernelarc::engine
