#include "judge/verdict.h"

#include <algorithm>
#include <array>

namespace kernelarc::judge {

namespace {
constexpr std::array<std::string_view, 9> kNames = {"PASSED", "COMPILE_ERROR", "RUNTIME_ERROR", "TIMEOUT", "INCORRECT_SHAPE",
                                                    "INCORRECT_DTYPE", "INCORRECT_NUMERICAL", "REWARD_HACK", "INVALID_REFERENCE"};
}

std::string_view status_name(Status status) { return kNames[static_cast<std::size_t>(status)]; }

std::string_view phase_name(JudgePhase phase) {
  constexpr std::array<std::string_view, 5> names = {"build", "reference", "correctness", "timing", "unseen"};
  return names[static_cast<std::size_t>(phase)];
}

std::optional<Status> parse_status(std::string_view name) {
  const auto found = std::find(kNames.begin(), kNames.end(), name);
  if (found == kNames.end()) return std::nullopt;
  return static_cast<Status>(found - kNames.begin());
}

bool CandidateVerdict::passed() const {
  return build.ok && !workloads.empty() &&
         std::all_of(workloads.begin(), workloads.end(), [](const WorkloadVerdict& w) { return w.status == Status::passed; });
}

std::optional<double> CandidateVerdict::mean_score() const {
  double total = 0;
  int count = 0;
  for (const auto& workload : workloads) {
    if (workload.status != Status::passed && workload.baseline_ns) {
      ++count;  // a wrong workload scores 0
    } else if (workload.score) {
      total += *workload.score;
      ++count;
    }
  }
  if (count == 0) return std::nullopt;
  return total / count;
}

}  // namespace kernelarc::judge
