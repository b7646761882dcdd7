// A small SVG chart writer for the HTML report: line charts (steps for a best-so-far), grouped bar charts with markers,
// and a log-log roofline. Output is one <svg> element, self-contained (no scripts, no fonts beyond the generic family),
// every data point a marker of class "pt" inside a <g class="series" data-series="NAME">, and the <svg> carries
// data-points (the number of markers) so a browser test can count what it draws.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kernelarc::report::svg {

// Text made safe for XML and HTML (& < > " ').
std::string escape(std::string_view text);

struct Point {
  double x = 0;
  double y = 0;
  std::string label;  // a tooltip; empty: none
};

struct Series {
  std::string name;
  std::string color = "#1f77b4";
  std::vector<Point> points;
  bool step = false;       // a best-so-far: horizontal to the next x, then vertical
  bool line = true;        // join the points
  bool markers = false;    // draw each point (a "pt" marker)
  double extend_to_x = 0;  // > last x: a step series' last value drawn on to here
  bool dashed = false;
};

struct Axis {
  std::string label;
  bool log = false;
  std::function<std::string(double)> format;  // tick text; default: a compact number
};

struct LineChart {
  std::string id;
  std::string title;
  Axis x, y;
  std::vector<Series> series;
  int width = 760;
  int height = 320;
};

// Empty series are left out of the legend; a chart with no point at all says so in its middle.
std::string line_chart(const LineChart& chart);

struct BarGroup {
  std::string label;
  std::vector<std::optional<double>> values;  // one per bar kind; nullopt: no bar
  bool marked = false;                        // drawn with a "*" and a hatched background (a held-out workload)
};

struct BarChart {
  std::string id;
  std::string title;
  std::vector<std::string> bar_names;   // one per value of a group
  std::vector<std::string> bar_colors;  // as many as bar_names
  std::vector<BarGroup> groups;
  Axis y;  // log by default for times
  std::string note;  // under the chart
  int width = 760;
  int height = 340;
};

std::string bar_chart(const BarChart& chart);

struct Roofline {
  std::string id;
  std::string title;
  double bytes_per_second = 0;  // the memory roof; 0: unknown
  std::vector<std::pair<std::string, double>> compute_roofs;  // FLOP/s by name
  std::vector<Series> series;  // x: FLOP per byte, y: FLOP/s; markers only
  int width = 760;
  int height = 360;
};

// Log-log: arithmetic intensity (FLOP/byte) against attained FLOP/s, with the roofs as lines.
std::string roofline_chart(const Roofline& chart);

// A compact number for a tick: 1.5k, 20M, 0.25, 3e-05.
std::string compact_number(double value);

}  // namespace kernelarc::report::svg
