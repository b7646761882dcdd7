// Where a judge's time goes: wall time charged to named phases, each second to exactly one phase (the innermost open
// one), so the phases add up to the whole and say what to make faster.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace kernelarc::judge {

class PhaseClock {
 public:
  using Clock = std::chrono::steady_clock;

  // Opens a phase until the returned guard goes out of scope; an enclosing phase pauses meanwhile.
  class Scope {
   public:
    Scope(PhaseClock& clock, const char* phase) : clock_(clock) { clock_.enter(phase); }
    ~Scope() { clock_.leave(); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    PhaseClock& clock_;
  };

  Scope measure(const char* phase) { return Scope(*this, phase); }

  // Seconds per phase; time outside every phase is "other".
  std::map<std::string, double> seconds() {
    charge();
    return seconds_;
  }

 private:
  void charge() {
    const auto now = Clock::now();
    seconds_[open_.empty() ? "other" : open_.back()] += std::chrono::duration<double>(now - since_).count();
    since_ = now;
  }
  void enter(const char* phase) {
    charge();
    open_.emplace_back(phase);
  }
  void leave() {
    charge();
    open_.pop_back();
  }

  std::map<std::string, double> seconds_;
  std::vector<std::string> open_;
  Clock::time_point since_ = Clock::now();
};

}  // namespace kernelarc::judge
