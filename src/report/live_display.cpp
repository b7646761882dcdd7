#include "report/live_display.h"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "common/units.h"

namespace kernelarc::report {

namespace {

std::size_t characters(const std::string& text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

// Cut to `width` characters (never inside one), ending in "..." when cut.
std::string cut(const std::string& text, std::size_t width) {
  if (characters(text) <= width) return text;
  const std::size_t keep = width < 3 ? width : width - 3;
  std::size_t seen = 0, at = 0;
  for (; at < text.size(); ++at) {
    if ((static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) continue;
    if (seen++ == keep) break;
  }
  return text.substr(0, at) + (width < 3 ? "" : "...");
}

std::string candidate_time(double ns, std::int64_t candidate) {
  if (!(ns > 0)) return "-";
  return candidate > 0 ? fmt::format("{} (candidate {})", common::format_time_ns(ns), candidate) : common::format_time_ns(ns);
}

std::string incumbent_text(const engine::RunSummary& s) {
  if (!s.best) return "no incumbent yet";
  std::string text = fmt::format("incumbent {}", candidate_time(s.best->time_ns, s.best_candidate));
  if (s.best_candidate == s.start_candidate) text += ", the start";
  else if (s.start_ns() > 0) text += fmt::format(", {} than the start", common::speed_ratio(s.start_ns(), s.best->time_ns));
  if (s.best->sol_fraction > 0) text += fmt::format(", {:.1f}% of the roofline", 100 * s.best->sol_fraction);
  if (s.best->sol_score) text += fmt::format(", SOL score {:.3f}", *s.best->sol_score);
  return text;
}

// "about 3m10s left", from the pace so far; empty before the first candidate or once the budget is spent.
std::string estimate_text(const engine::RunSummary& s, int budget) {
  // A screening run judges in full only the fastest of each round: its pace per judged candidate says nothing of the rest.
  if (s.screened > 0) return fmt::format(", {} screened", s.screened);
  if (s.judged < 1 || s.judged >= budget || s.elapsed_s <= 0) return "";
  return fmt::format(", about {} left", format_duration(s.elapsed_s / s.judged * (budget - s.judged)));
}

}  // namespace

std::string format_duration(double seconds) { return common::format_duration_s(seconds); }

LiveDisplay::LiveDisplay(std::FILE* out, bool interactive, std::string title, std::function<std::optional<TerminalSize>()> size)
    : out_(out), interactive_(interactive), title_(std::move(title)), size_of_(std::move(size)) {
  if (!interactive_) return;
  if (!size_of_) size_of_ = [out] { return terminal_size(out); };
  size_ = size_of_();
  watcher_ = std::thread([this] { watch(); });
}

LiveDisplay::~LiveDisplay() { close(); }

bool LiveDisplay::is_terminal(std::FILE* stream) {
  const char* term = std::getenv("TERM");
  return isatty(fileno(stream)) && term && std::strcmp(term, "dumb") != 0;
}

std::optional<TerminalSize> LiveDisplay::terminal_size(std::FILE* stream) {
  winsize size{};
  if (ioctl(fileno(stream), TIOCGWINSZ, &size) != 0 || size.ws_col == 0 || size.ws_row == 0) return std::nullopt;
  return TerminalSize{size.ws_col, size.ws_row};
}

std::vector<std::string> LiveDisplay::block(const std::string& title, const engine::RunSummary& s, int budget, std::optional<TerminalSize> size) {
  std::vector<std::string> lines;
  lines.push_back(fmt::format("{}: {}/{} judged in {}{}, {} promotions, board {} entries, {} plateaus", title, s.judged, budget,
                              format_duration(s.elapsed_s), estimate_text(s, budget), s.promotions, s.board_size, s.plateaus));
  lines.push_back("  " + incumbent_text(s));
  const auto total = s.usage();
  if (!total.empty())
    lines.push_back(fmt::format("  models: {} requests ({} failed), {} tokens in, {} out, ${:.4f}", total.requests, total.failures, total.tokens_in,
                                total.tokens_out, total.cost_usd));
  const std::size_t fixed = lines.size();
  for (const auto& a : s.agent_status)
    // The last verdict last: on a narrow terminal it is what is cut.
    lines.push_back(fmt::format("  {:<9} {:<12} {:>3} judged  best {:<25}{}  last {}", a.name, a.strategy, a.judged,
                                candidate_time(a.best_ns, a.best_candidate),
                                a.usage.empty() ? "" : fmt::format("  ${:.4f}{}", a.usage.cost_usd, a.retired ? " (gave up)" : ""),
                                a.last.empty() ? "-" : a.last));
  if (!size) return lines;
  // The log keeps two rows at least; agents that do not fit are counted.
  const std::size_t room = static_cast<std::size_t>(std::max(size->rows - 2, 1));
  if (lines.size() > room) {
    const std::size_t agents_shown = room > fixed + 1 ? room - fixed - 1 : 0;
    const std::size_t hidden = lines.size() - fixed - agents_shown;
    lines.resize(std::min(fixed + agents_shown, room));
    if (lines.size() < room) lines.push_back(fmt::format("  ... and {} more agent{}", hidden, hidden == 1 ? "" : "s"));
  }
  // One column short of the width: a line that fills the last column makes some terminals wrap.
  for (auto& line : lines) line = cut(line, static_cast<std::size_t>(std::max(size->columns - 1, 1)));
  return lines;
}

std::size_t LiveDisplay::rows_taken(const std::vector<std::string>& lines, int columns) {
  std::size_t rows = 0;
  const std::size_t width = static_cast<std::size_t>(std::max(columns, 1));
  for (const auto& line : lines) rows += std::max<std::size_t>(1, (characters(line) + width - 1) / width);
  return rows;
}

bool LiveDisplay::fits() const { return size_ && size_->columns >= kMinColumns && size_->rows >= kMinRows; }

void LiveDisplay::erase_block() {
  if (drawn_rows_ > 0) fmt::print(out_, "\x1b[{}F\x1b[J", drawn_rows_);  // to the block's first row, then clear below
  drawn_rows_ = 0;
}

void LiveDisplay::draw_block() {
  for (const auto& l : block_) fmt::print(out_, "{}\n", l);
  drawn_rows_ = block_.empty() ? 0 : rows_taken(block_, size_ ? size_->columns : 80);
}

void LiveDisplay::redraw() {
  erase_block();
  if (!state_ || !fits()) {
    block_.clear();
    return;
  }
  engine::RunSummary now = *state_;
  now.elapsed_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - state_at_).count();
  block_ = block(title_, now, budget_, size_);
  draw_block();
}

void LiveDisplay::watch() {
  std::unique_lock lock(mutex_);
  auto last_draw = std::chrono::steady_clock::now();
  while (!stopping_) {
    wake_.wait_for(lock, std::chrono::milliseconds(250));
    if (stopping_) break;
    const auto size = size_of_();
    const bool resized = size.has_value() != size_.has_value() ||
                         (size && (size->columns != size_->columns || size->rows != size_->rows));
    if (resized) {
      // Rows the block takes now: a terminal that re-wraps its lines on a resize has wrapped the block's at the new width.
      if (drawn_rows_ > 0 && size) drawn_rows_ = rows_taken(block_, size->columns);
      size_ = size;
    }
    const bool tick = state_ && std::chrono::steady_clock::now() - last_draw >= std::chrono::seconds(1);
    if (!resized && !tick) continue;
    const bool had_block = drawn_rows_ > 0;
    redraw();
    if (resized && had_block && !fits()) fmt::print(out_, "(the terminal is too small for the live display: plain lines until it grows)\n");
    std::fflush(out_);
    last_draw = std::chrono::steady_clock::now();
  }
}

void LiveDisplay::close() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  wake_.notify_all();
  if (watcher_.joinable()) watcher_.join();
  std::fflush(out_);
}

void LiveDisplay::line(const std::string& text) {
  std::lock_guard lock(mutex_);
  const bool drawing = interactive_ && fits() && !stopping_;
  if (drawing) erase_block();
  fmt::print(out_, "{}\n", text);
  if (drawing) draw_block();
  std::fflush(out_);
}

void LiveDisplay::update(const engine::RunSummary& so_far, int budget) {
  std::lock_guard lock(mutex_);
  const double best_ns = so_far.best ? so_far.best->time_ns : 0;
  state_ = so_far;
  budget_ = budget;
  state_at_ = std::chrono::steady_clock::now();
  if (interactive_ && fits() && !stopping_) {
    redraw();
  } else if (best_ns != last_best_ns_ || so_far.plateaus != last_plateaus_) {
    fmt::print(out_, "status: {}/{} judged in {}{}; {}; board {} entries; {} plateaus\n", so_far.judged, budget, format_duration(so_far.elapsed_s),
               estimate_text(so_far, budget), incumbent_text(so_far), so_far.board_size, so_far.plateaus);
  }
  last_best_ns_ = best_ns;
  last_plateaus_ = so_far.plateaus;
  std::fflush(out_);
}

}  // namespace kernelarc::report
