#include "engine/controller.h"

#include <algorithm>
#include <stdexcept>

namespace kernelarc::engine {

const char* decision_name(Decision decision) {
  switch (decision) {
    case Decision::rejected: return "rejected";
    case Decision::first: return "first";
    case Decision::backup: return "backup";
    case Decision::measure_again: return "measure_again";
    case Decision::promoted: return "promoted";
  }
  return "?";
}

std::optional<Decision> parse_decision(std::string_view name) {
  for (const Decision d : {Decision::rejected, Decision::first, Decision::backup, Decision::measure_again, Decision::promoted})
    if (name == decision_name(d)) return d;
  return std::nullopt;
}

const char* paired_outcome_name(PairedOutcome outcome) {
  switch (outcome) {
    case PairedOutcome::won: return "won";
    case PairedOutcome::lost: return "lost";
    case PairedOutcome::failed: return "failed";
  }
  return "?";
}

std::optional<PairedOutcome> parse_paired_outcome(std::string_view name) {
  for (const PairedOutcome o : {PairedOutcome::won, PairedOutcome::lost, PairedOutcome::failed})
    if (name == paired_outcome_name(o)) return o;
  return std::nullopt;
}

// Faster by a factor beyond either measurement's own spread (and the minimum step): a win inside the noise is no
// win. A factor, not a difference: on a loaded machine a spread can pass 100%, and a 10x win must still count.
bool Controller::beats(const Measured& challenger) const {
  const double margin = std::max({incumbent_->spread, challenger.spread, options_.min_improvement});
  return challenger.time_ns * (1.0 + margin) < incumbent_->time_ns;
}

void Controller::keep_as_backup(const Measured& measured) {
  backups_.push_back(measured);
  std::stable_sort(backups_.begin(), backups_.end(), [](const Measured& a, const Measured& b) { return a.time_ns < b.time_ns; });
  if (backups_.size() > options_.backup_capacity) backups_.pop_back();
}

Decision Controller::consider(const Measured& measured) {
  if (pending_) throw std::logic_error("a candidate is waiting for its second measurement");
  Decision decision;
  if (!measured.passed) {
    decision = Decision::rejected;
  } else if (!incumbent_) {
    incumbent_ = measured;
    decision = Decision::first;
  } else if (beats(measured)) {
    pending_ = measured;
    decision = Decision::measure_again;
  } else {
    keep_as_backup(measured);
    decision = Decision::backup;
  }
  if (incumbent_) history_.push_back(incumbent_->time_ns);
  return decision;
}

Decision Controller::confirm(const Measured& measured_again) {
  if (!pending_ || pending_->candidate_id != measured_again.candidate_id)
    throw std::logic_error("confirm() without a matching measure_again");
  const Measured first = *pending_;
  pending_.reset();
  // The slower of the two measurements is the one that must still win.
  Measured settled = measured_again;
  settled.time_ns = std::max(first.time_ns, measured_again.time_ns);
  settled.spread = std::max(first.spread, measured_again.spread);
  if (measured_again.passed && beats(settled)) {
    keep_as_backup(*incumbent_);
    incumbent_ = settled;
    history_.back() = incumbent_->time_ns;
    return Decision::promoted;
  }
  if (measured_again.passed) keep_as_backup(settled);
  return measured_again.passed ? Decision::backup : Decision::rejected;
}

Decision Controller::confirm_paired(std::int64_t candidate_id, PairedOutcome outcome) {
  if (!pending_ || pending_->candidate_id != candidate_id) throw std::logic_error("confirm_paired() without a matching measure_again");
  const Measured challenger = *pending_;
  pending_.reset();
  if (outcome == PairedOutcome::failed) return Decision::rejected;
  if (outcome == PairedOutcome::lost) {
    keep_as_backup(challenger);
    return Decision::backup;
  }
  keep_as_backup(*incumbent_);
  incumbent_ = challenger;
  history_.back() = incumbent_->time_ns;
  return Decision::promoted;
}

}  // namespace kernelarc::engine
