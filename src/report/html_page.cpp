#include "report/html_page.h"

#include <fmt/format.h>

#include <cctype>

#include "common/units.h"

namespace kernelarc::report::html {

using nlohmann::json;
using svg::escape;

namespace {

const std::vector<std::string> kPalette = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22"};

std::string css() {
  return R"(body{font-family:sans-serif;margin:24px auto;max-width:1100px;color:#222;line-height:1.4}
h1{font-size:22px;margin-bottom:4px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ddd;padding-bottom:4px}
table{border-collapse:collapse;font-size:13px;margin:8px 0}td,th{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f4f4f4}td.n{text-align:right;font-variant-numeric:tabular-nums}tr.held td:first-child::after{content:" *"}
.meta{color:#555;font-size:13px}.note{color:#666;font-size:13px}pre{background:#f7f7f7;border:1px solid #ddd;padding:10px;overflow:auto;font-size:12px}
svg.chart{display:block;margin:12px 0;max-width:100%;height:auto}.good{color:#1a7f37}.bad{color:#b42318}
)";
}

}  // namespace

const std::string& color(std::size_t i) { return kPalette[i % kPalette.size()]; }

std::string time_text(std::optional<double> ns) { return ns && *ns > 0 ? common::format_time_ns(*ns) : "-"; }

std::string number_text(std::optional<double> v, const char* format) { return v ? fmt::format(fmt::runtime(format), *v) : "-"; }

std::string page(const std::string& title, const std::string& body) {
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\">"
      "<meta name=\"generator\" content=\"kernelarc report\"><title>{}</title><style>{}</style></head><body>\n{}\n</body></html>\n",
      escape(title), css(), body);
}

std::string table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows, const std::string& id,
                  const std::vector<std::string>& row_classes) {
  std::string out = fmt::format("<table id=\"{}\"><thead><tr>", escape(id));
  for (const auto& h : header) out += "<th>" + escape(h) + "</th>";
  out += "</tr></thead><tbody>";
  for (std::size_t r = 0; r < rows.size(); ++r) {
    out += r < row_classes.size() && !row_classes[r].empty() ? "<tr class=\"" + row_classes[r] + "\">" : "<tr>";
    for (const auto& cell : rows[r]) {
      // Numbers (and times, ratios) align right; a cell that starts with a digit or '-' followed by one counts.
      const bool numeric = !cell.empty() && (std::isdigit(static_cast<unsigned char>(cell[0])) || (cell.size() > 1 && cell[0] == '-' && std::isdigit(static_cast<unsigned char>(cell[1]))));
      out += (numeric ? "<td class=\"n\">" : "<td>") + escape(cell) + "</td>";
    }
    out += "</tr>";
  }
  return out + "</tbody></table>";
}

std::string more_rows_note(std::size_t total, const std::string& where) {
  return total > kTableRows ? fmt::format("<p class=\"note\">The newest {} of {} are shown; {} has them all.</p>", kTableRows, total, escape(where)) : "";
}

svg::Axis time_axis(const std::string& label) { return {label, true, [](double ns) { return common::format_time_ns(ns); }}; }

}  // namespace kernelarc::report::html
