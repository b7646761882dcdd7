// Run's resume: the run's state replayed from its journal, and the board started from earlier runs' conclusions.
#include "engine/run.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/units.h"
#include "engine/candidate_source.h"
#include "engine/feedback.h"
#include "engine/finalists.h"
#include "engine/journal.h"
#include "engine/lesson.h"
#include "engine/recording.h"
#include "engine/run_state.h"

namespace kernelarc::engine {

using nlohmann::json;
using run_detail::kIncumbentAgent;

RunSummary Run::resume(std::int64_t run_id, std::optional<int> new_budget) {
  const auto record = store_.run(run_id);
  if (!record || record->kind != "run") throw std::runtime_error(fmt::format("the store has no run {}", run_id));
  if (record->status == "failed") throw std::runtime_error(fmt::format("run {} failed (its starting candidate failed): start a new run", run_id));
  if (record->status == "finished" && !new_budget)
    throw std::runtime_error(fmt::format("run {} is finished; give it a larger --budget to go on (kernelarc run --resume {} --budget N)", run_id, run_id));
  run_id_ = run_id;
  choose_template();
  state_ = std::make_unique<State>(options_);
  State& st = *state_;
  st.summary.run_id = run_id;
  replay(run_id);
  if (new_budget && *new_budget != options_.budget) {
    if (*new_budget <= st.summary.judged)
      throw std::runtime_error(fmt::format("run {} has judged {} candidates already: --budget must be more than that to go on", run_id,
                                           st.summary.judged));
    event(journal::BudgetExtended{options_.budget, *new_budget});
    options_.budget = *new_budget;
  }
  if (record->status != "running") store_.reopen_run(run_id);
  event(journal::RunResumed{st.summary.judged, st.summary.promotions});
  if (progress_) progress_(fmt::format("run {} resumed after {} judged candidates", run_id, st.summary.judged));
  if (st.summary.judged == 0) {  // killed before its starting candidate was recorded: judge it now
    if (judge_start() != Decision::first)
      return finish("failed", "the starting candidate failed: " + st.summary.start.reason);
  }
  if (!st.controller.incumbent()) return finish("failed", "the starting candidate failed");
  return loop();
}

void Run::replay(std::int64_t run_id) {
  State& st = *state_;
  int resumes = 0;
  std::vector<std::string> strategies;
  struct Replayed {
    std::string agent;
    Decision decision;
    Measured measured;
  };
  std::vector<Replayed> replayed;  // counted in the agents' records once they are dealt
  std::map<std::string, ModelUsage> spent;     // by agent
  std::map<std::string, int> failed;           // proposals that came to nothing, by agent
  std::map<std::string, int> screened_by;      // proposals screened, by agent
  // The controller is a pure function of the measurements, so the same measurements rebuild the same state.
  for (const auto& entry : journal::read(store_, run_id)) {
    if (const auto* e = std::get_if<journal::RunStarted>(&entry)) {
      strategies = e->strategies();
    } else if (std::holds_alternative<journal::RunResumed>(entry)) {
      ++resumes;
    } else if (const auto* e = std::get_if<journal::BudgetExtended>(&entry)) {
      options_.budget = e->to;
    } else if (const auto* e = std::get_if<journal::Plateau>(&entry)) {
      ++st.summary.plateaus;
      st.since_plateau = e->history_size;
      strategies = e->strategies;
    } else if (const auto* e = std::get_if<journal::ProposalFailed>(&entry)) {
      if (e->usage) spent[e->agent] += *e->usage;
      ++failed[e->agent];
    } else if (const auto* e = std::get_if<journal::Screened>(&entry)) {
      // The round a kill cut short (no round_closed after it) is taken up again where it stopped.
      if (e->source) st.sources.emplace(e->knobs.at(kSourceKnob), *e->source);
      if (e->usage) spent[e->agent] += *e->usage;
      ++st.summary.screened;
      if (e->agent == kIncumbentAgent && e->fidelity == 0) st.round_reference = e->time_ns;
      if (e->agent != kIncumbentAgent && e->fidelity == 0) {
        if (e->time_ns && e->incumbent_ns && *e->incumbent_ns > 0 && st.controller.incumbent())
          st.note_screened(*e->time_ns / *e->incumbent_ns, e->knobs, st.controller.incumbent()->candidate_id, options_.controller.min_improvement);
        st.tried.insert(e->knobs);
        st.round.push_back({e->knobs, e->agent, e->strategy, e->hypothesis, e->time_ns});
        ++screened_by[e->agent];
      }
    } else if (std::holds_alternative<journal::RoundClosed>(entry)) {
      st.round.clear();
      st.round_reference.reset();
      st.controller.tick();
    } else if (const auto* e = std::get_if<journal::Sandbox>(&entry)) {
      st.summary.sandbox = e->walls;
    } else if (const auto* e = std::get_if<journal::ProposalsDiscarded>(&entry)) {
      for (const auto& [agent, usage] : e->usage) spent[agent] += usage;
    } else if (const auto* e = std::get_if<journal::Judged>(&entry)) {
      if (e->source) st.sources.emplace(e->knobs.at(kSourceKnob), *e->source);
      if (e->usage) spent[e->agent] += *e->usage;
      Decision decision = st.controller.consider(e->measured);
      if (decision == Decision::measure_again && e->paired) {
        decision = st.controller.confirm_paired(e->number, e->paired->outcome);
      } else if (decision == Decision::measure_again) {
        if (!e->measured_again)
          throw std::runtime_error(fmt::format("run {} cannot be replayed: candidate {} has no second measurement in the store", run_id, e->candidate));
        decision = st.controller.confirm(*e->measured_again);
      }
      if (decision != e->decision)
        throw std::runtime_error(fmt::format("run {} cannot be replayed: candidate {} was {}, the replay says {}", run_id, e->number,
                                             decision_name(e->decision), decision_name(decision)));
      if (e->agent == "start") {
        st.summary.start = e->measured;
        st.start_number = st.knobs_of.size();  // its number: knobs_of gets it below
        st.summary.start_candidate = e->candidate;
      }
      replayed.push_back({e->agent, decision, e->measured_again ? *e->measured_again : e->measured});
      if (decision == Decision::promoted) ++st.summary.promotions;
      st.tried.insert(e->knobs);
      st.knobs_of.push_back(e->knobs);
      st.store_id_of.push_back(e->candidate);
      st.summary.measurement_warnings += !e->measurement_warnings.empty();
      ++st.summary.judged;
    }
  }
  if (strategies.empty()) throw std::runtime_error(fmt::format("run {} has no run_started event", run_id));
  load_earlier_conclusions();
  auto conclusions = store_.conclusions(task_.definition.name);
  std::reverse(conclusions.begin(), conclusions.end());
  for (const auto& c : conclusions)
    if (c.run_id == run_id) st.board.add({c.task, task_.definition.op_type, c.workload_class, c.strategy, c.change, c.outcome, c.effect, c.lesson, 0});
  deal_strategies(strategies, 7919u * static_cast<std::uint64_t>(resumes + 1));
  for (const auto& r : replayed)
    count_judged(st.summary.agent_status, r.agent, r.decision, outcome_of(r.decision, r.measured), r.measured, st.store_id_of);
  for (auto& status : st.summary.agent_status) {
    status.usage = spent[status.name];
    status.failed_proposals = failed[status.name];
    status.screened = screened_by[status.name];
  }
}

// Earlier runs on the same task, or on another of the same op_type, start the board (oldest first, so a full board
// keeps what says most): what they learnt is where this run's agents look first.
void Run::load_earlier_conclusions() {
  State& st = *state_;
  std::set<std::int64_t> runs;
  std::size_t loaded = 0;
  for (const auto& c : store_.conclusions_of_similar_runs(task_.definition.name, task_.definition.op_type, run_id_)) {
    st.board.add({c.task, task_.definition.op_type, c.workload_class, c.strategy, c.change, c.outcome, c.effect, c.lesson, 0});
    if (c.run_id) runs.insert(*c.run_id);
    ++loaded;
  }
  if (loaded == 0) return;
  if (progress_)
    progress_(fmt::format("  the board starts with {} conclusions of {} earlier run(s); it keeps {}", loaded, runs.size(), st.board.entries().size()));
}

}  // namespace kernelarc::engine
