// The run's progress on the terminal: on a terminal, a block redrawn in place under the scrolling log (one line per
// agent: strategy, candidates judged, last verdict, best time; the incumbent's speed-up and share of the roofline; the
// board's size; plateaus); elsewhere (a pipe, a file, CI) plain log lines and a status line whenever the incumbent or
// the plateau count changes.
#pragma once

#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "engine/run.h"

namespace kernelarc::report {

class LiveDisplay {
 public:
  // `interactive`: redraw in place (use is_terminal). `title`: the task and device, e.g. "softmax on cpu".
  LiveDisplay(std::FILE* out, bool interactive, std::string title);
  // A log line, printed above the block.
  void line(const std::string& text);
  // The run's state: redraws the block, or prints a status line when something the user waits for changed.
  void update(const engine::RunSummary& so_far, int budget);

  // Whether `stream` is a terminal that understands cursor movement (not TERM=dumb).
  static bool is_terminal(std::FILE* stream);
  // The block's lines for this state (what a terminal shows), without escape codes.
  static std::vector<std::string> block(const std::string& title, const engine::RunSummary& so_far, int budget);

 private:
  void erase_block();
  void draw_block();

  std::FILE* out_;
  bool interactive_;
  std::string title_;
  std::mutex mutex_;
  std::vector<std::string> block_;      // what is drawn now
  std::size_t drawn_ = 0;               // lines of the block on the screen
  double last_best_ns_ = -1;
  int last_plateaus_ = 0;
};

// "2m13s", "45s", "1h02m".
std::string format_duration(double seconds);

}  // namespace kernelarc::report
