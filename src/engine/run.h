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

#include "engine/board.h"
#include "engine/brain.h"
#include "engine/compile_pool.h"
#include "engine/controller.h"
#include "engine/journal.h"
#include "engine/plateau.h"
#include "judge/judge.h"
#include "store/store.h"
#include "task/task.h"

namespace kernelarc::engine {

struct RunOptions {
  std::string device = "cpu";
  int agents = 4;
  std::vector<std::string> strategies;          // empty: the template's strategies that own knobs, dealt out in turn
  int budget = 64;                              // candidates judged, the starting one included (second measurements not counted)
  std::chrono::seconds time_limit{0};           // 0: none
  std::optional<std::size_t> board_capacity;    // nullopt: unlimited
  std::uint64_t seed = 1;                       // the agents'
  std::uint64_t judge_seed = 0;                 // the judge's inputs: secret from the agents, recorded so a run can be replayed
  PlateauOptions plateau;
  ControllerOptions controller;
  std::string template_name;                    // empty: the task's first template for the device that has knobs
  std::string brain = "search";                 // recorded with the run; the factory itself is given to Run
  std::string reference = "auto";               // the judge's reference (auto, native, python): recorded, so a resumed run checks alike
  std::filesystem::path extensions_file;        // read back from a recorded run (the task's own extensions file is recorded)
  bool baseline_torch = false;                  // T_b measured through the oracle (cached on disk, so a resumed run reads the same)
  std::map<std::string, double> baseline_ns;    // T_b by workload uuid for the SOL score: recorded, so a resumed run scores alike
  std::optional<double> max_cost_usd;           // language models' spend at which the run stops; nullopt: no limit
  std::string llm_config;                       // the LLM team's configuration (JSON, no keys in it), so a resumed run asks the same models
  bool remeasure_start = true;                  // judge the starting candidate again at the end: the final speed-up's reference
};

struct Agent {
  std::string name;       // "agent-1"
  std::string strategy;
};

// One agent's record in this run, for the live display and the summary.
struct AgentStatus {
  std::string name;
  std::string strategy;      // its strategy now (a plateau deals them again)
  int judged = 0, promoted = 0, backups = 0, rejected = 0;
  std::string last;          // its last verdict: "promoted", "backup", "rejected: INCORRECT_NUMERICAL", ...
  double best_ns = 0;        // its fastest correct candidate; 0: none yet
  std::int64_t best_candidate = 0;  // that candidate's id in the store
  int failed_proposals = 0;  // proposals that came to nothing (a model that gave no usable answer, a duplicate)
  bool retired = false;      // too many in a row: it proposes no more
  ModelUsage usage;          // its language model's spend
};

struct RunSummary {
  std::int64_t run_id = 0;
  std::string stop_reason;
  int judged = 0;
  int promotions = 0;
  int plateaus = 0;
  Measured start;                    // the starting candidate
  std::optional<Measured> start_again;  // the starting candidate judged again at the end (same machine state as the best)
  std::optional<Measured> best;      // the incumbent at the end
  std::int64_t start_candidate = 0;  // the store's candidate ids: the numbering the log, the display, runs and export share
  std::int64_t best_candidate = 0;
  Knobs best_knobs;
  std::vector<Agent> agents;
  std::vector<AgentStatus> agent_status;   // by agent, in agent order
  std::size_t board_size = 0;
  int measurement_warnings = 0;            // candidates timed while the machine's load or the GPU's clock moved
  double elapsed_s = 0;                    // this process's share of the run (since execute or resume)
  ModelUsage usage() const;                // every agent's spend together
  // The start's time the speed-up is reported against: the faster of its two measurements when it was judged again at the
  // end (load only ever adds time, so a speed-up is never claimed that one of them does not support), else the first.
  double start_ns() const {
    return start_again && start_again->passed && start_again->time_ns < start.time_ns ? start_again->time_ns : start.time_ns;
  }
  nlohmann::json sandbox;                  // the walls the candidates ran behind ({"active": [...], "unavailable": [...]}); null: none
};

// Judges one candidate; the real one wraps judge::Judge, tests script it.
using JudgeFunction = std::function<judge::CandidateVerdict(const judge::CandidateSource&)>;
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
  // Asks agent `index`'s (asynchronous) brain on its own thread; the answer is picked up by next_proposal.
  void ask_in_background(std::size_t index, const std::set<Knobs>& taken);
  // The first proposal in flight that is ready, in turn order, waiting for one when none is; nullopt when an answer
  // came to nothing (recorded) or nothing is in flight.
  std::optional<std::size_t> next_ready();
  // A brain's answer that came to nothing: counted, recorded, and the agent retired after too many in a row.
  void proposal_failed(std::size_t index, const std::string& why, const ModelUsage& usage);
  // Stops the answers still in flight and records what they cost.
  void discard_in_flight();
  void load_earlier_conclusions();
  // Every agent without a proposal in flight proposes, in agent order; each proposal goes to the compile pool.
  void top_up_proposals();
  // Agent `index`'s next proposal, none of `taken`; it may change the agent's strategy (an event).
  std::optional<Proposal> propose_for(std::size_t index, const std::set<Knobs>& taken);
  // Judges one proposal (twice when it may be promoted) and writes everything about it in one transaction.
  Decision judge_and_record(const Knobs& knobs, const std::string& proposer, const std::string& strategy, const std::string& hypothesis,
                           const ModelUsage& usage = {});
  RunSummary loop();
  RunSummary finish(const std::string& status, const std::string& reason);
  // Counts a judged candidate in its agent's record.
  void count_for_agent(const std::string& agent, Decision decision, const std::string& outcome, const Measured& measured);
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
  BuildFunction build_ahead_;
  unsigned build_threads_ = 0;
  std::unique_ptr<CompilePool> pool_;  // made when the run starts; its destructor waits for the builds under way
  const task::Template* template_ = nullptr;
  std::int64_t run_id_ = 0;
  std::unique_ptr<State> state_;
};

// The options a run was started with, read back from its record in the store (for resume).
RunOptions run_options_from_store(const store::RunRecord& run);

}  // namespace kernelarc::engine
