#include "brains/search_brain.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <regex>
#include <vector>

namespace kernelarc::brains {

SearchBrain::SearchBrain(const task::Template& tmpl, std::string strategy, std::uint64_t seed)
    : template_(tmpl), strategy_(std::move(strategy)), random_(seed) {}

Knobs SearchBrain::settings_in(const std::string& change) {
  static const std::regex step(R"(^([A-Za-z_][A-Za-z0-9_]*) \S+ -> (-?[0-9]+))");
  static const std::regex assignment(R"(([A-Za-z_][A-Za-z0-9_]*)=(-?[0-9]+))");
  Knobs settings;
  std::smatch match;
  if (std::regex_search(change, match, step)) {
    settings[match[1].str()] = std::stoll(match[2].str());
  } else if (change.rfind("jump to ", 0) == 0) {
    const auto reason = change.find(" (");
    const std::string list = change.substr(8, reason == std::string::npos ? std::string::npos : reason - 8);
    for (auto it = std::sregex_iterator(list.begin(), list.end(), assignment); it != std::sregex_iterator(); ++it)
      settings[(*it)[1].str()] = std::stoll((*it)[2].str());
  }
  return settings;
}

std::optional<Proposal> SearchBrain::propose(const Knobs& base, const std::set<Knobs>& tried, const std::vector<Conclusion>& evidence) {
  std::vector<const task::Knob*> mine;
  for (const auto& knob : template_.knobs)
    if (knob.strategy == strategy_) mine.push_back(&knob);
  if (mine.empty()) return std::nullopt;

  // Every neighbour: one of this strategy's knobs set to another of its values.
  std::vector<std::pair<const task::Knob*, std::int64_t>> moves;
  for (const auto* knob : mine)
    for (const auto value : knob->values)
      if (base.count(knob->name) == 0 || base.at(knob->name) != value) moves.emplace_back(knob, value);
  std::shuffle(moves.begin(), moves.end(), random_);
  // What the board says about each move: effects of the conclusions that made it, a failure counting -1.
  std::map<std::pair<std::string, std::int64_t>, double> score;
  for (const auto& conclusion : evidence)
    for (const auto& [name, value] : settings_in(conclusion.change))
      score[{name, value}] += conclusion.outcome.rfind("rejected", 0) == 0 ? -1.0 : conclusion.effect;
  std::stable_sort(moves.begin(), moves.end(), [&](const auto& a, const auto& b) {
    const auto score_of = [&](const auto& move) {
      const auto found = score.find({move.first->name, move.second});
      return found == score.end() ? 0.0 : found->second;
    };
    return score_of(a) > score_of(b);
  });
  for (const auto& [knob, value] : moves) {
    Knobs next = base;
    next[knob->name] = value;
    // A value the constraints allow only with other knobs changed brings the fewest such changes along.
    const auto near = engine::allowed_near(template_, next, knob->name, tried);
    if (!near) continue;
    std::string along;
    for (const auto& [name, changed] : *near)
      if (const auto was = next.find(name); was == next.end() || was->second != changed)
        along += fmt::format("{}{}={}", along.empty() ? " with " : " ", name, changed);
    const auto from = base.find(knob->name);
    return Proposal{*near, fmt::format("{} {} -> {}{} ({}: {})", knob->name, from == base.end() ? std::string("default") : std::to_string(from->second),
                                       value, along, strategy_, knob->description.empty() ? "try the neighbour" : knob->description),
                    std::nullopt};
  }
  // Every neighbour tried: a random configuration of this strategy's knobs, the others kept.
  for (int attempt = 0; attempt < 64; ++attempt) {
    Knobs next = base;
    for (const auto* knob : mine) next[knob->name] = knob->values[random_() % knob->values.size()];
    if (tried.count(next) || !engine::knobs_allowed(template_, next)) continue;
    std::string changes;
    for (const auto* knob : mine) changes += fmt::format("{}{}={}", changes.empty() ? "" : " ", knob->name, next[knob->name]);
    return Proposal{next, fmt::format("jump to {} ({}: every single step from the incumbent was tried)", changes, strategy_), std::nullopt};
  }
  return std::nullopt;
}

}  // namespace kernelarc::brains
