// A sweep of a template's knob grid: every allowed configuration built as the judge builds it and screened
// (judge/screening.h), in grid order. The compile pool builds ahead: while the device times (on a GPU), or all before
// the first timing (on the CPU, where a compile beside a timing would slow it). Screening ranks; nothing here promotes.
#pragma once

#include <chrono>
#include <functional>
#include <vector>

#include "judge/screening.h"
#include "task/knob_grid.h"
#include "task/task.h"

namespace kernelarc::engine {

struct KnobSweep {
  std::vector<judge::Screening> screenings;  // one per allowed configuration of the grid screened, in its order
  std::size_t not_screened = 0;              // the allowed configurations left when the deadline came
  double seconds = 0;                        // from the first build to the last screening
  double configurations_per_minute() const;
};

// Called after each configuration is screened, with its index among the grid's allowed ones.
using ScreenedCallback = std::function<void(const judge::Screening& screening, std::size_t index, std::size_t total)>;

// `builds_while_timing`: the device's backend's answer (judge::Backend::builds_while_timing). No configuration is
// started after `deadline`; the one under way then finishes, and the queued builds are dropped.
KnobSweep sweep_knob_grid(const task::Task& task, const task::Template& tmpl, const task::KnobGrid& grid, judge::Screener& screener,
                          bool builds_while_timing, const ScreenedCallback& screened = {}, const judge::ProgressCallback& progress = {},
                          std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max());

}  // namespace kernelarc::engine
