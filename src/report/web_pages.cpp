#include "report/web_pages.h"

#include <fmt/format.h>

#include "common/units.h"
#include "engine/journal.h"
#include "report/html_report.h"
#include "report/svg_chart.h"

namespace kernelarc::report {

using nlohmann::json;
using svg::escape;

namespace {

constexpr const char* kStyle =
    "body{font-family:sans-serif;margin:24px auto;max-width:1100px;color:#222}table{border-collapse:collapse;font-size:13px}"
    "td,th{border:1px solid #ddd;padding:3px 8px;text-align:left}th{background:#f4f4f4}.meta{color:#555;font-size:13px}"
    "tr.promoted td,tr.first td{font-weight:bold}tr.rejected td{color:#b42318}#state{font-size:15px}";

std::string page(const std::string& title, const std::string& body) {
  return fmt::format("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>{}</style></head><body>\n{}\n</body></html>\n",
                     escape(title), kStyle, body);
}

// The live page's script: each event appends a row (newest on top) and updates the counter and the incumbent.
constexpr const char* kLiveScript = R"(
const rows = document.getElementById('candidates').tBodies[0];
const state = document.getElementById('state');
let judged = Number(state.dataset.judged), best = Number(state.dataset.best);
function time(ns) {
  if (!(ns > 0)) return '-';
  if (ns < 1e3) return ns.toFixed(0) + ' ns';
  if (ns < 1e6) return (ns / 1e3).toFixed(2) + ' us';
  if (ns < 1e9) return (ns / 1e6).toFixed(2) + ' ms';
  return (ns / 1e9).toFixed(2) + ' s';
}
function show() {
  state.textContent = judged + ' candidates judged; incumbent ' + time(best);
  state.dataset.judged = judged;
}
const source = new EventSource('/events/' + document.body.dataset.run + '?after=' + document.body.dataset.after);
source.addEventListener('judged', (message) => {
  const e = JSON.parse(message.data);
  const row = rows.insertRow(0);
  row.className = e.decision;
  row.dataset.candidate = e.candidate;
  for (const text of [e.number, e.candidate, e.agent, e.strategy, e.decision, time(e.time_ns)]) row.insertCell().textContent = text;
  judged += 1;
  if ((e.decision === 'first' || e.decision === 'promoted') && e.time_ns > 0) best = e.time_ns;
  show();
});
source.addEventListener('run', (message) => {
  const e = JSON.parse(message.data);
  document.getElementById('status').textContent = e.kind === 'run_finished' ? 'finished: ' + (e.stop_reason || '') : e.kind;
});
show();
)";

}  // namespace

json live_event_json(const store::RunReader& reader, const store::EventRecord& event) {
  engine::journal::Entry entry;
  try {
    entry = engine::journal::read_entry(reader.store(), event);
  } catch (const std::runtime_error&) {
    return nullptr;  // an event this kernelarc cannot read is left out of the live page
  }
  if (const auto* e = std::get_if<engine::journal::Judged>(&entry.event)) {
    // The controller's time for it: its second measurement when it had one, 0 when it failed.
    const double time = !e->measured.passed ? 0.0 : e->measured_again ? e->measured_again->time_ns : e->measured.time_ns;
    return {{"id", event.id}, {"kind", "judged"}, {"number", e->number}, {"candidate", e->candidate}, {"agent", e->agent},
            {"strategy", e->strategy}, {"decision", engine::decision_name(e->decision)}, {"time_ns", time}};
  }
  if (const auto* e = std::get_if<engine::journal::RunFinished>(&entry.event))
    return {{"id", event.id}, {"kind", "run_finished"}, {"stop_reason", e->result.value("stop_reason", "")}};
  if (event.kind == "plateau" || event.kind == "run_resumed" || event.kind == "agent_reassigned")
    return {{"id", event.id}, {"kind", event.kind}, {"stop_reason", ""}};
  return nullptr;
}

std::string runs_page_html(const store::RunReader& reader, const std::string& store_path) {
  std::string rows;
  for (const auto& run : reader.runs()) {
    const auto task = reader.task(run.task_id);
    rows += fmt::format(
        "<tr><td>{0}</td><td>{1}</td><td>{2}</td><td>{3}</td><td>{4}</td><td>{5}</td><td>{6}</td>"
        "<td><a href=\"/run/{0}\">live</a> · <a href=\"/report/{0}\">report</a></td></tr>",
        run.id, escape(run.kind), escape(task ? task->name : "?"), escape(run.device), escape(run.status), escape(run.started_at.substr(0, 19)),
        reader.candidate_count(run.id));
  }
  if (rows.empty()) rows = "<tr><td colspan=\"8\">No runs yet.</td></tr>";
  return page("KernelArc runs",
              fmt::format("<h1>KernelArc runs</h1><p class=\"meta\">{} (read only)</p><table id=\"runs\"><thead><tr><th>run</th><th>kind</th><th>task</th>"
                          "<th>device</th><th>status</th><th>started (UTC)</th><th>candidates</th><th></th></tr></thead><tbody>{}</tbody></table>",
                          escape(store_path), rows));
}

std::string live_page_html(const store::RunReader& reader, std::int64_t run_id) {
  const auto run = reader.run(run_id);
  if (!run) throw ReportError(fmt::format("there is no run {} in the store", run_id));
  const auto task = reader.task(run->task_id);
  std::string rows;
  std::int64_t judged = 0, last_id = 0;
  double best = 0;
  std::vector<json> shown;
  for (const auto& e : reader.events(run_id)) {
    last_id = e.id;
    const json j = live_event_json(reader, e);
    if (j.is_null() || j["kind"] != "judged") continue;
    ++judged;
    if ((j["decision"] == "first" || j["decision"] == "promoted") && j["time_ns"].get<double>() > 0) best = j["time_ns"].get<double>();
    shown.push_back(j);
  }
  for (auto it = shown.rbegin(); it != shown.rend(); ++it) {
    const json& j = *it;
    rows += fmt::format("<tr class=\"{}\" data-candidate=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                        escape(j["decision"].get<std::string>()), j["candidate"].dump(), j["number"].dump(), j["candidate"].dump(),
                        escape(j["agent"].get<std::string>()), escape(j["strategy"].get<std::string>()), escape(j["decision"].get<std::string>()),
                        escape(common::format_time_ns(j["time_ns"].get<double>())));
  }
  const std::string body = fmt::format(
      "<h1>Run {}: {}</h1><p class=\"meta\">{} on {}, <span id=\"status\">{}</span>; <a href=\"/report/{}\">full report</a> · <a href=\"/\">all runs</a></p>"
      "<p id=\"state\" data-judged=\"{}\" data-best=\"{}\"></p>"
      "<table id=\"candidates\"><thead><tr><th>judged</th><th>candidate</th><th>agent</th><th>strategy</th><th>decision</th><th>time</th></tr></thead>"
      "<tbody>{}</tbody></table><script>{}</script>",
      run_id, escape(task ? task->name : "?"), escape(run->kind), escape(run->device), escape(run->status), run_id, judged, best, rows, kLiveScript);
  std::string html = page(fmt::format("KernelArc run {} (live)", run_id), body);
  html.replace(html.find("<body>"), 6, fmt::format("<body data-run=\"{}\" data-after=\"{}\">", run_id, last_id));
  return html;
}

}  // namespace kernelarc::report
