// Run's screening rounds (issue 25): each proposal screened against the incumbent's screening of the round, the round's
// faster moves screened together, the fastest quarter screened longer, the finalists judged in full.
#include "engine/run.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "common/hash.h"
#include "common/units.h"
#include "engine/brain.h"
#include "engine/candidate_source.h"
#include "engine/feedback.h"
#include "engine/finalists.h"
#include "engine/journal.h"
#include "engine/lesson.h"
#include "engine/recording.h"
#include "engine/run_state.h"

namespace kernelarc::engine {

using nlohmann::json;
using run_detail::kCombineAgent;
using run_detail::kCombineStrategy;
using run_detail::kIncumbentAgent;
using run_detail::kScoutAgent;
using run_detail::kScoutStrategy;

namespace {

// Why a screening dropped a candidate: the status and reason of its first workload that failed.
std::string screening_failure(const judge::Screening& screening) {
  for (const auto& row : screening.workloads)
    if (row.status && *row.status != judge::Status::passed) return fmt::format("{} {}", judge::status_name(*row.status), row.reason);
  return screening.build.ok ? std::string(judge::screening_outcome_name(screening.outcome)) : "COMPILE_ERROR " + first_line(screening.build.diagnostics);
}

}  // namespace

std::optional<double> Run::screen_once(const Knobs& knobs, int fidelity, const std::string& agent, const std::string& strategy,
                                      const std::string& hypothesis, std::optional<double> incumbent_ns, const ModelUsage& usage,
                                      std::string* failure) {
  State& st = *state_;
  const auto source = source_for(knobs);
  judge::Screening screening;
  try {
    screening = screen_(source, fidelity);
  } catch (const std::exception& error) {  // the screener's own trouble: this candidate is not ranked, the run goes on
    screening.outcome = judge::ScreeningOutcome::failed;
    screening.build.ok = true;
    screening.workloads.push_back({"", false, judge::Status::runtime_error, error.what(), std::nullopt, std::nullopt});
  }
  const auto time = screening.geomean_ns(true);  // held-out workloads never rank
  journal::Screened screened{agent, strategy, hypothesis, knobs, fidelity, std::string(judge::screening_outcome_name(screening.outcome)),
                             time ? "" : screening_failure(screening), time, {}, incumbent_ns, screening.seconds, std::nullopt, std::nullopt,
                             screening.phase_seconds};
  for (const auto& row : screening.workloads)
    if (row.timing && !row.held_out) screened.workload_ns[row.uuid] = row.timing->median_ns;
  if (knobs.count(kSourceKnob)) screened.source = source.source;
  if (!usage.empty()) screened.usage = usage;
  // A proposal's first screening teaches the board; the longer ones and the incumbent's own only rank, a scout's only
  // gives a base to search from.
  const bool first = fidelity == 0 && agent != kIncumbentAgent;
  const bool teaches = first && agent != kScoutAgent;
  Conclusion conclusion{task_.definition.name, task_.definition.op_type, "all", strategy, hypothesis, "", 0, "", 0};
  if (first && time && incumbent_ns && *incumbent_ns > 0)
    st.note_screened(*time / *incumbent_ns, knobs, st.controller.incumbent()->candidate_id, options_.controller.min_improvement);
  if (teaches) {
    if (!time) {
      conclusion.outcome = "rejected: " + screened.reason.substr(0, screened.reason.find(' '));
      conclusion.lesson = fmt::format("{} fails when screened: {}", hypothesis, first_line(screened.reason));
    } else {
      conclusion.effect = incumbent_ns ? (*incumbent_ns - *time) / *incumbent_ns : 0;
      conclusion.outcome = *time < incumbent_ns.value_or(*time) ? "screened: faster" : "screened: not faster";
      conclusion.lesson = incumbent_ns ? fmt::format("{} screened {} than the incumbent", hypothesis, common::effect_ratio(conclusion.effect))
                                       : fmt::format("{} screened at {}", hypothesis, common::format_time_ns(*time));
    }
  }
  store_.transaction([&] {
    event(screened);
    if (!teaches) return;
    st.board.add(conclusion);
    store_.add_conclusion({0, run_id_, conclusion.task, conclusion.workload_class, conclusion.strategy, conclusion.change, conclusion.outcome,
                           conclusion.effect, conclusion.lesson, ""});
  });
  ++st.summary.screened;
  for (std::size_t i = 0; i < st.summary.agents.size(); ++i) {
    if (st.summary.agents[i].name != agent) continue;
    if (fidelity == 0) ++st.summary.agent_status[i].screened;
    st.summary.agent_status[i].usage += usage;
    if (teaches) st.feedback[i] = fmt::format("Your last proposal ({}) was screened: {}.", hypothesis, conclusion.lesson);
  }
  if (progress_) {
    std::string what = time ? common::format_time_ns(*time) : first_line(screened.reason);
    if (time && incumbent_ns) what += fmt::format(", {} than the incumbent's screening", common::speed_ratio(*incumbent_ns, *time));
    progress_(fmt::format("  screened{} by {}: {} {}", fidelity > 0 ? " longer" : "", agent, what, source.name));
  }
  if (failure) *failure = screened.reason;
  return time;
}

void Run::screen_and_record(const Agent& agent, const Proposal& proposal, const ModelUsage& usage) {
  State& st = *state_;
  if (!st.round_reference) {  // the incumbent screened first: what the round's proposals are ranked against
    const auto id = st.controller.incumbent()->candidate_id;
    const auto now = std::chrono::steady_clock::now();
    const auto& last = st.last_reference;
    if (last && last->candidate == id && now - last->at < run_detail::kReferenceFresh) {
      st.round_reference = last->time_ns;
    } else {
      const auto incumbent = st.knobs_of[static_cast<std::size_t>(id)];
      st.round_reference = screen_once(incumbent, 0, kIncumbentAgent, "", "the incumbent, the round's reference", std::nullopt, {});
      st.last_reference.reset();
      if (*st.round_reference) st.last_reference = State::Reference{id, **st.round_reference, now};
    }
  }
  const Knobs& knobs = proposal.knobs;
  const auto time = screen_once(knobs, 0, agent.name, agent.strategy, proposal.hypothesis, *st.round_reference, usage);
  st.tried.insert(knobs);
  st.round.push_back({knobs, agent.name, agent.strategy, proposal.hypothesis, time});
  tell_snapshot();
}

void Run::scout() {
  State& st = *state_;
  std::vector<Knobs> draws;
  for (int draw = 0; draw < 4 * options_.scouts && draws.size() < static_cast<std::size_t>(options_.scouts); ++draw) {
    const auto knobs = random_knobs(*template_, common::mix64(options_.seed * 7919u + 0x5c0075u + static_cast<std::uint64_t>(draw)));
    if (!knobs) return;
    if (!st.tried.count(*knobs) && std::find(draws.begin(), draws.end(), *knobs) == draws.end()) draws.push_back(*knobs);
  }
  if (draws.empty()) return;
  if (progress_) progress_(fmt::format("  scouting: {} random configurations screened before the agents' first moves", draws.size()));
  std::vector<std::shared_future<void>> built;
  if (pool_)
    for (const auto& knobs : draws) built.push_back(pool_->submit(source_for(knobs)));
  for (std::size_t i = 0; i < draws.size(); ++i) {
    if (stop_requested_ && stop_requested_()) break;
    if (options_.time_limit.count() > 0 && std::chrono::steady_clock::now() - st.started >= options_.time_limit) break;
    if (i < built.size()) {
      try {
        built[i].get();
      } catch (const std::exception&) {  // the screening builds it again and says why it fails
      }
    }
    std::string settings;
    for (const auto& [name, value] : draws[i]) settings += fmt::format("{}{}={}", settings.empty() ? "" : " ", name, value);
    screen_and_record(Agent{kScoutAgent, kScoutStrategy}, Proposal{draws[i], "a random configuration, scouting the space: " + settings, std::nullopt}, {});
  }
  if (!st.round.empty()) finish_round();
}

void Run::finish_round() {
  State& st = *state_;
  auto round = std::move(st.round);
  const std::optional<double> reference = st.round_reference.value_or(std::nullopt);
  st.round.clear();
  st.round_reference.reset();  // the next round screens the incumbent again, as it is then
  // Closed once its finalists are judged: a kill before that leaves the round open, and the resumed run finishes it.
  const auto close = [&] {
    st.controller.tick();
    event(journal::RoundClosed{static_cast<int>(round.size()), reference});
  };
  std::vector<std::optional<double>> times;
  for (const auto& entry : round) times.push_back(entry.time_ns);
  const double step = options_.controller.min_improvement;
  const auto incumbent = st.knobs_of[static_cast<std::size_t>(st.controller.incumbent()->candidate_id)];
  // The round's faster moves made together, screened once like a proposal: moves on different knobs often gain apart,
  // and a round that finds two then needs no second round to join them. Every move that screened faster at all goes in,
  // not only those faster by the step: gains too small to promote alone add up, and the combination is itself screened
  // and must beat the incumbent by the step to go on.
  {
    std::vector<Knobs> faster;
    if (reference)  // without the incumbent's time every measured one would count as faster
      for (const auto i : fastest_beating(times, reference, 0.0, round.size())) faster.push_back(round[i].knobs);
    if (const auto combined = combined_moves(incumbent, faster); combined && knobs_allowed(*template_, *combined) && !st.tried.count(*combined) &&
        !st.pending.holds(*combined)) {
      std::string moves;
      for (const auto& [name, value] : *combined)
        if (const auto at = incumbent.find(name); at == incumbent.end() || at->second != value) moves += fmt::format("{}{}={}", moves.empty() ? "" : " ", name, value);
      const std::string hypothesis = fmt::format("the round's faster moves together: {}", moves);
      const auto time = screen_once(*combined, 0, kCombineAgent, kCombineStrategy, hypothesis, reference, {});
      st.tried.insert(*combined);
      round.push_back({*combined, kCombineAgent, kCombineStrategy, hypothesis, time});
      times.push_back(time);
    }
  }
  const auto survivors = fastest_beating(times, reference, step, survivors_of(round.size(), options_.screen_keep));
  if (survivors.empty()) {
    if (progress_) progress_(fmt::format("  a round of {} screened: none faster than the incumbent's screening", round.size()));
    close();
    tell_snapshot();
    return;
  }
  // The survivors and the incumbent screened again, longer, one after the other: the fastest of those are judged in full.
  const auto ending = std::chrono::steady_clock::now();
  const auto longer_reference = screen_once(incumbent, 1, kIncumbentAgent, "", "the incumbent, the longer screening's reference", std::nullopt, {});
  std::vector<std::optional<double>> longer;
  for (const auto i : survivors)
    longer.push_back(screen_once(round[i].knobs, 1, round[i].agent, round[i].strategy, round[i].hypothesis, longer_reference, {}));
  const auto finalists = fastest_beating(longer, longer_reference, step, static_cast<std::size_t>(std::max(options_.finalists, 0)));
  if (progress_)
    progress_(fmt::format("  a round of {} screened: {} screened again longer, {} judged in full", round.size(), survivors.size(), finalists.size()));
  for (const auto f : finalists) {
    if (st.summary.judged >= options_.budget || (stop_requested_ && stop_requested_())) break;
    if (options_.time_limit.count() > 0 && std::chrono::steady_clock::now() - st.started >= options_.time_limit) break;
    const auto& entry = round[survivors[f]];
    if (std::find(st.knobs_of.begin(), st.knobs_of.end(), entry.knobs) != st.knobs_of.end()) continue;  // judged before a kill
    const std::string note = longer_reference && longer[f]
                                 ? fmt::format(" [screened {} than the incumbent]", common::speed_ratio(*longer_reference, *longer[f]))
                                 : " [screened]";
    judge_and_record(entry.knobs, entry.agent, entry.strategy, entry.hypothesis + note);
  }
  if (!finalists.empty()) {  // what the loop's lateness is measured against
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - ending).count();
    st.round_end_seconds = std::max(st.round_end_seconds.value_or(0.0), took);
  }
  close();
}

}  // namespace kernelarc::engine
