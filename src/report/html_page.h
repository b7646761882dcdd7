// The report's HTML pieces that every section uses: the page shell with its style sheet, tables that align numbers, the
// palette, and the text of a time or a number that may be missing.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/svg_chart.h"

namespace kernelarc::report::html {

// Rows a table shows before it says how many more there are (a 10,000-candidate run stays a few megabytes).
constexpr std::size_t kTableRows = 200;

// The palette's i-th colour (it repeats after ten).
const std::string& color(std::size_t i);
// "1.23 us", or "-" when missing or not positive.
std::string time_text(std::optional<double> ns);
std::string number_text(std::optional<double> v, const char* format = "{:.3f}");
// A complete page: the title, the style sheet and the body.
std::string page(const std::string& title, const std::string& body);
// A table whose numeric cells align right; `row_classes` names a class per row (empty: none).
std::string table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows, const std::string& id,
                  const std::vector<std::string>& row_classes = {});
// A note saying that a table shows the newest kTableRows of `total`, and where the rest are; empty when all are shown.
std::string more_rows_note(std::size_t total, const std::string& where);
// An axis of times on a log scale.
svg::Axis time_axis(const std::string& label);

}  // namespace kernelarc::report::html
