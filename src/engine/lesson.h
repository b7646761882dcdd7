// What a judged candidate teaches, as the board and the store keep it: its outcome ("promoted", "rejected: REASON"),
// its effect on the incumbent's time, and the lesson in one sentence.
#pragma once

#include <string>

#include "engine/controller.h"

namespace kernelarc::engine {

struct Lesson {
  std::string outcome;
  double effect = 0;  // the fraction of the incumbent's time it saves (negative: slower); 0 when it failed
  std::string lesson;
};

// The outcome alone: the decision's name, or "rejected: " and the first word of why.
std::string outcome_of(Decision decision, const Measured& measured);

// `measured_again`: it was judged twice (it looked faster once); `incumbent_ns` the time it was up against (0: none).
Lesson lesson_of(const std::string& hypothesis, Decision decision, const Measured& measured, bool measured_again, double incumbent_ns);

}  // namespace kernelarc::engine
