// The rounds the judge keeps for the next candidates, by workload: the correctness rounds and the rounds of the calls on
// new inputs, each kept in order from round 0 while the budget lasts (the same seed gives the next candidate the same
// round, so it skips input generation and the reference). A round 0 that does not fit pushes out the last rounds kept
// of other workloads: a screening uses round 0 alone, and a task whose rounds do not all fit (a GEMM task's 28
// workloads, about 5 GB a round) keeps every workload's round 0 rather than every round of its first workloads.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "judge/reference_round.h"

namespace kernelarc::judge {

class RoundCache {
 public:
  enum class Kind { correctness, unseen };

  void set_budget(std::size_t bytes) { budget_bytes_ = bytes; }

  // The index-th round kept for the workload, or null.
  std::shared_ptr<const ReferenceRound> find(Kind kind, const std::string& workload_uuid, int index) {
    const auto& kept = rounds(kind)[workload_uuid];
    return index < static_cast<int>(kept.size()) ? kept[static_cast<std::size_t>(index)] : nullptr;
  }

  // Kept when it is the next round in order and the budget lasts; a round 0 makes room by dropping later rounds.
  void offer(Kind kind, const std::string& workload_uuid, int index, const std::shared_ptr<const ReferenceRound>& round) {
    auto& kept = rounds(kind)[workload_uuid];
    if (index != static_cast<int>(kept.size())) return;
    if (index == 0)
      while (kept_bytes_ + round->bytes() > budget_bytes_ && drop_a_later_round()) {
      }
    if (kept_bytes_ + round->bytes() <= budget_bytes_) {
      kept.push_back(round);
      kept_bytes_ += round->bytes();
    }
  }

 private:
  // The last round of the workload (of either kind) that keeps the most rounds after its round 0; false when none does.
  bool drop_a_later_round() {
    std::vector<std::shared_ptr<const ReferenceRound>>* longest = nullptr;
    for (auto* kind : {&correctness_, &unseen_})
      for (auto& [uuid, kept] : *kind)
        if (kept.size() > 1 && (!longest || kept.size() > longest->size())) longest = &kept;
    if (!longest) return false;
    kept_bytes_ -= longest->back()->bytes();
    longest->pop_back();
    return true;
  }
  std::map<std::string, std::vector<std::shared_ptr<const ReferenceRound>>>& rounds(Kind kind) {
    return kind == Kind::correctness ? correctness_ : unseen_;
  }
  std::map<std::string, std::vector<std::shared_ptr<const ReferenceRound>>> correctness_;  // by workload uuid, from round 0 on
  std::map<std::string, std::vector<std::shared_ptr<const ReferenceRound>>> unseen_;  // the same for the calls on new inputs
  std::size_t kept_bytes_ = 0;
  std::size_t budget_bytes_ = 0;
};

}  // namespace kernelarc::judge
