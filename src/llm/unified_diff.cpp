#include "llm/unified_diff.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <regex>
#include <string>
#include <vector>

namespace kernelarc::llm {
namespace {

// Models get line numbers wrong; a hunk is looked for this far on either side of where its header puts it.
constexpr std::ptrdiff_t kSearchRadius = 50;

const std::regex& hunk_header_pattern() {
  static const std::regex pattern(R"(^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@.*$)");
  return pattern;
}

struct Text {
  std::vector<std::string> lines;
  bool ends_with_newline = true;
};

Text split_text(const std::string& text) {
  Text result;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    if (end == std::string::npos) {
      result.lines.push_back(text.substr(start));
      result.ends_with_newline = false;
      break;
    }
    result.lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return result;
}

std::string join_text(const Text& text) {
  std::string result;
  for (std::size_t i = 0; i < text.lines.size(); ++i) {
    result += text.lines[i];
    if (i + 1 < text.lines.size() || text.ends_with_newline) result += '\n';
  }
  return result;
}

struct HunkLine {
  char kind;  // ' ', '-' or '+'
  std::string text;
  bool bare_blank = false;  // an empty line without its leading space: context, or padding between hunks
};

struct Hunk {
  int number = 0;            // 1-based, for messages
  std::string header;
  std::size_t old_start = 0;   // as the header states it, 1-based (0 for an empty old side)
  std::vector<HunkLine> lines;
  bool old_lacks_final_newline = false;
  bool new_lacks_final_newline = false;

  std::vector<std::string> old_side() const {
    std::vector<std::string> side;
    for (const HunkLine& line : lines)
      if (line.kind != '+') side.push_back(line.text);
    return side;
  }

  // 0-based: "-a,0" inserts after line a; "-a,b" with b > 0 starts at line a.
  std::ptrdiff_t stated_position() const {
    const bool inserts_only = old_side().empty();
    return static_cast<std::ptrdiff_t>(inserts_only || old_start == 0 ? old_start : old_start - 1);
  }

  // The hunk without the bare blank lines it ends with, when it ends with any.
  std::optional<Hunk> without_trailing_blanks() const {
    if (lines.empty() || !lines.back().bare_blank) return std::nullopt;
    Hunk trimmed = *this;
    while (!trimmed.lines.empty() && trimmed.lines.back().bare_blank) trimmed.lines.pop_back();
    return trimmed;
  }
};

std::vector<std::string> diff_lines(const std::string& diff) {
  std::vector<std::string> lines = split_text(diff).lines;
  for (std::string& line : lines)
    if (!line.empty() && line.back() == '\r') line.pop_back();
  // Blank lines after the last hunk are the fence's or the model's padding, not context.
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}

bool is_file_header_at(const std::vector<std::string>& lines, std::size_t i) {
  return lines[i].rfind("--- ", 0) == 0 && i + 1 < lines.size() && lines[i + 1].rfind("+++ ", 0) == 0;
}

// The hunks in order. The counts in a header are not trusted: a hunk runs until the next header or the end.
std::vector<Hunk> parse_hunks(const std::string& diff) {
  const std::vector<std::string> lines = diff_lines(diff);
  std::vector<Hunk> hunks;
  bool seen_file_header = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    if (is_file_header_at(lines, i)) {
      if (seen_file_header && !hunks.empty())
        throw DiffError(fmt::format("the diff changes more than one file (a second header \"{}\"); send one file's diff", line));
      seen_file_header = true;
      ++i;
      continue;
    }
    if (line.rfind("@@", 0) == 0) {
      std::smatch match;
      if (!std::regex_match(line, match, hunk_header_pattern()))
        throw DiffError(fmt::format("hunk {} header \"{}\" is not of the form @@ -a,b +c,d @@", hunks.size() + 1, line));
      Hunk hunk;
      hunk.number = static_cast<int>(hunks.size()) + 1;
      hunk.header = line;
      // A model may write any number there: one past any text's length means "at the end", not an exception.
      const std::string start = match[1].str();
      hunk.old_start = start.size() > 9 ? 1000000000ul : std::stoul(start);
      hunks.push_back(std::move(hunk));
      continue;
    }
    if (hunks.empty()) continue;  // "diff --git", "index ..." and other lines before the first hunk
    Hunk& hunk = hunks.back();
    if (line.empty()) {
      hunk.lines.push_back({' ', "", true});
    } else if (line[0] == ' ' || line[0] == '-' || line[0] == '+') {
      hunk.lines.push_back({line[0], line.substr(1)});
    } else if (line[0] == '\\') {
      if (hunk.lines.empty())
        throw DiffError(fmt::format("hunk {} ({}): \"{}\" follows no line", hunk.number, hunk.header, line));
      const char previous = hunk.lines.back().kind;
      if (previous != '+') hunk.old_lacks_final_newline = true;
      if (previous != '-') hunk.new_lacks_final_newline = true;
    } else {
      throw DiffError(fmt::format("hunk {} ({}): line \"{}\" starts with neither ' ', '-' nor '+'", hunk.number,
                                  hunk.header, line));
    }
  }
  if (hunks.empty()) throw DiffError("the diff has no hunk (no \"@@ -a,b +c,d @@\" line)");
  return hunks;
}

bool matches_at(const std::vector<std::string>& source, const std::vector<std::string>& old_side, std::size_t at) {
  if (at + old_side.size() > source.size()) return false;
  for (std::size_t i = 0; i < old_side.size(); ++i)
    if (source[at + i] != old_side[i]) return false;
  return true;
}

// Why the hunk does not match where its header says: its first line that differs from the source there.
std::string first_mismatch(const std::vector<std::string>& source, const std::vector<std::string>& old_side,
                           std::size_t at) {
  for (std::size_t i = 0; i < old_side.size(); ++i) {
    if (at + i >= source.size())
      return fmt::format("its line \"{}\" falls past the end of the source ({} lines)", old_side[i], source.size());
    if (source[at + i] != old_side[i])
      return fmt::format("its line \"{}\" does not match line {} of the source (\"{}\")", old_side[i], at + i + 1,
                         source[at + i]);
  }
  return "it matches there only by overlapping the hunk before it";
}

// Where the hunk's old side starts in `source` (0-based), at or after `earliest`: at its stated line moved by the
// previous hunk's drift, else at the one place within kSearchRadius lines of it where it matches.
std::size_t locate(const Hunk& hunk, const std::vector<std::string>& source, std::size_t earliest,
                   std::ptrdiff_t drift) {
  const std::vector<std::string> old_side = hunk.old_side();
  const std::ptrdiff_t expected = hunk.stated_position() + drift;
  const std::ptrdiff_t lowest = static_cast<std::ptrdiff_t>(earliest);
  const std::ptrdiff_t highest =
      static_cast<std::ptrdiff_t>(source.size()) - static_cast<std::ptrdiff_t>(old_side.size());
  if (old_side.empty()) return static_cast<std::size_t>(std::clamp(expected, lowest, std::max(lowest, highest)));
  if (expected >= lowest && expected <= highest && matches_at(source, old_side, static_cast<std::size_t>(expected)))
    return static_cast<std::size_t>(expected);
  std::vector<std::size_t> found;
  const std::ptrdiff_t first = std::max(lowest, expected - kSearchRadius);
  const std::ptrdiff_t last = std::min(highest, expected + kSearchRadius);
  for (std::ptrdiff_t at = first; at <= last; ++at)
    if (matches_at(source, old_side, static_cast<std::size_t>(at))) found.push_back(static_cast<std::size_t>(at));
  if (found.size() == 1) return found.front();
  if (found.size() > 1) {
    std::string places;
    for (std::size_t at : found) places += fmt::format("{}{}", places.empty() ? "" : ", ", at + 1);
    throw DiffError(fmt::format("hunk {} ({}) does not match at line {} and matches at several lines near it ({}): "
                                "give it more context lines",
                                hunk.number, hunk.header, expected + 1, places));
  }
  const std::size_t shown = static_cast<std::size_t>(
      std::clamp<std::ptrdiff_t>(expected, 0, static_cast<std::ptrdiff_t>(source.size())));
  throw DiffError(fmt::format("hunk {} ({}) matches nowhere within {} lines of line {}: {}", hunk.number, hunk.header,
                              kSearchRadius, shown + 1, first_mismatch(source, old_side, shown)));
}

struct Placed {
  Hunk hunk;
  std::size_t at;
};

// The hunk and where it goes; blank lines it ends with are dropped when it matches only without them.
Placed place(const Hunk& hunk, const std::vector<std::string>& source, std::size_t earliest, std::ptrdiff_t drift) {
  try {
    return {hunk, locate(hunk, source, earliest, drift)};
  } catch (const DiffError& error) {
    const std::optional<Hunk> trimmed = hunk.without_trailing_blanks();
    if (!trimmed) throw;
    try {
      return {*trimmed, locate(*trimmed, source, earliest, drift)};
    } catch (const DiffError&) {
      throw error;
    }
  }
}

}  // namespace

bool looks_like_unified_diff(const std::string& text) {
  for (const std::string& line : diff_lines(text))
    if (std::regex_match(line, hunk_header_pattern())) return true;
  return false;
}

std::string apply_unified_diff(const std::string& original, const std::string& diff) {
  const std::vector<Hunk> hunks = parse_hunks(diff);
  const Text source = split_text(original);
  Text result;
  result.ends_with_newline = source.ends_with_newline || source.lines.empty();
  std::size_t copied = 0;        // source lines consumed so far
  std::ptrdiff_t drift = 0;      // how far the previous hunk sat from its stated line
  for (const Hunk& stated : hunks) {
    const auto [hunk, at] = place(stated, source.lines, copied, drift);
    drift = static_cast<std::ptrdiff_t>(at) - hunk.stated_position();
    result.lines.insert(result.lines.end(), source.lines.begin() + static_cast<std::ptrdiff_t>(copied),
                        source.lines.begin() + static_cast<std::ptrdiff_t>(at));
    std::size_t consumed = 0;
    for (const HunkLine& line : hunk.lines) {
      if (line.kind != '-') result.lines.push_back(line.text);
      if (line.kind != '+') ++consumed;
    }
    copied = at + consumed;
    if (copied == source.lines.size()) {
      if (hunk.new_lacks_final_newline) result.ends_with_newline = false;
      else if (hunk.old_lacks_final_newline) result.ends_with_newline = true;
    }
  }
  result.lines.insert(result.lines.end(), source.lines.begin() + static_cast<std::ptrdiff_t>(copied), source.lines.end());
  return join_text(result);
}

}  // namespace kernelarc::llm
