// What a run decides from (Run::State, rebuilt from the journal on resume) and what the parts of Run share: run.cpp (the
// loop, the start, proposals), run_screening.cpp (screening rounds) and run_resume.cpp (resume). Private to engine::Run.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/board.h"
#include "engine/brain.h"
#include "engine/controller.h"
#include "engine/measurement.h"
#include "engine/proposal_queue.h"
#include "engine/run.h"
#include "engine/run_summary.h"

namespace kernelarc::engine {

namespace run_detail {
inline constexpr std::size_t kScreenedBases = 16;  // screened configurations an agent may search from after the backups
// Proposals each agent keeps queued while screening: their builds run ahead on the pool while the judge screens (with
// one each, a screening waited about 0.6 s on its build on an H100, against 0.05 s in a sweep that builds everything first).
inline constexpr std::size_t kProposalsAheadWhenScreening = 3;
inline constexpr const char* kIncumbentAgent = "incumbent";  // the screened events of the incumbent, a round's reference
// A screening of the incumbent this recent is the next round's reference too (late in a run a round closes after each
// screening, and screening the incumbent again for each halved what was screened).
inline constexpr std::chrono::seconds kReferenceFresh{20};
inline constexpr const char* kCombineAgent = "combine";  // the screenings of a round's faster moves made together
inline constexpr const char* kCombineStrategy = "combination";
// The first round's random configurations (--scouts): ranked and judged like proposals, but no agent's, and they teach
// the board nothing (a random configuration is no move an agent's strategy could repeat).
inline constexpr const char* kScoutAgent = "scout";
inline constexpr const char* kScoutStrategy = "random";
}  // namespace run_detail

// Everything a run decides from, rebuilt from the store on resume.
struct Run::State {
  Controller controller;
  Board board;
  RunSummary summary;
  std::vector<std::string> strategies;
  std::vector<std::shared_ptr<Brain>> brains;  // shared: a brain answering on another thread outlives a new deal
  std::set<Knobs> tried;
  std::vector<Knobs> knobs_of;              // by the run's candidate number (1 = the starting candidate)
  std::vector<std::int64_t> store_id_of;    // the same numbering: the candidate's id in the store
  std::map<std::int64_t, std::string> sources;   // proposals' own sources, by their kSourceKnob value
  std::vector<std::string> feedback;        // by agent: what happened to its last candidate
  std::vector<int> failed_in_a_row;         // by agent
  std::vector<WorkloadTime> incumbent_times;
  std::size_t since_plateau = 0;
  ProposalQueue pending;
  std::optional<Knobs> restart_from;
  // The screening round under way: what was measured, and the incumbent's screening it is ranked against.
  struct Screened {
    Knobs knobs;
    std::string agent, strategy, hypothesis;
    std::optional<double> time_ns;
  };
  std::vector<Screened> round;
  struct Reference {  // the incumbent's last screening as a round's reference
    std::int64_t candidate = -1;
    double time_ns = 0;
    std::chrono::steady_clock::time_point at;
  };
  std::optional<Reference> last_reference;
  std::vector<std::pair<double, Knobs>> screened_bases;  // the fastest screened configurations, by time over the incumbent's screening
  // The fastest configuration screened against the incumbent's screening (beating it by more than the noise floor) since
  // that incumbent was promoted: agents search from it before the incumbent, so a round walks several steps on screenings
  // alone, where the full judge moves the incumbent one promotion per round.
  struct Leader {
    std::int64_t incumbent = -1;  // the run's number of the incumbent it was ranked against
    double ratio = 1;             // its screening over the incumbent's
    Knobs knobs;
  };
  std::optional<Leader> leader;
  // A proposal's first screening, `ratio` of the incumbent's screening (the incumbent numbered `incumbent`).
  void note_screened(double ratio, const Knobs& knobs, std::int64_t incumbent, double min_improvement) {
    screened_bases.emplace_back(ratio, knobs);
    std::stable_sort(screened_bases.begin(), screened_bases.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    if (screened_bases.size() > run_detail::kScreenedBases) screened_bases.pop_back();
    if (ratio * (1 + min_improvement) >= 1) return;
    if (!leader || leader->incumbent != incumbent || ratio < leader->ratio) leader = Leader{incumbent, ratio, knobs};
  }
  std::size_t start_number = 1;  // the run's number of the starting candidate that passed (a random start may take draws)
  std::optional<std::optional<double>> round_reference;  // set once the incumbent is screened for the round (none: it failed)
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  std::optional<double> round_end_seconds;  // the longest end of a round so far: its longer screenings and finalists judged
  // What the run's end costs, from this run's own measurements: the longest full judgement of a candidate (until another
  // is judged, the start's less what a later judgement does not repeat: its setup and part of making the inputs) and the
  // longest confirmation (a side-by-side timing or a second judgement).
  std::optional<double> judge_seconds, start_judge_seconds, confirm_seconds;
  double judging_seconds() const { return judge_seconds.value_or(start_judge_seconds.value_or(0.0)); }  // 0 before any
  explicit State(const RunOptions& options) : controller(options.controller), board(options.board_capacity), knobs_of(1), store_id_of(1) {}
};

}  // namespace kernelarc::engine
