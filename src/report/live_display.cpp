#include "report/live_display.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace kernelarc::report {

namespace {

std::string time_text(double ns) { return ns > 0 ? fmt::format("{:.2f} us", ns / 1e3) : "-"; }

std::string incumbent_text(const engine::RunSummary& s) {
  if (!s.best) return "no incumbent yet";
  std::string text = fmt::format("incumbent {}", time_text(s.best->time_ns));
  if (s.start.time_ns > 0) text += fmt::format(", {:.2f}x the start", s.start.time_ns / s.best->time_ns);
  if (s.best->sol_fraction > 0) text += fmt::format(", {:.1f}% of the roofline", 100 * s.best->sol_fraction);
  if (s.best->sol_score) text += fmt::format(", SOL score {:.3f}", *s.best->sol_score);
  return text;
}

}  // namespace

std::string format_duration(double seconds) {
  const long long s = static_cast<long long>(seconds + 0.5);
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, s % 3600 / 60);
}

LiveDisplay::LiveDisplay(std::FILE* out, bool interactive, std::string title) : out_(out), interactive_(interactive), title_(std::move(title)) {}

bool LiveDisplay::is_terminal(std::FILE* stream) {
  const char* term = std::getenv("TERM");
  return isatty(fileno(stream)) && term && std::strcmp(term, "dumb") != 0;
}

std::vector<std::string> LiveDisplay::block(const std::string& title, const engine::RunSummary& s, int budget) {
  std::vector<std::string> lines;
  lines.push_back(fmt::format("{}: {}/{} judged in {}, {} promotions, board {} entries, {} plateaus", title, s.judged, budget,
                              format_duration(s.elapsed_s), s.promotions, s.board_size, s.plateaus));
  lines.push_back("  " + incumbent_text(s));
  const auto total = s.usage();
  if (!total.empty())
    lines.push_back(fmt::format("  models: {} requests ({} failed), {} tokens in, {} out, ${:.4f}", total.requests, total.failures, total.tokens_in,
                                total.tokens_out, total.cost_usd));
  for (const auto& a : s.agent_status)
    lines.push_back(fmt::format("  {:<9} {:<12} {:>3} judged  last {:<32} best {}{}", a.name, a.strategy, a.judged,
                                a.last.empty() ? "-" : a.last.substr(0, 32), time_text(a.best_ns),
                                a.usage.empty() ? "" : fmt::format("  ${:.4f}{}", a.usage.cost_usd, a.retired ? " (gave up)" : "")));
  return lines;
}

void LiveDisplay::erase_block() {
  if (drawn_ > 0) fmt::print(out_, "\x1b[{}F\x1b[J", drawn_);  // to the block's first line, then clear below
  drawn_ = 0;
}

void LiveDisplay::draw_block() {
  for (const auto& l : block_) fmt::print(out_, "{}\n", l);
  drawn_ = block_.size();
}

void LiveDisplay::line(const std::string& text) {
  std::lock_guard lock(mutex_);
  if (interactive_) erase_block();
  fmt::print(out_, "{}\n", text);
  if (interactive_) draw_block();
  std::fflush(out_);
}

void LiveDisplay::update(const engine::RunSummary& so_far, int budget) {
  std::lock_guard lock(mutex_);
  const double best_ns = so_far.best ? so_far.best->time_ns : 0;
  if (interactive_) {
    erase_block();
    block_ = block(title_, so_far, budget);
    draw_block();
  } else if (best_ns != last_best_ns_ || so_far.plateaus != last_plateaus_) {
    fmt::print(out_, "status: {}/{} judged in {}; {}; board {} entries; {} plateaus\n", so_far.judged, budget, format_duration(so_far.elapsed_s),
               incumbent_text(so_far), so_far.board_size, so_far.plateaus);
  }
  last_best_ns_ = best_ns;
  last_plateaus_ = so_far.plateaus;
  std::fflush(out_);
}

}  // namespace kernelarc::report
