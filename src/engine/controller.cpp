#include "engine/controller.h"

#include <algorithm>
#include <stdexcept>

namespace kernelarc::engine {

const char* verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::rejected: return "rejected";
    case Verdict::first: return "first";
    case Verdict::backup: return "backup";
    case Verdict::measure_again: return "measure_again";
    case Verdict::promoted: return "promoted";
  }
  return "?";
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

Verdict Controller::consider(const Measured& measured) {
  if (pending_) throw std::logic_error("a candidate is waiting for its second measurement");
  Verdict verdict;
  if (!measured.passed) {
    verdict = Verdict::rejected;
  } else if (!incumbent_) {
    incumbent_ = measured;
    verdict = Verdict::first;
  } else if (beats(measured)) {
    pending_ = measured;
    verdict = Verdict::measure_again;
  } else {
    keep_as_backup(measured);
    verdict = Verdict::backup;
  }
  if (incumbent_) history_.push_back(incumbent_->time_ns);
  return verdict;
}

Verdict Controller::confirm(const Measured& measured_again) {
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
    return Verdict::promoted;
  }
  if (measured_again.passed) keep_as_backup(settled);
  return measured_again.passed ? Verdict::backup : Verdict::rejected;
}

}  // namespace kernelarc::engine
