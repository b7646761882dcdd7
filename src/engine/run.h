// One optimisation run: agents (a strategy and a brain each) propose candidates from the incumbent, the judge
// decides, the controller promotes or keeps, the board collects conclusions, a plateau forces a change, and
// every step is recorded in the store. Every agent keeps one proposal in flight: proposals are made in a fixed
// turn order and judged in that order, one at a time, while a compile pool builds the ones waiting (when the run
// has one), so a run is reproducible given the judge's numbers.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/agents.h"
#include "engine/board.h"
#include "engine/brain.h"
#include "engine/compile_pool.h"
#include "engine/controller.h"
#include "engine/journal.h"
#include "engine/paired_comparison.h"
#include "engine/plateau.h"
#include "engine/run_options.h"
#include "engine/run_summary.h"
#include "judge/judge.h"
#include "judge/screening.h"
#include "store/store.h"
#include "task/task.h"

namespace kernelarc::engine {

// Judges one candidate; the real one wraps judge::Judge, tests script it.
using JudgeFunction = std::function<judge::CandidateVerdict(const judge::CandidateSource&)>;
// A light measurement of a candidate (judge/screening.h) at a fidelity: 0 a proposal's screening, 1 a longer one for the
// fastest of a round. The real one wraps two judge::Screeners, tests script it.
using ScreenFunction = std::function<judge::Screening(const judge::CandidateSource& candidate, int fidelity)>;
// The incumbent and a challenger timed interleaved on the same inputs (judge::Judge::time_paired), one pair per round of
// calls. The real one wraps the judge, tests script it.
using PairedFunction = std::function<PairedTimes(const judge::CandidateSource& incumbent, const judge::CandidateSource& challenger)>;
using ProgressCallback = std::function<void(const std::string& line)>;
// The run's state after every judged candidate and every forced change (the summary so far), for a live display.
using SnapshotCallback = std::function<void(const RunSummary& so_far, int budget)>;

class Run {
 public:
  // `brains` makes each agent's brain, the one `options.brain` names (brains::brain_factory).
  Run(const task::Task& task, RunOptions options, JudgeFunction judge, BrainFactory brains, store::Store& store, ProgressCallback progress = {});
  ~Run();
  // Proposals are built ahead of the judge on `threads` threads (0: one per core). Without it the judge builds each
  // when it comes to it. Call before execute or resume.
  void build_ahead(BuildFunction build, unsigned threads = 0);
  // Proposals are screened first and only the fastest of each round judged in full (RunOptions::screening says how many).
  // Call before execute or resume; without it every proposal is judged in full.
  void screen_with(ScreenFunction screen) { screen_ = std::move(screen); }
  // A candidate that looks faster than the incumbent is promoted only if it wins a paired comparison with it, and the
  // final speed-up is the start and the best timed side by side. Without it: a second full judgement, and the start
  // judged again. Call before execute or resume.
  void confirm_paired(PairedFunction paired) { paired_ = std::move(paired); }
  // Called with the state of the run after each judged candidate and each plateau. Call before execute or resume.
  void on_snapshot(SnapshotCallback callback) { snapshot_ = std::move(callback); }
  // Asked before each candidate: true stops the run there, recorded as "interrupted" (resumable). The caller decides
  // why (a signal, a deadline of its own); the engine knows nothing of signals.
  void stop_when(std::function<bool()> requested) { stop_requested_ = std::move(requested); }
  // A new run, recorded in the store from its first step.
  RunSummary execute();
  // Continues run `run_id` of the store where it stopped (a killed orchestrator): every judged candidate, decision,
  // conclusion and plateau is read back; the agents go on with fresh seeds. `options` must be the run's own
  // (run_options_from_store gives them). A run that was interrupted goes on; one that finished goes on only with a
  // `new_budget` above the candidates it judged (an event records the change, so a later resume keeps it).
  RunSummary resume(std::int64_t run_id, std::optional<int> new_budget = std::nullopt);
  // The run's id in the store once execute() or resume() has started it (0 before).
  std::int64_t id() const { return run_id_; }

 private:
  struct State;
  void choose_template();
  void deal_strategies(const std::vector<std::string>& strategies, std::uint64_t seed_offset);
  judge::CandidateSource source_for(const Knobs& knobs) const;
  // What agent `index` proposes from when its base is `base`.
  ProposalContext context_for(std::size_t index, const Knobs& base, const std::set<Knobs>& taken) const;
  // Asks agent `index`'s (asynchronous) brain on its own thread; the answer is picked up by next_ready.
  void ask_in_background(std::size_t index, const std::set<Knobs>& taken);
  // The first proposal in flight that is ready, in turn order, waiting for one when none is; nullopt when an answer
  // came to nothing (recorded) or nothing is in flight.
  std::optional<std::size_t> next_ready();
  // A brain's answer that came to nothing: counted, recorded, and the agent retired after too many in a row.
  void proposal_failed(std::size_t index, const std::string& why, const ModelUsage& usage);
  // Stops the answers still in flight and records what they cost.
  void discard_in_flight();
  void load_earlier_conclusions();
  // Rebuilds the state from run `run_id`'s journal: the controller, the board, the agents and their records.
  void replay(std::int64_t run_id);
  // Every agent without a proposal in flight proposes, in agent order; each proposal goes to the compile pool.
  void top_up_proposals();
  // Agent `index`'s next proposal, none of `taken`; it may change the agent's strategy (an event).
  // `may_reassign` false: nothing when the agent's own strategy has nothing left (a proposal queued ahead never changes it).
  std::optional<Proposal> propose_for(std::size_t index, const std::set<Knobs>& taken, bool may_reassign = true);
  // Judges one proposal (twice when it may be promoted) and writes everything about it in one transaction.
  Decision judge_and_record(const Knobs& knobs, const std::string& proposer, const std::string& strategy, const std::string& hypothesis,
                           const ModelUsage& usage = {});
  // The starting candidate: the template's first values, or (--start random) seeded random configurations until one passes.
  Decision judge_start();
  bool screening() const { return screen_ && options_.screening; }
  // Screens a proposal (the incumbent first when the round has no reference yet), records it and tells the board.
  void screen_and_record(const Agent& agent, const Proposal& proposal, const ModelUsage& usage);
  // Screens `knobs` at `fidelity` and records it; the geometric mean of its visible workloads when it was measured.
  std::optional<double> screen_once(const Knobs& knobs, int fidelity, const std::string& agent, const std::string& strategy,
                                    const std::string& hypothesis, std::optional<double> incumbent_ns, const ModelUsage& usage,
                                    std::string* failure = nullptr);
  // The round's fastest screened longer beside the incumbent, the fastest of those judged in full.
  void finish_round();
  // A new run's first round (--scouts): seeded random configurations screened and ranked against the start, so that the
  // agents' first moves start from the best region found, not only from the start's.
  void scout();
  // `incumbent` and `challenger` timed interleaved and compared (the seed of the comparison from `number`).
  journal::PairedRecord pair_up(const Knobs& incumbent, const Knobs& challenger, std::int64_t number);
  // Seconds the run's end takes after its loop (a composed candidate judged and confirmed, the start timed again beside
  // the best), estimated from this run's judgements: the loop ends that much before the time limit.
  double end_seconds() const;
  // The start and the best timed interleaved at the end (with confirm_paired): the final speed-up.
  void pair_start_with_best();
  // A plateau's forced change: every agent takes the next agent's strategy, the next proposal starts from the best backup.
  void force_change();
  // The starting candidate judged again beside the best at the end: the final speed-up's reference.
  void measure_start_again();
  // At the end of a finished run: the candidate composed of the configurations best on each class of shapes
  // (engine/specialisation.h), judged like any other, when the run's measurements call for more than one.
  void specialise();
  RunSummary loop();
  RunSummary finish(const std::string& status, const std::string& reason);
  // The summary so far, to the snapshot callback.
  void tell_snapshot();
  void event(const journal::Event& event);

  const task::Task& task_;
  RunOptions options_;
  JudgeFunction judge_;
  BrainFactory brain_factory_;
  store::Store& store_;
  ProgressCallback progress_;
  SnapshotCallback snapshot_;
  std::function<bool()> stop_requested_;
  ScreenFunction screen_;
  PairedFunction paired_;
  BuildFunction build_ahead_;
  unsigned build_threads_ = 0;
  std::unique_ptr<CompilePool> pool_;  // made when the run starts; its destructor waits for the builds under way
  task::Template searched_;                  // the chosen template as the search sees it (task::search_space)
  const task::Template* template_ = nullptr;  // &searched_ once chosen
  std::int64_t run_id_ = 0;
  std::unique_ptr<State> state_;
};

}  // namespace kernelarc::engine
