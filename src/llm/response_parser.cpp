#include "llm/response_parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <limits>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "llm/unified_diff.h"

namespace kernelarc::llm {
namespace {

constexpr std::size_t kMaxHypothesisChars = 200;
constexpr const char* kNoHypothesis = "no hypothesis given";
constexpr const char* kAskForOneBlock =
    "give exactly one fenced code block with the whole candidate source (or a unified diff against the incumbent)";

enum class BlockKind { source, diff, knobs, other };

struct Block {
  std::string language;   // the info string's first word, lower case
  std::string content;    // its lines, each ending in '\n'
  std::size_t line = 0;   // 1-based line of the opening fence
  std::string fence;      // "```" or "~~~" (as long as the opening one)
  bool closed = false;
  BlockKind kind = BlockKind::other;
};

using ProseLine = std::string;
using Item = std::variant<ProseLine, Block>;  // the answer in order: prose lines outside blocks, and blocks

std::string trim(const std::string& text) {
  const auto not_space = [](unsigned char c) { return !std::isspace(c); };
  const auto begin = std::find_if(text.begin(), text.end(), not_space);
  const auto end = std::find_if(text.rbegin(), text.rend(), not_space).base();
  return begin < end ? std::string(begin, end) : std::string();
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    start = end + 1;
  }
  return lines;
}

bool is_json_object(const std::string& text) {
  const std::string trimmed = trim(text);
  return !trimmed.empty() && trimmed.front() == '{' && nlohmann::json::accept(trimmed);
}

BlockKind classify(const Block& block) {
  static const std::set<std::string> source_languages = {"cpp", "c++", "cu", "cuda", "c"};
  if (block.language == "diff" || block.language == "patch" || looks_like_unified_diff(block.content))
    return BlockKind::diff;
  if (block.language == "json") return BlockKind::knobs;
  if (source_languages.count(block.language) > 0) return BlockKind::source;
  if (block.language.empty()) return is_json_object(block.content) ? BlockKind::knobs : BlockKind::source;
  return BlockKind::other;
}

std::vector<Item> split_answer(const std::string& answer) {
  static const std::regex opening(R"(^\s*(`{3,}|~{3,})\s*([^`\s]*).*$)");
  std::vector<Item> items;
  const std::vector<std::string> lines = split_lines(answer);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::smatch match;
    if (!std::regex_match(lines[i], match, opening)) {
      items.emplace_back(ProseLine(lines[i]));
      continue;
    }
    Block block;
    block.fence = match[1].str();
    block.language = lower(match[2].str());
    block.line = i + 1;
    const std::size_t indent = static_cast<std::size_t>(match.position(1));
    for (++i; i < lines.size(); ++i) {
      const std::string closing = trim(lines[i]);
      const bool closes = closing.size() >= block.fence.size() &&
                          closing.find_first_not_of(block.fence.front()) == std::string::npos;
      if (closes) {
        block.closed = true;
        break;
      }
      // A fence indented inside a list item indents its lines as much; that indentation is not the code's.
      const std::size_t spaces = std::min(lines[i].find_first_not_of(' '), lines[i].size());
      block.content += lines[i].substr(std::min(indent, spaces)) + '\n';
    }
    block.kind = classify(block);
    items.emplace_back(std::move(block));
  }
  return items;
}

// The line without the markdown decoration in front of its text: bullets, numbers of a list, headings, quotes, bold,
// backticks ("1. **Hypothesis:** ...", "`Knobs: {...}`").
std::string undecorated(const std::string& line) {
  static const std::regex decoration(R"(^[\s#>*_`-]*(\d+[.)]\s+)?[\s#>*_`-]*)");
  return std::regex_replace(trim(line), decoration, "", std::regex_constants::format_first_only);
}

// The text after "label:" on a line, decoration around the label and the value dropped.
std::optional<std::string> labelled_value(const std::string& line, const std::string& label) {
  std::string rest = undecorated(line);
  if (lower(rest.substr(0, label.size())) != label) return std::nullopt;
  rest.erase(0, label.size());
  rest.erase(0, rest.find_first_not_of("*_` \t"));
  if (rest.empty() || rest.front() != ':') return std::nullopt;
  rest.erase(0, rest.find_first_not_of(":*_` \t"));
  rest.erase(rest.find_last_not_of("*` \t") + 1);
  return rest;
}

// At most kMaxHypothesisChars, cut at a word boundary (never inside a UTF-8 character) and marked with "...".
std::string shortened(const std::string& text) {
  if (text.size() <= kMaxHypothesisChars) return text;
  const std::size_t room = kMaxHypothesisChars - 3;
  std::size_t cut = room;
  if (text[cut] != ' ') {
    const std::size_t space = text.rfind(' ', cut);
    if (space != std::string::npos && space > 0) cut = space;
  }
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return trim(text.substr(0, cut)) + "...";
}

// One line: markdown bold dropped, runs of white space made one space.
std::string one_line(const std::string& text) {
  std::string result;
  bool in_space = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 2, "**") == 0) {
      ++i;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(text[i]))) {
      in_space = true;
      continue;
    }
    if (in_space && !result.empty()) result += ' ';
    in_space = false;
    result += text[i];
  }
  return result;
}

std::string first_sentence(const std::string& text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const bool ends = text[i] == '.' || text[i] == '!' || text[i] == '?';
    if (ends && (i + 1 == text.size() || text[i + 1] == ' ')) return text.substr(0, i + 1);
  }
  return text;
}

const ProseLine* prose_at(const std::vector<Item>& items, std::size_t i) { return std::get_if<ProseLine>(&items[i]); }

// The "Hypothesis:" line outside the blocks (its text on the next line when the label stands alone), else the first
// sentence of the prose before the first block.
std::string find_hypothesis(const std::vector<Item>& items) {
  for (std::size_t i = 0; i < items.size(); ++i) {
    const ProseLine* line = prose_at(items, i);
    if (line == nullptr) continue;
    const std::optional<std::string> value = labelled_value(*line, "hypothesis");
    if (!value) continue;
    if (!value->empty()) return shortened(one_line(*value));
    for (std::size_t next = i + 1; next < items.size() && prose_at(items, next) != nullptr; ++next)
      if (!trim(*prose_at(items, next)).empty()) return shortened(one_line(*prose_at(items, next)));
  }
  std::string prose;
  for (std::size_t i = 0; i < items.size() && prose_at(items, i) != nullptr; ++i) {
    const std::string line = trim(*prose_at(items, i));
    if (line.empty() || line.front() == '#' || labelled_value(line, "knobs")) continue;  // headings are not sentences
    prose += undecorated(line) + ' ';
  }
  const std::string sentence = first_sentence(one_line(prose));
  return sentence.empty() ? kNoHypothesis : shortened(sentence);
}

// Knob values from one JSON object ({"NAME": 4} or {"knobs": {"NAME": 4}}) into `knobs`; a complaint, or empty.
std::string read_knobs(const std::string& json_text, const std::string& where,
                       std::map<std::string, std::int64_t>& knobs) {
  const std::string ask = "write them as Knobs: {\"NAME\": 4, ...}";
  nlohmann::json parsed;
  try {
    parsed = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::exception& error) {
    return fmt::format("The knob values in {} are not valid JSON ({}): {}.", where, error.what(), ask);
  }
  if (parsed.is_object() && parsed.size() == 1 && parsed.contains("knobs")) parsed = nlohmann::json(parsed["knobs"]);
  if (!parsed.is_object()) return fmt::format("The knob values in {} are not a JSON object: {}.", where, ask);
  for (const auto& [name, value] : parsed.items()) {
    const bool fits = value.is_number_integer() &&
                      (!value.is_number_unsigned() ||
                       value.get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()));
    if (!fits)
      return fmt::format("Knob \"{}\" is {}, not an integer: give knob values as JSON integers, as in Knobs: {{\"{}\": 4}}.",
                         name, value.dump(), name);
    knobs[name] = value.get<std::int64_t>();
  }
  return "";
}

// Every knob value the answer gives, in order: json blocks and "Knobs: {...}" lines; a complaint, or empty.
std::string collect_knobs(const std::vector<Item>& items, std::map<std::string, std::int64_t>& knobs) {
  for (const Item& item : items) {
    std::string complaint;
    if (const Block* block = std::get_if<Block>(&item); block != nullptr && block->kind == BlockKind::knobs) {
      complaint = read_knobs(block->content, fmt::format("the json block on line {}", block->line), knobs);
    } else if (const ProseLine* line = std::get_if<ProseLine>(&item); line != nullptr) {
      const std::optional<std::string> value = labelled_value(*line, "knobs");
      if (!value || value->empty() || value->front() != '{') continue;  // "Knobs: unchanged" and other prose
      complaint = read_knobs(*value, fmt::format("the line \"{}\"", trim(*line)), knobs);
    }
    if (!complaint.empty()) return complaint;
  }
  return "";
}

// The block the candidate comes from: the last diff when there is one, else the last source block.
const Block* candidate_block(const std::vector<Item>& items) {
  const Block* last_diff = nullptr;
  const Block* last_source = nullptr;
  for (const Item& item : items) {
    const Block* block = std::get_if<Block>(&item);
    if (block == nullptr) continue;
    if (block->kind == BlockKind::diff) last_diff = block;
    if (block->kind == BlockKind::source) last_source = block;
  }
  return last_diff != nullptr ? last_diff : last_source;
}

}  // namespace

ParsedResponse parse_response(const std::string& answer, const std::string& base_source) {
  ParsedResponse parsed;
  const std::vector<Item> items = split_answer(answer);
  parsed.hypothesis = find_hypothesis(items);
  for (const Item& item : items) {
    const Block* block = std::get_if<Block>(&item);
    if (block != nullptr && !block->closed) {
      parsed.complaint = fmt::format(
          "The code block opened on line {} is not closed (no closing {}): the answer may have been cut off. Answer "
          "again with the whole block, closed by {}.",
          block->line, block->fence, block->fence);
      return parsed;
    }
  }
  parsed.complaint = collect_knobs(items, parsed.knobs);
  if (!parsed.usable()) return parsed;
  const Block* block = candidate_block(items);
  if (block != nullptr && trim(block->content).empty()) {
    parsed.complaint = fmt::format("The code block on line {} is empty: {}.", block->line, kAskForOneBlock);
    return parsed;
  }
  if (block != nullptr && block->kind == BlockKind::diff) {
    try {
      parsed.source = apply_unified_diff(base_source, block->content);
      parsed.from_diff = true;
    } catch (const DiffError& error) {
      parsed.complaint = fmt::format(
          "The unified diff does not apply to the incumbent: {}. Send the whole file instead: one fenced code block "
          "with the complete candidate source.",
          error.what());
    }
    return parsed;
  }
  if (block != nullptr) parsed.source = block->content;
  if (!parsed.source && parsed.knobs.empty())
    parsed.complaint = fmt::format("The answer has no candidate: {}.", kAskForOneBlock);
  return parsed;
}

}  // namespace kernelarc::llm
