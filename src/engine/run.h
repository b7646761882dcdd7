// One optimisation run: agents (a strategy and a brain each) propose candidates from the incumbent, the judge
// decides, the controller promotes or keeps, the board collects conclusions, a plateau forces a change, and
// every step is recorded in the store. Every agent keeps one proposal in flight: proposals are made in a fixed
// turn order and judged in that order, one at a time, while a compile pool builds the ones waiting (when the run
// has one), so a run is reproducible given the judge's numbers.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/board.h"
#include "engine/compile_pool.h"
#include "engine/controller.h"
#include "engine/plateau.h"
#include "engine/search_brain.h"
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
  std::uint64_t seed = 1;
  PlateauOptions plateau;
  ControllerOptions controller;
  std::string template_name;                    // empty: the task's first template for the device that has knobs
};

struct Agent {
  std::string name;       // "agent-1"
  std::string strategy;
};

struct RunSummary {
  std::int64_t run_id = 0;
  std::string stop_reason;
  int judged = 0;
  int promotions = 0;
  int plateaus = 0;
  Measured start;                    // the starting candidate
  std::optional<Measured> best;      // the incumbent at the end
  Knobs best_knobs;
  std::vector<Agent> agents;
};

// Judges one candidate; the real one wraps judge::Judge, tests script it.
using JudgeFunction = std::function<judge::CandidateVerdict(const judge::CandidateSource&)>;
using ProgressCallback = std::function<void(const std::string& line)>;

class Run {
 public:
  Run(const task::Task& task, RunOptions options, JudgeFunction judge, store::Store& store, ProgressCallback progress = {});
  ~Run();
  // Proposals are built ahead of the judge on `threads` threads (0: one per core). Without it the judge builds each
  // when it comes to it. Call before execute or resume.
  void build_ahead(BuildFunction build, unsigned threads = 0);
  // A new run, recorded in the store from its first step.
  RunSummary execute();
  // Continues run `run_id` of the store where it stopped (a killed orchestrator): every judged candidate, decision,
  // conclusion and plateau is read back; the agents go on with fresh seeds. `options` must be the run's own
  // (run_options_from_store gives them).
  RunSummary resume(std::int64_t run_id);

  // A verdict reduced to the controller's numbers: the geometric mean of the visible workloads' medians and the
  // median of their relative spreads (interquartile range over median).
  static Measured measure(std::int64_t candidate_id, const judge::CandidateVerdict& verdict);

 private:
  struct State;
  void choose_template();
  void deal_strategies(const std::vector<std::string>& strategies, std::uint64_t seed_offset);
  judge::CandidateSource source_for(const Knobs& knobs) const;
  void load_earlier_conclusions();
  // Every agent without a proposal in flight proposes, in agent order; each proposal goes to the compile pool.
  void top_up_proposals();
  // Judges one proposal (twice when it may be promoted) and writes everything about it in one transaction.
  Verdict judge_and_record(const Knobs& knobs, const std::string& proposer, const std::string& strategy, const std::string& hypothesis);
  RunSummary loop();
  RunSummary finish(const std::string& status, const std::string& reason);
  void event(const std::string& kind, const nlohmann::json& payload);

  const task::Task& task_;
  RunOptions options_;
  JudgeFunction judge_;
  store::Store& store_;
  ProgressCallback progress_;
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
