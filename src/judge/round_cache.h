// The rounds the judge keeps for the next candidates, by workload: the correctness rounds and the rounds of the calls on
// new inputs, each kept in order from round 0 while the budget lasts (the same seed gives the next candidate the same
// round, so it skips input generation and the reference).
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

  // Kept when it is the next round in order and the budget lasts.
  void offer(Kind kind, const std::string& workload_uuid, int index, const std::shared_ptr<const ReferenceRound>& round) {
    auto& kept = rounds(kind)[workload_uuid];
    if (index == static_cast<int>(kept.size()) && kept_bytes_ + round->bytes() <= budget_bytes_) {
      kept.push_back(round);
      kept_bytes_ += round->bytes();
    }
  }

 private:
  std::map<std::string, std::vector<std::shared_ptr<const ReferenceRound>>>& rounds(Kind kind) {
    return kind == Kind::correctness ? correctness_ : unseen_;
  }
  std::map<std::string, std::vector<std::shared_ptr<const ReferenceRound>>> correctness_;  // by workload uuid, from round 0 on
  std::map<std::string, std::vector<std::shared_ptr<const ReferenceRound>>> unseen_;  // the same for the calls on new inputs
  std::size_t kept_bytes_ = 0;
  std::size_t budget_bytes_ = 0;
};

}  // namespace kernelarc::judge
