#include "llm/prompt_library.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

namespace kernelarc::llm {
namespace {

// The strategies an agent can own (task.h's strategy_names()); each has its guidance in strategies/<strategy>.md.
const std::vector<std::string> kStrategies = {"memory", "precision", "fusion", "tiling", "pipelining", "algorithmic"};

const std::set<std::string> kSystemPlaceholders = {"strategy", "strategy_guidance"};
const std::set<std::string> kProposalPlaceholders = {
    "task_name", "op_type",     "description", "language",   "abi",      "tolerance", "reference",
    "device",    "roofline",    "workloads",   "base_source", "base_knobs", "strategy", "board",     "feedback"};
const std::set<std::string> kComplaintPlaceholders = {"what_was_wrong"};

struct Placeholder {
  std::size_t begin = 0, end = 0;  // "{{" to past "}}"
  std::string name;
};

// The next {{name}} at or after `from` with a name of [a-z_]+; other braces are text.
std::optional<Placeholder> next_placeholder(const std::string& text, std::size_t from) {
  for (std::size_t open = text.find("{{", from); open != std::string::npos; open = text.find("{{", open + 1)) {
    std::size_t close = open + 2;
    while (close < text.size() && ((text[close] >= 'a' && text[close] <= 'z') || text[close] == '_')) ++close;
    if (close > open + 2 && text.compare(close, 2, "}}") == 0)
      return Placeholder{open, close + 2, text.substr(open + 2, close - open - 2)};
  }
  return std::nullopt;
}

std::string read_template(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw PromptError(fmt::format("prompt template {} cannot be read", file.string()));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A template naming a placeholder nobody fills fails when it is loaded, not when an agent first needs it.
void check_placeholders(const std::string& text, const std::set<std::string>& known, const std::filesystem::path& file) {
  for (auto placeholder = next_placeholder(text, 0); placeholder; placeholder = next_placeholder(text, placeholder->end))
    if (known.count(placeholder->name) == 0)
      throw PromptError(fmt::format("prompt template {}: unknown placeholder {{{{{}}}}}", file.string(), placeholder->name));
}

std::string render_named(const std::string& text, const std::map<std::string, std::string>& values,
                         const std::string& template_name) {
  try {
    return render_template(text, values);
  } catch (const PromptError& error) {
    throw PromptError(fmt::format("prompt template {}: {}", template_name, error.what()));
  }
}

std::string board_bullets(const std::vector<std::string>& board, std::size_t budget) {
  if (board.empty()) return "(empty)";
  std::string text;
  std::size_t shown = 0;
  for (; shown < board.size(); ++shown) {
    std::string bullet = "- " + board[shown];
    std::replace(bullet.begin(), bullet.end(), '\n', ' ');
    const std::size_t length = text.size() + (text.empty() ? 0 : 1) + bullet.size();
    if (length > budget) break;
    text += (text.empty() ? "" : "\n") + bullet;
  }
  if (shown < board.size()) text += fmt::format("{}({} more not shown)", text.empty() ? "" : "\n", board.size() - shown);
  return text;
}

bool is_utf8_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// The first two thirds and the last third of the budget, never splitting a UTF-8 character.
std::string cut_feedback(const std::string& feedback, std::size_t budget) {
  if (feedback.empty()) return "(this is your first proposal)";
  if (feedback.size() <= budget) return feedback;
  std::size_t head = budget * 2 / 3;
  while (head > 0 && is_utf8_continuation(feedback[head])) --head;
  std::size_t tail_start = feedback.size() - (budget - budget * 2 / 3);
  while (tail_start < feedback.size() && is_utf8_continuation(feedback[tail_start])) ++tail_start;
  return fmt::format("{}\n[... {} characters cut ...]\n{}", feedback.substr(0, head), tail_start - head,
                     feedback.substr(tail_start));
}

}  // namespace

std::string render_template(const std::string& text, const std::map<std::string, std::string>& values) {
  std::string result;
  std::size_t copied = 0;
  for (auto placeholder = next_placeholder(text, 0); placeholder; placeholder = next_placeholder(text, placeholder->end)) {
    const auto value = values.find(placeholder->name);
    if (value == values.end()) throw PromptError(fmt::format("unknown placeholder {{{{{}}}}}", placeholder->name));
    result.append(text, copied, placeholder->begin - copied);
    result += value->second;
    copied = placeholder->end;
  }
  result.append(text, copied);
  return result;
}

PromptLibrary::PromptLibrary(const std::filesystem::path& directory) {
  system_ = read_template(directory / "system.md");
  proposal_ = read_template(directory / "proposal.md");
  complaint_ = read_template(directory / "complaint.md");
  check_placeholders(system_, kSystemPlaceholders, directory / "system.md");
  check_placeholders(proposal_, kProposalPlaceholders, directory / "proposal.md");
  check_placeholders(complaint_, kComplaintPlaceholders, directory / "complaint.md");
  for (const std::string& strategy : kStrategies) {
    std::string guidance = read_template(directory / "strategies" / (strategy + ".md"));
    guidance.erase(guidance.find_last_not_of("\n") + 1);  // system.md places it on lines of its own
    strategies_[strategy] = std::move(guidance);
  }
}

std::filesystem::path PromptLibrary::default_directory() {
  const char* directory = std::getenv("KERNELARC_PROMPTS_DIR");
  if (directory != nullptr && *directory != '\0') return directory;
  return KERNELARC_PROMPTS_DIR;
}

std::string PromptLibrary::system(const std::string& strategy) const {
  const auto guidance = strategies_.find(strategy);
  if (guidance == strategies_.end()) {
    throw PromptError(fmt::format("unknown strategy \"{}\": the strategies are {}", strategy, fmt::join(kStrategies, ", ")));
  }
  return render_named(system_, {{"strategy", strategy}, {"strategy_guidance", guidance->second}}, "system.md");
}

std::string PromptLibrary::proposal(const PromptInputs& inputs) const {
  return render_named(proposal_,
                      {{"task_name", inputs.task_name},
                       {"op_type", inputs.op_type},
                       {"description", inputs.description},
                       {"language", inputs.language},
                       {"abi", inputs.abi},
                       {"tolerance", inputs.tolerance},
                       {"reference", inputs.reference},
                       {"device", inputs.device},
                       {"roofline", inputs.roofline},
                       {"workloads", inputs.workloads},
                       {"base_source", inputs.base_source},
                       {"base_knobs", inputs.base_knobs.empty() ? "(none)" : inputs.base_knobs},
                       {"strategy", inputs.strategy},
                       {"board", board_bullets(inputs.board, inputs.board_budget_chars)},
                       {"feedback", cut_feedback(inputs.feedback, inputs.feedback_budget_chars)}},
                      "proposal.md");
}

std::string PromptLibrary::complaint(const std::string& what_was_wrong) const {
  return render_named(complaint_, {{"what_was_wrong", what_was_wrong}}, "complaint.md");
}

}  // namespace kernelarc::llm
