#include "report/run_data.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "engine/controller.h"
#include "engine/measurement.h"
#include "report/parse_or_empty.h"

namespace kernelarc::report {

using nlohmann::json;
namespace journal = engine::journal;

namespace {

// The first measurement of each workload of one candidate.
std::map<std::string, const store::VerdictRecord*> first_of_each(const std::vector<store::VerdictRecord>& rows) {
  std::map<std::string, const store::VerdictRecord*> out;
  for (const auto& v : rows) out.emplace(v.workload_uuid, &v);
  return out;
}

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};

CandidatePoint point_of(const journal::Judged& e) {
  CandidatePoint point;
  point.id = e.candidate;
  point.number = e.number;
  point.agent = e.agent;
  point.strategy = e.strategy;
  point.decision = engine::decision_name(e.decision);
  point.passed = e.measured.passed;
  point.time_ns = point.passed ? e.measured.time_ns : 0;
  if (point.passed) point.score = e.measured.sol_score;
  point.incumbent_ns = e.measured_again && e.measured_again->time_ns > 0 ? e.measured_again->time_ns : point.time_ns;
  return point;
}

}  // namespace

double seconds_between(const std::string& from, const std::string& to) {
  auto parse = [](const std::string& text) -> std::optional<double> {
    std::tm t{};
    int millis = 0;
    if (std::sscanf(text.c_str(), "%d-%d-%dT%d:%d:%d.%dZ", &t.tm_year, &t.tm_mon, &t.tm_mday, &t.tm_hour, &t.tm_min, &t.tm_sec, &millis) < 6)
      return std::nullopt;
    t.tm_year -= 1900, t.tm_mon -= 1;
    return static_cast<double>(timegm(&t)) + millis / 1000.0;
  };
  const auto a = parse(from), b = parse(to);
  return a && b ? std::max(0.0, *b - *a) : 0;
}

RunData load_run(const store::RunReader& reader, std::int64_t run_id) {
  RunData d;
  auto run = reader.run(run_id);
  if (!run) throw ReportError(fmt::format("there is no run {} in the store (kernelarc runs lists them)", run_id));
  d.run = *run;
  const auto task = reader.task(run->task_id);
  d.task = task ? task->name : "?";
  std::vector<journal::Entry> entries;
  try {
    entries = journal::read_entries(reader.store(), run_id);
  } catch (const std::runtime_error& error) {
    throw ReportError(error.what());
  }
  std::map<std::int64_t, CandidatePoint> judged;
  std::map<std::string, RunData::Usage> usage;
  for (auto& entry : entries) {
    std::visit(Overloaded{[&](const journal::Judged& e) {
                            judged[e.candidate] = point_of(e);
                            if (e.usage) usage[e.agent] += *e.usage;
                          },
                          [&](const journal::ProposalFailed& e) {
                            if (e.usage) usage[e.agent] += *e.usage;
                          },
                          [&](const journal::Screened& e) {
                            if (e.usage) usage[e.agent] += *e.usage;
                          },
                          [&](const journal::ProposalsDiscarded& e) {
                            for (const auto& [agent, spent] : e.usage) usage[agent] += spent;
                          },
                          [](const auto&) {}},
               entry.event);
    if (std::holds_alternative<journal::Screened>(entry.event)) ++d.screened;
    else if (!std::holds_alternative<journal::Judged>(entry.event)) d.events.push_back(std::move(entry));
  }
  for (auto& [agent, u] : usage) d.usage.emplace_back(agent, u);
  std::int64_t number = 0;
  for (const auto& c : reader.candidates(run_id)) {
    ++number;
    CandidatePoint point;
    if (const auto found = judged.find(c.id); found != judged.end()) {
      point = found->second;
    } else {
      // No judged event (an evaluation's candidate): measured from its verdict rows the same way.
      const auto measured = engine::recorded_measurements(reader.store(), c, number).first;
      point.id = c.id, point.number = number, point.agent = c.proposer;
      point.decision = d.run.kind == "eval" ? "eval" : (number == 1 ? "first" : "");
      point.passed = measured.passed;
      point.time_ns = point.incumbent_ns = measured.passed ? measured.time_ns : 0;
      if (measured.passed) point.score = measured.sol_score;
    }
    point.seconds = seconds_between(d.run.started_at, c.created_at);
    d.candidates.push_back(std::move(point));
  }
  std::sort(d.candidates.begin(), d.candidates.end(), [](const CandidatePoint& a, const CandidatePoint& b) { return a.number < b.number; });
  d.conclusions = reader.conclusions_of_run(run_id);

  // The best: the summary's, else the last promoted, else a passing start (an evaluation's one candidate).
  const json summary = parse_or_empty(d.run.summary_json);
  std::optional<std::int64_t> best_id;
  const bool summary_names_best = summary.is_object() && summary.value("best_candidate", json()).is_number_integer();
  if (summary_names_best) best_id = summary["best_candidate"].get<std::int64_t>();
  for (const auto& c : d.candidates) {
    if (c.decision == "first" || (d.run.kind == "eval" && !d.start_id)) d.start_id = c.id;
    if (!summary_names_best && c.passed && (c.decision == "first" || c.decision == "promoted" || c.decision == "eval")) best_id = c.id;
  }
  if (best_id) d.best = reader.candidate(*best_id);
  if (d.best && d.best->run_id != run_id) d.best.reset();

  // Per workload: the start and the best side by side, with what the best's verdicts recorded of the roofline.
  std::map<std::string, const store::VerdictRecord*> start_rows;
  std::vector<store::VerdictRecord> start_verdicts, best_verdicts;
  if (d.start_id) start_verdicts = reader.verdicts_of_candidate(*d.start_id), start_rows = first_of_each(start_verdicts);
  if (d.best) best_verdicts = reader.verdicts_of_candidate(d.best->id);
  const auto& shown = d.best ? best_verdicts : start_verdicts;
  std::set<std::string> seen;
  std::map<std::string, double> compute;
  for (const auto& v : shown) {
    if (!seen.insert(v.workload_uuid).second) continue;
    WorkloadRow w;
    w.uuid = v.workload_uuid;
    w.held_out = v.held_out;
    if (d.best) w.best_ns = v.median_ns, w.best_status = v.status;
    if (const auto s = start_rows.find(v.workload_uuid); s != start_rows.end()) w.start_ns = s->second->median_ns;
    w.baseline_ns = v.baseline_ns, w.sol_ns = v.sol_ns, w.score = v.score;
    const json details = parse_or_empty(v.details_json);
    if (details.contains("roofline") && details["roofline"].is_object()) {
      const auto& r = details["roofline"];
      w.flops = r.value("flops", 0.0), w.bytes = r.value("bytes", 0.0), w.bound = r.value("bound", "");
      const double sol_s = r.value("sol_ns", 0.0) * 1e-9;
      if (sol_s > 0 && w.bound == "memory" && w.bytes > 0) d.memory_roof = std::max(d.memory_roof, w.bytes / sol_s);
      if (sol_s > 0 && w.bound != "memory" && w.flops > 0) compute[w.bound.empty() ? "compute" : w.bound] = std::max(compute[w.bound.empty() ? "compute" : w.bound], w.flops / sol_s);
    }
    d.workloads.push_back(std::move(w));
  }
  for (const auto& [name, rate] : compute) d.compute_roofs.emplace_back(name, rate);
  std::stable_sort(d.workloads.begin(), d.workloads.end(), [](const WorkloadRow& a, const WorkloadRow& b) { return a.held_out < b.held_out; });
  return d;
}

}  // namespace kernelarc::report
