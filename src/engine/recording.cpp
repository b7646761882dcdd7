#include "engine/recording.h"

#include "common/hash.h"
#include "engine/composition.h"

namespace kernelarc::engine {

using nlohmann::json;

json workload_json(const judge::WorkloadVerdict& row) {
  json out = {{"uuid", row.uuid}, {"held_out", row.held_out}, {"status", judge::status_name(row.status)},
              {"reason", row.reason}, {"rounds_passed", row.rounds_passed}, {"extra_rounds_passed", row.extra_rounds_passed}};
  if (row.roofline)
    out["roofline"] = {{"sol_ns", row.roofline->seconds * 1e9}, {"flops", row.roofline->flops}, {"bytes", row.roofline->bytes},
                       {"bound", row.roofline->bound}};
  if (row.timing) {
    out["timing"] = {{"median_ns", row.timing->median_ns}, {"min_ns", row.timing->min_ns}, {"q1_ns", row.timing->q1_ns},
                     {"q3_ns", row.timing->q3_ns}, {"call_overhead_ns", row.timing->call_overhead_ns},
                     {"wall_per_iteration_ns", row.timing->wall_per_iteration_ns}, {"input_slots", row.timing->input_slots},
                     {"samples_ns", row.timing->samples_ns}, {"in_process_ns", row.timing->in_process_ns}, {"timer", row.timing->timer}};
    if (!row.timing->unseen_ns.empty()) out["timing"]["unseen_ns"] = row.timing->unseen_ns;
    if (!row.timing->event_ns.empty()) {
      out["timing"]["event_median_ns"] = row.timing->event_median_ns;
      out["timing"]["event_ns"] = row.timing->event_ns;
    }
  }
  if (row.baseline_ns) out["baseline_ns"] = *row.baseline_ns;
  if (!row.baseline_source.empty()) out["baseline_source"] = row.baseline_source;
  if (row.score) out["score"] = *row.score;
  if (!row.warnings.empty()) out["warnings"] = row.warnings;
  if (row.failed_at) {
    const auto index = [](int value) { return value < 0 ? json() : json(value); };  // -1: the phase has no round or call
    out["failed_at"] = {{"phase", judge::phase_name(row.failed_at->phase)}, {"workload", row.failed_at->workload_uuid},
                        {"round", index(row.failed_at->round)}, {"call", index(row.failed_at->call)}};
  }
  return out;
}

void record_measurement(store::Store& store, std::int64_t candidate_id, const judge::CandidateVerdict& verdict, const std::string& note) {
  for (const auto& row : verdict.workloads) {
    store::VerdictRecord record;
    record.candidate_id = candidate_id;
    record.workload_uuid = row.uuid;
    record.held_out = row.held_out;
    record.status = std::string(judge::status_name(row.status));
    record.reason = row.reason;
    if (row.timing) record.median_ns = row.timing->median_ns, record.samples_ns = row.timing->samples_ns;
    if (row.roofline) record.sol_ns = row.roofline->seconds * 1e9;
    record.baseline_ns = row.baseline_ns;
    record.score = row.score;
    json details = workload_json(row);
    if (details.contains("timing")) details["timing"].erase("samples_ns");
    if (!note.empty()) details["measurement"] = note;
    record.details_json = details.dump();
    store.add_verdict(record);
  }
}

std::int64_t record_candidate(store::Store& store, std::int64_t run_id, const judge::CandidateSource& source,
                              const judge::CandidateVerdict& verdict, const CandidateOrigin& origin) {
  store::CandidateRecord candidate;
  candidate.run_id = run_id;
  candidate.name = source.name;
  candidate.source_hash = common::content_hash(source.source);
  candidate.source = source.source;
  // A composed candidate's source defines its parts' knobs itself: its record says which parts it has.
  candidate.knobs_json = json(source.dispatch.empty() ? source.knobs : composed_knobs(source.dispatch, source.dispatch_axis)).dump();
  candidate.parent_id = origin.parent_id;
  candidate.proposer = origin.proposer;
  candidate.hypothesis = origin.hypothesis;
  candidate.build_json = json{{"ok", verdict.build.ok}, {"cache_key", verdict.build.cache_key}, {"cache_hit", verdict.build.cache_hit},
                              {"seconds", verdict.build.seconds}, {"command", verdict.build.command},
                              {"diagnostics", verdict.build.diagnostics}, {"resources", verdict.build.resources}}
                             .dump();
  const auto candidate_id = store.add_candidate(candidate);
  record_measurement(store, candidate_id, verdict, "");
  return candidate_id;
}

}  // namespace kernelarc::engine
