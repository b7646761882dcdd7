#include "engine/measurement.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

namespace kernelarc::engine {

using nlohmann::json;

namespace {

std::string first_line(const std::string& text) {
  const auto end = text.find('\n');
  std::string line = text.substr(0, end);
  return line.size() > 160 ? line.substr(0, 157) + "..." : line;
}

std::optional<double> number_at(const json& object, const char* key) {
  if (!object.is_object() || !object.contains(key) || !object.at(key).is_number()) return std::nullopt;
  return object.at(key).get<double>();
}

}  // namespace

Measured measure(std::int64_t number, bool built, const std::string& diagnostics, const std::vector<WorkloadNumbers>& workloads) {
  Measured measured;
  measured.candidate_id = number;
  const std::string passed_name(judge::status_name(judge::Status::passed));
  measured.passed = built && !workloads.empty() &&
                    std::all_of(workloads.begin(), workloads.end(), [&](const WorkloadNumbers& w) { return w.status == passed_name; });
  double log_sum = 0, log_fraction_sum = 0, score_sum = 0;
  int timed = 0, scored = 0;
  std::vector<double> spreads;
  for (const auto& row : workloads) {
    if (row.status != passed_name && measured.reason.empty())
      measured.reason = fmt::format("{} on {}: {}", row.status, row.uuid, first_line(row.reason));
    if (row.held_out || !row.median_ns || *row.median_ns <= 0) continue;
    log_sum += std::log(*row.median_ns);
    if (row.sol_ns && *row.sol_ns > 0) log_fraction_sum += std::log(*row.sol_ns / *row.median_ns);
    if (row.score) score_sum += *row.score, ++scored;
    spreads.push_back((row.q3_ns.value_or(0) - row.q1_ns.value_or(0)) / *row.median_ns);
    ++timed;
  }
  if (timed) measured.sol_fraction = std::exp(log_fraction_sum / timed);
  if (timed && scored == timed) measured.sol_score = score_sum / scored;
  // The median workload's relative spread: the largest would let the noisiest tiny workload veto every promotion.
  if (!spreads.empty()) {
    std::nth_element(spreads.begin(), spreads.begin() + static_cast<std::ptrdiff_t>(spreads.size() / 2), spreads.end());
    measured.spread = spreads[spreads.size() / 2];
  }
  if (!built && measured.reason.empty()) measured.reason = "COMPILE_ERROR: " + first_line(diagnostics);
  measured.time_ns = timed ? std::exp(log_sum / timed) : 0;
  if (measured.passed && timed == 0) measured.passed = false, measured.reason = "no workload was timed";
  return measured;
}

Measured measure(std::int64_t number, const judge::CandidateVerdict& verdict) {
  std::vector<WorkloadNumbers> workloads;
  for (const auto& row : verdict.workloads) {
    WorkloadNumbers w{row.uuid, std::string(judge::status_name(row.status)), row.reason, row.held_out, {}, {}, {}, {}, row.score};
    if (row.timing) w.median_ns = row.timing->median_ns, w.q1_ns = row.timing->q1_ns, w.q3_ns = row.timing->q3_ns;
    if (row.roofline) w.sol_ns = row.roofline->seconds * 1e9;  // the expression the store's sol_ns is written with
    workloads.push_back(std::move(w));
  }
  return measure(number, verdict.build.ok, verdict.build.diagnostics, workloads);
}

RecordedMeasurements recorded_measurements(const store::Store& store, const store::CandidateRecord& candidate, std::int64_t number) {
  const json build = json::parse(candidate.build_json, nullptr, false);
  const bool built = build.is_object() && build.value("ok", false);
  const std::string diagnostics = build.is_object() ? build.value("diagnostics", "") : "";
  std::vector<WorkloadNumbers> first, again;
  for (const auto& row : store.verdicts(candidate.id)) {
    const json details = json::parse(row.details_json, nullptr, false);
    const json timing = details.is_object() && details.contains("timing") ? details.at("timing") : json();
    WorkloadNumbers w{row.workload_uuid, row.status, row.reason, row.held_out, row.median_ns, {}, {}, row.sol_ns, row.score};
    if (w.median_ns) w.q1_ns = number_at(timing, "q1_ns"), w.q3_ns = number_at(timing, "q3_ns");
    // A later measurement of the same candidate is marked with a note (record_measurement).
    const bool later = details.is_object() && details.contains("measurement");
    (later ? again : first).push_back(std::move(w));
  }
  RecordedMeasurements out{measure(number, built, diagnostics, first), std::nullopt};
  if (!again.empty()) out.again = measure(number, built, diagnostics, again);
  return out;
}

}  // namespace kernelarc::engine
