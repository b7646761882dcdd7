#include "engine/board.h"

#include <algorithm>
#include <cmath>

namespace kernelarc::engine {

void Board::add(Conclusion conclusion) {
  conclusion.sequence = ++written_;
  if (capacity_ && *capacity_ == 0) return;
  entries_.push_back(std::move(conclusion));
  if (capacity_ && entries_.size() > *capacity_) {
    const auto weakest = std::min_element(entries_.begin(), entries_.end(), [](const Conclusion& a, const Conclusion& b) {
      const double ea = std::fabs(a.effect), eb = std::fabs(b.effect);
      return ea != eb ? ea < eb : a.sequence < b.sequence;
    });
    entries_.erase(weakest);
  }
}

std::vector<Conclusion> Board::relevant(const std::string& strategy, const std::string& task, const std::string& op_type,
                                        std::size_t budget) const {
  const double newest = static_cast<double>(std::max<std::int64_t>(written_, 1));
  const auto score = [&](const Conclusion& c) {
    return 4.0 * (c.strategy == strategy) + 2.0 * (c.task == task) + 1.0 * (c.op_type == op_type) +
           std::min(std::fabs(c.effect), 1.0) + 0.5 * static_cast<double>(c.sequence) / newest;
  };
  std::vector<Conclusion> ranked = entries_;
  std::stable_sort(ranked.begin(), ranked.end(), [&](const Conclusion& a, const Conclusion& b) { return score(a) > score(b); });
  if (ranked.size() > budget) ranked.resize(budget);
  return ranked;
}

}  // namespace kernelarc::engine
