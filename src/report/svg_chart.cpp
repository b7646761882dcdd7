#include "report/svg_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace kernelarc::report::svg {
namespace {

constexpr int kLeft = 72, kRight = 170, kTop = 34, kBottom = 48;
constexpr const char* kFont = "font-family=\"sans-serif\"";

// A data range mapped onto pixels, linear or logarithmic.
struct Scale {
  double lo = 0, hi = 1;
  bool log = false;
  double from = 0, to = 1;  // pixels of lo and hi
  double map(double v) const {
    const double a = log ? std::log10(lo) : lo, b = log ? std::log10(hi) : hi;
    const double t = ((log ? std::log10(std::max(v, lo * 1e-9)) : v) - a) / (b - a);
    return from + t * (to - from);
  }
};

std::string num(double v) { return fmt::format("{:.1f}", v); }

// A range that holds every value, widened a little (a factor on a log axis) and never empty.
Scale domain(double lo, double hi, bool log, bool from_zero) {
  Scale s;
  s.log = log;
  if (!(lo <= hi)) lo = hi = log ? 1 : 0;
  if (log) {
    if (lo == hi) lo /= 2, hi *= 2;
    s.lo = lo / 1.25, s.hi = hi * 1.25;
  } else {
    if (from_zero && lo > 0) lo = 0;
    if (lo == hi) lo -= 1, hi += 1;
    const double pad = from_zero ? 0 : (hi - lo) * 0.04;
    s.lo = lo - pad, s.hi = hi + (hi - lo) * 0.04;
  }
  return s;
}

std::vector<double> linear_ticks(double lo, double hi) {
  const double raw = (hi - lo) / 5;
  const double magnitude = std::pow(10, std::floor(std::log10(raw)));
  double step = magnitude;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (magnitude * m >= raw) {
      step = magnitude * m;
      break;
    }
  std::vector<double> ticks;
  for (double t = std::ceil(lo / step) * step; t <= hi + step * 1e-9 && ticks.size() < 20; t += step) ticks.push_back(std::abs(t) < step * 1e-9 ? 0 : t);
  return ticks;
}

std::vector<double> ticks_of(const Scale& s) {
  if (!s.log) return linear_ticks(s.lo, s.hi);
  for (const std::vector<double>& mantissas : {std::vector<double>{1}, {1, 2, 5}, {1, 1.5, 2, 3, 5, 7}}) {
    std::vector<double> ticks;
    for (int e = static_cast<int>(std::floor(std::log10(s.lo))); e <= static_cast<int>(std::ceil(std::log10(s.hi))); ++e)
      for (double m : mantissas) {
        const double t = m * std::pow(10, e);
        if (t >= s.lo && t <= s.hi) ticks.push_back(t);
      }
    if (ticks.size() >= 3 || (mantissas.size() > 3 && !ticks.empty())) {
      if (ticks.size() > 12) {  // many decades: every other one
        std::vector<double> fewer;
        for (std::size_t i = 0; i < ticks.size(); i += 2) fewer.push_back(ticks[i]);
        return fewer;
      }
      return ticks;
    }
  }
  return linear_ticks(s.lo, s.hi);
}

std::string tick_text(const Axis& axis, double v) { return axis.format ? axis.format(v) : compact_number(v); }

std::string open_svg(const std::string& id, const std::string& title, int width, int height, std::size_t points) {
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" id=\"{}\" data-points=\"{}\" viewBox=\"0 0 {} {}\" width=\"{}\" "
      "height=\"{}\" role=\"img\" aria-label=\"{}\"><title>{}</title>"
      "<text x=\"{}\" y=\"20\" {} font-size=\"14\" font-weight=\"bold\">{}</text>",
      escape(id), points, width, height, width, height, escape(title), escape(title), kLeft, kFont, escape(title));
}

// Grid, ticks and axis titles of a plot area.
std::string axes(const Scale& x, const Scale& y, const Axis& xa, const Axis& ya, int width, int height, bool x_ticks = true) {
  std::string out = "<g class=\"axes\" font-size=\"11\" fill=\"#444\" " + std::string(kFont) + ">";
  for (double t : ticks_of(y)) {
    const double py = y.map(t);
    out += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\" stroke=\"#e4e4e4\"/><text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>", kLeft,
                       num(x.to), num(py), num(py), kLeft - 6, num(py + 4), escape(tick_text(ya, t)));
  }
  if (x_ticks)
    for (double t : ticks_of(x)) {
      const double px = x.map(t);
      out += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\" stroke=\"#eeeeee\"/><text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
                         num(px), num(px), kTop, num(y.from), num(px), num(y.from + 16), escape(tick_text(xa, t)));
    }
  out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#888\"/>", kLeft, kTop, num(x.to - kLeft),
                     num(y.from - kTop));
  out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>", num((kLeft + x.to) / 2), height - 8, escape(xa.label));
  out += fmt::format("<text transform=\"translate(14 {}) rotate(-90)\" text-anchor=\"middle\">{}</text>", num((kTop + y.from) / 2),
                     escape(ya.label));
  (void)width;
  return out + "</g>";
}

std::string legend(const std::vector<std::pair<std::string, std::string>>& entries, int width, bool dashed_last = false) {
  std::string out = "<g class=\"legend\" font-size=\"11\" " + std::string(kFont) + ">";
  int y = kTop + 6;
  for (std::size_t i = 0; i < entries.size() && y < 1000; ++i, y += 16) {
    const auto& [name, color] = entries[i];
    out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"8\" fill=\"{}\"/><text x=\"{}\" y=\"{}\">{}</text>", width - kRight + 14,
                       y, escape(color), width - kRight + 30, y + 8, escape(name.size() > 22 ? name.substr(0, 21) + "…" : name));
  }
  (void)dashed_last;
  return out + "</g>";
}

std::string marker(double px, double py, const std::string& color, const std::string& label, double r = 2.5) {
  if (label.empty()) return fmt::format("<circle class=\"pt\" cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{}\"/>", num(px), num(py), r, escape(color));
  return fmt::format("<circle class=\"pt\" cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{}\"><title>{}</title></circle>", num(px), num(py), r, escape(color),
                     escape(label));
}

bool usable(const Point& p, const Axis& x, const Axis& y) {
  return std::isfinite(p.x) && std::isfinite(p.y) && (!x.log || p.x > 0) && (!y.log || p.y > 0);
}

std::string empty_note(int width, int height, const std::string& text) {
  return fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"13\" fill=\"#888\" {}>{}</text>", (kLeft + width - kRight) / 2,
                     height / 2, kFont, escape(text));
}

}  // namespace

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string compact_number(double v) {
  if (v == 0) return "0";
  const double a = std::abs(v);
  if (a >= 1e15 || a < 1e-3) return fmt::format("{:.0e}", v);
  for (const auto& [factor, suffix] : {std::pair{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}})
    if (a >= factor) return fmt::format("{:.3g}{}", v / factor, suffix);
  return fmt::format("{:.3g}", v);
}

std::string line_chart(const LineChart& chart) {
  double x_lo = std::numeric_limits<double>::infinity(), x_hi = -x_lo, y_lo = x_lo, y_hi = -x_lo;
  std::size_t markers = 0;
  for (const auto& s : chart.series)
    for (const auto& p : s.points) {
      if (!usable(p, chart.x, chart.y)) continue;
      x_lo = std::min(x_lo, p.x), x_hi = std::max({x_hi, p.x, s.extend_to_x});
      y_lo = std::min(y_lo, p.y), y_hi = std::max(y_hi, p.y);
      markers += s.markers;
    }
  const bool empty = !(x_lo <= x_hi);
  Scale x = domain(empty ? 0 : x_lo, empty ? 1 : x_hi, chart.x.log, false);
  Scale y = domain(empty ? 1 : y_lo, empty ? 1 : y_hi, chart.y.log, !chart.y.log);
  x.from = kLeft, x.to = chart.width - kRight;
  y.from = chart.height - kBottom, y.to = kTop;
  std::string out = open_svg(chart.id, chart.title, chart.width, chart.height, markers);
  out += axes(x, y, chart.x, chart.y, chart.width, chart.height);
  if (empty) out += empty_note(chart.width, chart.height, "nothing to show yet");
  std::vector<std::pair<std::string, std::string>> names;
  for (const auto& s : chart.series) {
    std::vector<const Point*> points;
    for (const auto& p : s.points)
      if (usable(p, chart.x, chart.y)) points.push_back(&p);
    if (points.empty()) continue;
    names.emplace_back(s.name, s.color);
    out += fmt::format("<g class=\"series\" data-series=\"{}\">", escape(s.name));
    if (s.line) {
      std::string path;
      double last_y = 0;
      for (std::size_t i = 0; i < points.size(); ++i) {
        const double px = x.map(points[i]->x), py = y.map(points[i]->y);
        if (s.step && i > 0) path += fmt::format(" {},{}", num(px), num(last_y));
        path += fmt::format("{}{},{}", path.empty() ? "" : " ", num(px), num(py));
        last_y = py;
      }
      if (s.step && s.extend_to_x > points.back()->x) path += fmt::format(" {},{}", num(x.map(s.extend_to_x)), num(last_y));
      out += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"{}\"{} points=\"{}\"/>", escape(s.color), s.markers ? 1.2 : 2,
                         s.dashed ? " stroke-dasharray=\"5 3\"" : "", path);
    }
    if (s.markers)
      for (const auto* p : points) out += marker(x.map(p->x), y.map(p->y), s.color, p->label, s.line ? 2.5 : 1.8);
    out += "</g>";
  }
  out += legend(names, chart.width);
  return out + "</svg>";
}

std::string bar_chart(const BarChart& chart) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  std::size_t bars = 0;
  for (const auto& g : chart.groups)
    for (const auto& v : g.values)
      if (v && std::isfinite(*v) && (!chart.y.log || *v > 0)) lo = std::min(lo, *v), hi = std::max(hi, *v), ++bars;
  const bool empty = bars == 0;
  Scale y = domain(empty ? 1 : lo, empty ? 1 : hi, chart.y.log, !chart.y.log);
  y.from = chart.height - kBottom - 40, y.to = kTop;
  Scale x;  // unused ticks: groups are placed by index
  x.from = kLeft, x.to = chart.width - kRight;
  std::string out = open_svg(chart.id, chart.title, chart.width, chart.height, bars);
  out += axes(x, y, Axis{"", false, {}}, chart.y, chart.width, chart.height - 40, false);
  if (empty) out += empty_note(chart.width, chart.height, "no workload timed");
  const double group_width = (x.to - x.from) / std::max<std::size_t>(chart.groups.size(), 1);
  const std::size_t kinds = std::max<std::size_t>(chart.bar_names.size(), 1);
  const double bar_width = std::max(1.0, group_width * 0.8 / static_cast<double>(kinds));
  for (std::size_t i = 0; i < chart.groups.size(); ++i) {
    const auto& g = chart.groups[i];
    const double gx = x.from + group_width * static_cast<double>(i);
    out += fmt::format("<g class=\"group\" data-group=\"{}\"{}>", escape(g.label), g.marked ? " data-held-out=\"1\"" : "");
    if (g.marked)
      out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#f3eee0\"/>", num(gx), kTop, num(group_width), num(y.from - kTop));
    for (std::size_t k = 0; k < g.values.size() && k < kinds; ++k) {
      const auto& v = g.values[k];
      if (!v || !std::isfinite(*v) || (chart.y.log && *v <= 0)) continue;
      const double top = y.map(*v), left = gx + group_width * 0.1 + bar_width * static_cast<double>(k);
      const std::string color = k < chart.bar_colors.size() ? chart.bar_colors[k] : "#888";
      const std::string name = k < chart.bar_names.size() ? chart.bar_names[k] : "";
      out += fmt::format("<rect class=\"pt\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"><title>{}{}: {}</title></rect>", num(left),
                         num(top), num(bar_width * 0.92), num(std::max(0.5, y.from - top)), escape(color), escape(g.label), g.marked ? " (held out)" : "",
                         escape(name + " " + tick_text(chart.y, *v)));
    }
    const std::string label = (g.label.size() > 24 ? g.label.substr(0, 23) + "…" : g.label) + (g.marked ? "*" : "");
    out += fmt::format("<text transform=\"translate({} {}) rotate(-35)\" text-anchor=\"end\" font-size=\"10\" {}>{}</text></g>",
                       num(gx + group_width / 2), num(y.from + 12), kFont, escape(label));
  }
  std::vector<std::pair<std::string, std::string>> names;
  for (std::size_t k = 0; k < chart.bar_names.size(); ++k) names.emplace_back(chart.bar_names[k], k < chart.bar_colors.size() ? chart.bar_colors[k] : "#888");
  out += legend(names, chart.width);
  if (!chart.note.empty())
    out += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"11\" fill=\"#555\" {}>{}</text>", kLeft, chart.height - 6, kFont, escape(chart.note));
  return out + "</svg>";
}

std::string roofline_chart(const Roofline& chart) {
  const Axis xa{"arithmetic intensity (FLOP/byte)", true, {}};
  const Axis ya{"attained FLOP/s", true, {}};
  double x_lo = std::numeric_limits<double>::infinity(), x_hi = -x_lo, y_lo = x_lo, y_hi = -x_lo;
  std::size_t markers = 0;
  for (const auto& s : chart.series)
    for (const auto& p : s.points)
      if (usable(p, xa, ya)) x_lo = std::min(x_lo, p.x), x_hi = std::max(x_hi, p.x), y_lo = std::min(y_lo, p.y), y_hi = std::max(y_hi, p.y), ++markers;
  double peak = 0;
  for (const auto& [_, rate] : chart.compute_roofs) peak = std::max(peak, rate);
  const bool empty = markers == 0;
  if (empty) x_lo = 0.1, x_hi = 100, y_lo = 1e9, y_hi = 1e12;
  if (chart.bytes_per_second > 0 && peak > 0) {
    const double ridge = peak / chart.bytes_per_second;
    x_lo = std::min(x_lo, ridge / 4), x_hi = std::max(x_hi, ridge * 4);
  }
  x_lo /= 2, x_hi *= 2;
  if (chart.bytes_per_second > 0) y_hi = std::max(y_hi, std::min(chart.bytes_per_second * x_hi, peak > 0 ? peak : chart.bytes_per_second * x_hi));
  if (peak > 0) y_hi = std::max(y_hi, peak);
  y_lo = std::min(y_lo, y_hi / 1e4);
  Scale x = domain(x_lo, x_hi, true, false), y = domain(y_lo, y_hi, true, false);
  x.from = kLeft, x.to = chart.width - kRight;
  y.from = chart.height - kBottom, y.to = kTop;
  std::string out = open_svg(chart.id, chart.title, chart.width, chart.height, markers);
  out += axes(x, y, xa, ya, chart.width, chart.height);
  out += fmt::format("<defs><clipPath id=\"{}-plot\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/></clipPath></defs>", escape(chart.id), kLeft, kTop,
                     num(x.to - kLeft), num(y.from - kTop));
  out += fmt::format("<g class=\"roofs\" clip-path=\"url(#{}-plot)\" font-size=\"11\" {}>", escape(chart.id), kFont);
  auto roof = [&](double rate, const std::string& name, const std::string& color) {
    std::string path;
    const double a = x.lo, b = x.hi;
    if (chart.bytes_per_second > 0 && rate > 0) {
      const double ridge = rate / chart.bytes_per_second;
      path = fmt::format("{},{} {},{} {},{}", num(x.map(a)), num(y.map(chart.bytes_per_second * a)), num(x.map(ridge)), num(y.map(rate)), num(x.map(b)),
                         num(y.map(rate)));
    } else if (rate > 0) {
      path = fmt::format("{},{} {},{}", num(x.map(a)), num(y.map(rate)), num(x.map(b)), num(y.map(rate)));
    } else {
      path = fmt::format("{},{} {},{}", num(x.map(a)), num(y.map(chart.bytes_per_second * a)), num(x.map(b)), num(y.map(chart.bytes_per_second * b)));
    }
    out += fmt::format("<polyline class=\"roof\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\" points=\"{}\"/>", color, path);
    if (rate > 0)
      out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"{}\">{} {}FLOP/s</text>", num(x.to - 4), num(y.map(rate) - 4), color,
                         escape(name), escape(compact_number(rate)));
  };
  if (chart.compute_roofs.empty() && chart.bytes_per_second > 0) roof(0, "", "#555");
  for (const auto& [name, rate] : chart.compute_roofs) roof(rate, name, "#555");
  if (chart.bytes_per_second > 0)
    out += fmt::format("<text x=\"{}\" y=\"{}\" fill=\"#555\">memory {}B/s</text>", kLeft + 6, num(y.map(chart.bytes_per_second * x.lo) - 6),
                       escape(compact_number(chart.bytes_per_second)));
  out += "</g>";
  if (empty) out += empty_note(chart.width, chart.height, "no workload with a known roofline");
  std::vector<std::pair<std::string, std::string>> names;
  for (const auto& s : chart.series) {
    names.emplace_back(s.name, s.color);
    out += fmt::format("<g class=\"series\" data-series=\"{}\">", escape(s.name));
    for (const auto& p : s.points)
      if (usable(p, xa, ya)) out += marker(x.map(p.x), y.map(p.y), s.color, p.label, 4);
    out += "</g>";
  }
  out += legend(names, chart.width);
  return out + "</svg>";
}

}  // namespace kernelarc::report::svg
