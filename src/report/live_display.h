// The run's progress on the terminal: on a terminal, a block redrawn in place under the scrolling log (one line per
// agent: strategy, candidates judged, last verdict, best time and candidate; the incumbent's speed-up and share of the
// roofline; the board's size; plateaus; an estimate of the time left), cut to the terminal's width and height and
// redrawn when the terminal is resized; elsewhere (a pipe, a file, CI, TERM=dumb, a terminal too small for it) plain
// log lines and a status line whenever the incumbent or the plateau count changes.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "engine/run.h"

namespace kernelarc::report {

struct TerminalSize {
  int columns = 0;
  int rows = 0;
};

class LiveDisplay {
 public:
  // Below this the block does not fit: plain lines instead, until the terminal grows again.
  static constexpr int kMinColumns = 40;
  static constexpr int kMinRows = 8;

  // `interactive`: redraw in place (use is_terminal). `title`: the task and device, e.g. "softmax on cpu". `size`: how
  // big the terminal is now (default: asked of `out` with TIOCGWINSZ); asked again every quarter second while a block
  // is drawn, and the block redrawn when it changed.
  LiveDisplay(std::FILE* out, bool interactive, std::string title, std::function<std::optional<TerminalSize>()> size = {});
  ~LiveDisplay();
  LiveDisplay(const LiveDisplay&) = delete;
  LiveDisplay& operator=(const LiveDisplay&) = delete;

  // A log line, printed above the block.
  void line(const std::string& text);
  // The run's state: redraws the block, or prints a status line when something the user waits for changed.
  void update(const engine::RunSummary& so_far, int budget);
  // Erases the block (before the summary is printed, say); a later update draws it again.
  void close();

  // Whether `stream` is a terminal that understands cursor movement (not TERM=dumb).
  static bool is_terminal(std::FILE* stream);
  // The size of the terminal `stream` is; nullopt when it is none or does not say.
  static std::optional<TerminalSize> terminal_size(std::FILE* stream);
  // The block's lines for this state (what a terminal shows), without escape codes; with a size, cut to its width and
  // to at most its height less 2 rows (agents beyond that said as "... and N more agents").
  static std::vector<std::string> block(const std::string& title, const engine::RunSummary& so_far, int budget,
                                        std::optional<TerminalSize> size = std::nullopt);
  // Rows `lines` take on a terminal `columns` wide that wraps (or re-wraps on a resize) long lines.
  static std::size_t rows_taken(const std::vector<std::string>& lines, int columns);

 private:
  bool fits() const;
  void erase_block();
  void draw_block();
  void redraw();
  void watch();

  std::FILE* out_;
  bool interactive_;
  std::string title_;
  std::function<std::optional<TerminalSize>()> size_of_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::optional<TerminalSize> size_;
  std::optional<engine::RunSummary> state_;  // the last state drawn
  int budget_ = 0;
  std::chrono::steady_clock::time_point state_at_;  // when it came: the clock goes on between candidates
  std::vector<std::string> block_;                  // what is drawn now
  std::size_t drawn_rows_ = 0;                      // rows of the block on the screen, at the width it was drawn
  double last_best_ns_ = -1;
  int last_plateaus_ = 0;
  std::thread watcher_;
};

// "2m13s", "45s", "1h02m".
std::string format_duration(double seconds);

}  // namespace kernelarc::report
