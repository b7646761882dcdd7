#include "report/board_printer.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <set>

#include "common/units.h"

namespace kernelarc::report {

namespace {

// A rejected candidate was never timed: its effect of 0 means "not measured", not "as fast".
bool measured(const store::ConclusionRecord& c) { return c.outcome.rfind("rejected", 0) != 0; }

std::string effect_text(const store::ConclusionRecord& c) { return measured(c) ? common::effect_ratio(c.effect) : "-"; }

std::string one_line(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  std::replace(text.begin(), text.end(), '\t', ' ');
  return text;
}

// The byte offset of character `n` (UTF-8: continuation bytes are not characters), or the size when shorter.
std::size_t character_offset(const std::string& text, std::size_t n) {
  std::size_t characters = 0;
  for (std::size_t at = 0; at < text.size(); ++at) {
    if ((static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) continue;
    if (characters++ == n) return at;
  }
  return text.size();
}

// Cut to `width` characters, never inside one, ending in "..." when cut.
std::string cut(const std::string& text, std::size_t width) {
  if (character_offset(text, width) == text.size()) return text;
  if (width < 3) return text.substr(0, character_offset(text, width));
  return text.substr(0, character_offset(text, width - 3)) + "...";
}

std::size_t display_width(const std::string& text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::string pad(const std::string& text, std::size_t width, bool right) {
  const std::size_t used = display_width(text);
  const std::string fill(used < width ? width - used : 0, ' ');
  return right ? fill + text : text + fill;
}

}  // namespace

std::vector<store::ConclusionRecord> board_entries(const store::Store& store, const BoardQuery& query) {
  std::set<std::string> tasks;
  if (query.task) tasks.insert(*query.task);
  if (query.run_id) {
    const auto run = store.run(*query.run_id);
    if (!run) throw BoardError(fmt::format("the store has no run {}", *query.run_id));
    const auto task = store.task(run->task_id);
    if (!task) throw BoardError(fmt::format("run {} names task {}, which the store lacks", run->id, run->task_id));
    if (query.task && *query.task != task->name) return {};
    tasks = {task->name};
  }
  if (tasks.empty()) {
    std::set<std::int64_t> task_ids;
    for (const auto& run : store.runs())
      if (task_ids.insert(run.task_id).second)
        if (const auto task = store.task(run.task_id)) tasks.insert(task->name);
  }
  std::vector<store::ConclusionRecord> entries;
  for (const auto& task : tasks)
    for (auto& c : store.conclusions(task))
      if (!query.run_id || c.run_id == query.run_id) entries.push_back(std::move(c));
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.id > b.id; });
  if (query.limit > 0 && entries.size() > query.limit) entries.resize(query.limit);
  return entries;
}

std::string board_table(const std::vector<store::ConclusionRecord>& entries, std::size_t width) {
  constexpr std::size_t kColumns = 8;
  // The widest a column gets before its cells are cut; the lesson, last, is never padded.
  constexpr std::array<std::size_t, kColumns> kCaps = {8, 6, 24, 14, 48, 32, 13, 0};
  constexpr std::array<bool, kColumns> kRight = {true, true, false, false, false, false, true, false};
  std::vector<std::array<std::string, kColumns>> rows;
  rows.push_back({"id", "run", "task", "strategy", "change", "outcome", "effect", "lesson"});
  for (const auto& c : entries)
    rows.push_back({std::to_string(c.id), c.run_id ? std::to_string(*c.run_id) : "-", one_line(c.task), one_line(c.strategy),
                    one_line(c.change), one_line(c.outcome), effect_text(c), one_line(c.lesson)});
  std::array<std::size_t, kColumns> widths{};
  for (auto& row : rows)
    for (std::size_t i = 0; i + 1 < kColumns; ++i) {
      row[i] = cut(row[i], kCaps[i]);
      widths[i] = std::max(widths[i], display_width(row[i]));
    }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t i = 0; i < kColumns; ++i) {
      if (i) line += "  ";
      line += i + 1 < kColumns ? pad(row[i], widths[i], kRight[i]) : row[i];
    }
    if (width > 0) line = cut(line, width);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

nlohmann::json board_json(const std::vector<store::ConclusionRecord>& entries) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& c : entries)
    out.push_back({{"id", c.id}, {"run", c.run_id ? nlohmann::json(*c.run_id) : nlohmann::json()}, {"task", c.task},
                   {"workload_class", c.workload_class}, {"strategy", c.strategy}, {"change", c.change}, {"outcome", c.outcome},
                   {"effect", c.effect}, {"lesson", c.lesson}, {"created_at", c.created_at}});
  return out;
}

}  // namespace kernelarc::report
