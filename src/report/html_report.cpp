#include "report/html_report.h"

#include <fmt/format.h>

#include "report/html_page.h"
#include "report/progress_charts.h"
#include "report/run_tables.h"
#include "report/workload_charts.h"

namespace kernelarc::report {

std::string run_report_html(const RunData& d) {
  std::string body = summary_section(d);
  body += "<h2>Progress</h2>" + progress_charts(d);
  body += "<h2>Workloads</h2>" + workload_section(d);
  body += "<h2>Roofline</h2>" + roofline_section(d);
  body += "<h2>Agents</h2>" + agents_section(d);
  body += "<h2>Strategies</h2>" + strategies_section(d);
  body += "<h2>Incumbent lineage</h2>" + lineage_section(d);
  body += "<h2>Plateaus and other events</h2>" + events_section(d);
  body += "<h2>Board conclusions</h2>" + board_section(d);
  body += "<h2>Model tokens and cost</h2>" + usage_section(d);
  body += "<h2>Best kernel</h2>" + source_section(d);
  body += fmt::format("<p class=\"note\">Made by <code>kernelarc report {}</code> from the run store; times are medians of the judge's timed calls.</p>", d.run.id);
  return html::page(fmt::format("KernelArc run {}: {}", d.run.id, d.task), body);
}

}  // namespace kernelarc::report
