// The conclusions board: short structured entries the controller writes from the judge's verdicts, which
// agents read by relevance to their strategy and task. Its capacity is a setting, since the size of the shared
// memory is itself an experiment (0: no board; K entries; unlimited).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kernelarc::engine {

struct Conclusion {
  std::string task;
  std::string op_type;
  std::string workload_class;  // e.g. "all", "decode", "large"
  std::string strategy;
  std::string change;          // what was tried, e.g. "BLOCK 256 -> 512"
  std::string outcome;         // "promoted", "backup", "rejected: INCORRECT_NUMERICAL", ...
  double effect = 0;           // fractional speed-up against the incumbent (negative: slower); 0 when rejected
  std::string lesson;          // one line
  std::int64_t sequence = 0;   // order of writing, set by the board
};

class Board {
 public:
  // nullopt: unlimited.
  explicit Board(std::optional<std::size_t> capacity) : capacity_(capacity) {}

  // Adds an entry; when full, the entry that says least (smallest |effect|, then oldest) makes room,
  // possibly the new one itself. With capacity 0 nothing is kept.
  void add(Conclusion conclusion);

  // At most `budget` entries, most relevant first: same strategy, same task, same op type, then larger effects
  // and newer entries.
  std::vector<Conclusion> relevant(const std::string& strategy, const std::string& task, const std::string& op_type,
                                   std::size_t budget) const;

  const std::vector<Conclusion>& entries() const { return entries_; }

 private:
  std::optional<std::size_t> capacity_;
  std::vector<Conclusion> entries_;
  std::int64_t written_ = 0;
};

}  // namespace kernelarc::engine
