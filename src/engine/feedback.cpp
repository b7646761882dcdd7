#include "engine/feedback.h"

#include <fmt/format.h>

#include "common/units.h"

namespace kernelarc::engine {

namespace {

constexpr std::size_t kFeedbackChars = 2500;  // of compile diagnostics kept for the agent

}  // namespace

std::string feedback_for(const std::string& hypothesis, const std::string& outcome, const Measured& measured,
                         const judge::CandidateVerdict& verdict, double incumbent_ns) {
  std::string text = fmt::format("Your last candidate ({}): {}.", hypothesis, outcome);
  if (!measured.passed) text += "\nWhy: " + measured.reason;
  if (!verdict.build.ok && !verdict.build.diagnostics.empty())
    text += "\nCompiler output:\n" + verdict.build.diagnostics.substr(0, kFeedbackChars);
  if (!verdict.build.resources.empty()) text += "\nResources per kernel (registers, shared memory, spills): " + verdict.build.resources.dump();
  if (measured.passed)
    text += fmt::format("\nIts geometric-mean time {} against the incumbent's {} ({}), measured spread {:.1f}%.",
                        common::format_time_ns(measured.time_ns), common::format_time_ns(incumbent_ns),
                        common::speed_ratio(incumbent_ns, measured.time_ns), 100 * measured.spread);
  for (const auto& row : verdict.workloads)
    if (row.status == judge::Status::passed && row.timing && !row.held_out)
      text += fmt::format("\n  {}: {}", row.uuid, common::format_time_ns(row.timing->median_ns));
  return text;
}

std::string feedback_for_no_proposal(const std::string& why) { return "Your last answer gave no candidate to judge: " + why; }

std::vector<WorkloadTime> workload_times(const task::Task& task, const judge::CandidateVerdict& verdict) {
  std::vector<WorkloadTime> times;
  for (const auto& row : verdict.workloads) {
    if (row.held_out || !row.timing) continue;
    std::string axes;
    for (const auto& w : task.workloads)
      if (w.uuid == row.uuid)
        for (const auto& [name, value] : w.axes) axes += fmt::format("{}{}={}", axes.empty() ? "" : " ", name, value);
    times.push_back({row.uuid, axes, row.timing->median_ns, row.roofline ? row.roofline->seconds * 1e9 : 0.0});
  }
  return times;
}

std::string first_line(const std::string& text) {
  const auto end = text.find('\n');
  std::string line = text.substr(0, end);
  return line.size() > 160 ? line.substr(0, 157) + "..." : line;
}

}  // namespace kernelarc::engine
