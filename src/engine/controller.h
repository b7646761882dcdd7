// The controller's rules (docs/DESIGN.md, "Engine rules"): every judged candidate is rejected, kept as a
// backup, or, when faster than the incumbent by more than the measured noise and still so when measured
// again, promoted. Pure decisions over numbers; the run loop does the judging and the recording.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kernelarc::engine {

// A judged candidate reduced to what the rules need.
struct Measured {
  std::int64_t candidate_id = 0;
  bool passed = false;
  std::string reason;    // why it failed, when it did
  double time_ns = 0;    // geometric mean over the visible workloads of the per-workload medians
  double spread = 0;     // the measurement's own noise, relative: (q3 - q1) / median of a typical workload
  double sol_fraction = 0;            // geometric mean over the same workloads of T_sol / T (1: the roofline)
  std::optional<double> sol_score;    // mean SOL score over them, when every one has a baseline
};

enum class Decision {
  rejected,        // failed a check: discarded, its reason becomes a conclusion
  first,           // the first correct candidate: the incumbent, nothing to beat yet
  backup,          // correct, not faster beyond noise: kept in the backup pool
  measure_again,   // faster beyond noise once: judge it again before promotion
  promoted,        // faster beyond noise twice: the new incumbent
};

const char* decision_name(Decision decision);
std::optional<Decision> parse_decision(std::string_view name);

// What a paired confirmation came to.
enum class PairedOutcome { won, lost, failed };
const char* paired_outcome_name(PairedOutcome outcome);
std::optional<PairedOutcome> parse_paired_outcome(std::string_view name);

struct ControllerOptions {
  double min_improvement = 0.01;  // a promotion must also beat the incumbent by this fraction, whatever the noise
  std::size_t backup_capacity = 16;
};

class Controller {
 public:
  explicit Controller(ControllerOptions options = {}) : options_(options) {}

  // A candidate judged for the first time.
  Decision consider(const Measured& measured);
  // The same candidate judged again after `measure_again`: promoted only if it is still faster beyond noise.
  Decision confirm(const Measured& measured_again);
  // The candidate of `measure_again` timed interleaved with the incumbent (engine/paired_comparison.h): promoted if it won
  // the paired comparison, a backup if it did not, rejected if it failed there (a wrong answer, a crash).
  Decision confirm_paired(std::int64_t candidate_id, PairedOutcome outcome);
  // The incumbent's time once more in the history: a round of screening that promoted nothing is a step of the search.
  void tick() {
    if (incumbent_) history_.push_back(incumbent_->time_ns);
  }

  const std::optional<Measured>& incumbent() const { return incumbent_; }
  const std::vector<Measured>& backups() const { return backups_; }  // fastest first
  // The incumbent's time after each judged candidate, for the plateau detector.
  const std::vector<double>& history() const { return history_; }

 private:
  bool beats(const Measured& challenger) const;
  void keep_as_backup(const Measured& measured);

  ControllerOptions options_;
  std::optional<Measured> incumbent_;
  std::optional<Measured> pending_;  // waiting for its second measurement
  std::vector<Measured> backups_;
  std::vector<double> history_;
};

}  // namespace kernelarc::engine
