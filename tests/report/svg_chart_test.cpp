// The SVG chart writer: one marker per drawable point, steps, escaping, log axes that skip what they cannot draw.
#include "report/svg_chart.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>

namespace kernelarc::report::svg {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(SvgChartTest, EscapesEveryMarkupCharacter) { EXPECT_EQ(escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;"); }

TEST(SvgChartTest, CompactNumbers) {
  EXPECT_EQ(compact_number(0), "0");
  EXPECT_EQ(compact_number(1500), "1.5k");
  EXPECT_EQ(compact_number(2e9), "2G");
  EXPECT_EQ(compact_number(0.25), "0.25");
}

TEST(SvgChartTest, LineChartDrawsOneMarkerPerPointAndCountsThem) {
  LineChart chart;
  chart.id = "c";
  chart.title = "Best <time>";
  chart.x = {"n", false, {}};
  chart.y = {"t", true, {}};
  chart.series.push_back({"dots", "#111", {{1, 10, "one"}, {2, 5, ""}, {3, 0, "zero cannot be drawn on a log axis"}}, false, false, true, 0, false});
  chart.series.push_back({"best", "#222", {{1, 10, ""}, {2, 5, ""}}, true, true, false, 4, false});
  const std::string svg = line_chart(chart);
  EXPECT_THAT(svg, HasSubstr("data-points=\"2\""));
  EXPECT_EQ(count(svg, "class=\"pt\""), 2u);
  EXPECT_THAT(svg, HasSubstr("Best &lt;time&gt;"));
  EXPECT_THAT(svg, Not(HasSubstr("<time>")));
  EXPECT_THAT(svg, HasSubstr("<title>one</title>"));
  // A step series has a corner between its points and goes on to extend_to_x: 2 points, 1 corner, 1 extension.
  const std::regex polyline("<g class=\"series\" data-series=\"best\"><polyline[^>]*points=\"([^\"]*)\"");
  std::smatch match;
  ASSERT_TRUE(std::regex_search(svg, match, polyline));
  EXPECT_EQ(count(match[1].str(), ","), 4u);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_EQ(svg.substr(svg.size() - 6), "</svg>");
}

TEST(SvgChartTest, AnEmptyChartSaysSo) {
  LineChart chart;
  chart.id = "e";
  const std::string svg = line_chart(chart);
  EXPECT_THAT(svg, HasSubstr("data-points=\"0\""));
  EXPECT_THAT(svg, HasSubstr("nothing to show yet"));
}

TEST(SvgChartTest, BarChartMarksHeldOutGroupsAndSkipsMissingBars) {
  BarChart chart;
  chart.id = "b";
  chart.bar_names = {"best", "T_sol"};
  chart.bar_colors = {"#1", "#2"};
  chart.y = {"time", true, {}};
  chart.groups = {{"w1", {100.0, 10.0}, false}, {"w2", {200.0, std::nullopt}, true}};
  const std::string svg = bar_chart(chart);
  EXPECT_THAT(svg, HasSubstr("data-points=\"3\""));
  EXPECT_EQ(count(svg, "class=\"pt\""), 3u);
  EXPECT_THAT(svg, HasSubstr("data-held-out=\"1\""));
  EXPECT_THAT(svg, HasSubstr("w2*"));
}

TEST(SvgChartTest, RooflineDrawsTheRoofsAndThePoints) {
  Roofline chart;
  chart.id = "r";
  chart.bytes_per_second = 3e12;
  chart.compute_roofs = {{"tensor_core_bf16", 989e12}};
  chart.series = {{"best", "#1", {{0.5, 1e12, "w1"}, {300, 500e12, "w2"}}, false, false, true, 0, false}};
  const std::string svg = roofline_chart(chart);
  EXPECT_THAT(svg, HasSubstr("data-points=\"2\""));
  EXPECT_EQ(count(svg, "class=\"roof\""), 1u);
  EXPECT_THAT(svg, HasSubstr("memory 3TB/s"));
  EXPECT_THAT(svg, HasSubstr("tensor_core_bf16 989TFLOP/s"));
}

}  // namespace
}  // namespace kernelarc::report::svg
