// What an agent is told before it proposes again: what became of its last candidate (the verdict, why, the compiler's
// words, its times) and the incumbent's time on each workload.
#pragma once

#include <string>
#include <vector>

#include "engine/brain.h"
#include "engine/controller.h"
#include "judge/verdict.h"
#include "task/task.h"

namespace kernelarc::engine {

// About the agent's last judged candidate; `outcome` as the board keeps it, `incumbent_ns` the time it was up against.
std::string feedback_for(const std::string& hypothesis, const std::string& outcome, const Measured& measured,
                         const judge::CandidateVerdict& verdict, double incumbent_ns);

// About the agent's last answer that gave nothing to judge.
std::string feedback_for_no_proposal(const std::string& why);

// The visible workloads' times of a new incumbent, with their axes and roofline times, as a brain reads them.
std::vector<WorkloadTime> workload_times(const task::Task& task, const judge::CandidateVerdict& verdict);

// The first line of a (model's or compiler's) message, cut to fit a progress line.
std::string first_line(const std::string& text);

}  // namespace kernelarc::engine
