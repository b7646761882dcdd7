#include "engine/lesson.h"

#include <fmt/format.h>

#include "common/units.h"

namespace kernelarc::engine {

std::string outcome_of(Decision decision, const Measured& measured) {
  return decision == Decision::rejected ? "rejected: " + measured.reason.substr(0, measured.reason.find(' ')) : decision_name(decision);
}

Lesson lesson_of(const std::string& hypothesis, Decision decision, const Measured& measured, bool measured_again, double incumbent_ns) {
  Lesson lesson;
  lesson.effect = measured.passed && incumbent_ns > 0 ? (incumbent_ns - measured.time_ns) / incumbent_ns : 0;
  lesson.outcome = outcome_of(decision, measured);
  if (decision == Decision::rejected)
    lesson.lesson = fmt::format("{} fails: {}", hypothesis, measured.reason);
  else if (decision == Decision::promoted)
    lesson.lesson = fmt::format("{} is {}: keep it", hypothesis, common::effect_ratio(lesson.effect));
  else if (measured_again)
    lesson.lesson = fmt::format("{} was {} once, not when measured again: noise", hypothesis, common::effect_ratio(lesson.effect));
  else
    lesson.lesson = fmt::format("{} is correct but {} (not faster beyond the noise)", hypothesis, common::effect_ratio(lesson.effect));
  return lesson;
}

}  // namespace kernelarc::engine
