#include "engine/journal.h"

#include <fmt/format.h>

#include <stdexcept>

#include "engine/measurement.h"

namespace kernelarc::engine::journal {

using nlohmann::json;

namespace {

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};

json measured_json(const Measured& m) {
  return {{"passed", m.passed}, {"reason", m.reason}, {"time_ns", m.time_ns}, {"spread", m.spread}, {"sol_fraction", m.sol_fraction},
          {"sol_score", m.sol_score ? json(*m.sol_score) : json()}};
}

Measured measured_from(std::int64_t number, const json& j) {
  Measured m{number, j.at("passed").get<bool>(), j.at("reason").get<std::string>(), j.at("time_ns").get<double>(), j.at("spread").get<double>(), 0, std::nullopt};
  m.sol_fraction = j.value("sol_fraction", 0.0);
  if (j.contains("sol_score") && j.at("sol_score").is_number()) m.sol_score = j.at("sol_score").get<double>();
  return m;
}

json paired_json(const PairedRecord& p) {
  json j = {{"outcome", paired_outcome_name(p.outcome)}, {"pairs", p.result.pairs}, {"ratio", p.result.ratio},
            {"upper_bound", p.result.upper_bound}, {"threshold", p.result.threshold}, {"reason", p.result.reason}, {"seconds", p.seconds}};
  if (p.failure) j["failure"] = *p.failure;
  if (!p.warnings.empty()) j["measurement_warnings"] = p.warnings;
  return j;
}

PairedRecord paired_from(const json& j) {
  PairedRecord p;
  const auto outcome = parse_paired_outcome(j.at("outcome").get<std::string>());
  if (!outcome) throw std::runtime_error(fmt::format("unknown paired outcome {}", j.at("outcome").dump()));
  p.outcome = *outcome;
  p.result.pairs = j.value("pairs", std::size_t{0});
  p.result.ratio = j.value("ratio", 1.0);
  p.result.upper_bound = j.value("upper_bound", 1.0);
  p.result.threshold = j.value("threshold", 1.0);
  p.result.reason = j.value("reason", "");
  p.result.challenger_wins = p.outcome == PairedOutcome::won;
  p.seconds = j.value("seconds", 0.0);
  if (j.contains("failure")) p.failure = j.at("failure").get<std::string>();
  if (j.contains("measurement_warnings")) p.warnings = j.at("measurement_warnings").get<std::vector<std::string>>();
  return p;
}

std::optional<ModelUsage> usage_in(const json& payload) {
  if (!payload.contains("usage")) return std::nullopt;
  return usage_from(payload.at("usage"));
}

json payload_of(const Event& event) {
  return std::visit(
      Overloaded{
          [](const RunStarted& e) {
            json agents = json::array();
            for (const auto& seat : e.agents) agents.push_back({{"name", seat.agent}, {"strategy", seat.strategy}});
            return json{{"config", e.config}, {"agents", agents}};
          },
          [](const RunResumed& e) { return json{{"judged", e.judged}, {"promotions", e.promotions}}; },
          [](const BudgetExtended& e) { return json{{"from", e.from}, {"to", e.to}}; },
          [](const Judged& e) {
            json p = {{"number", e.number}, {"candidate", e.candidate}, {"agent", e.agent}, {"strategy", e.strategy},
                      {"knobs", e.knobs}, {"decision", decision_name(e.decision)}};
            if (e.source) p["source"] = *e.source;
            if (e.usage) p["usage"] = usage_json(*e.usage);
            p["judge_seconds"] = e.judge_seconds;
            p["phase_seconds"] = e.phase_seconds;
            if (!e.conditions.is_null()) p["conditions"] = e.conditions;
            if (!e.measurement_warnings.empty()) p["measurement_warnings"] = e.measurement_warnings;
            if (e.paired) p["paired"] = paired_json(*e.paired);
            return p;
          },
          [](const Promoted& e) { return json{{"candidate", e.candidate}, {"agent", e.agent}, {"from_ns", e.from_ns}, {"to_ns", e.to_ns}}; },
          [](const Sandbox& e) { return e.walls; },
          [](const StartMeasuredAgain& e) {
            json p = {{"candidate", e.candidate}, {"measured", measured_json(e.measured)}, {"first_ns", e.first_ns}, {"judge_seconds", e.judge_seconds}};
            if (!e.measurement_warnings.empty()) p["measurement_warnings"] = e.measurement_warnings;
            return p;
          },
          [](const RunFinished& e) { return e.result; },
          [](const ProposalFailed& e) {
            json p = {{"agent", e.agent}, {"strategy", e.strategy}, {"why", e.why}, {"in_a_row", e.in_a_row}, {"retired", e.retired}};
            if (e.usage) p["usage"] = usage_json(*e.usage);
            return p;
          },
          [](const ProposalsDiscarded& e) {
            json usage = json::object();
            for (const auto& [agent, spent] : e.usage) usage[agent] = usage_json(spent);
            return json{{"usage", usage}};
          },
          [](const AgentReassigned& e) {
            return json{{"agent", e.agent}, {"from", e.from}, {"to", e.to}, {"judged", e.judged}, {"reason", e.reason}};
          },
          [](const Plateau& e) {
            json action = {{"strategies_rotated", true}};
            if (e.restart_from) action["restart_from"] = *e.restart_from;
            return json{{"judged", e.judged}, {"window", e.window}, {"min_gain", e.min_gain}, {"history_size", e.history_size},
                        {"strategies", e.strategies}, {"action", action}};
          },
          [](const Screened& e) {
            json p = {{"agent", e.agent}, {"strategy", e.strategy}, {"hypothesis", e.hypothesis}, {"knobs", e.knobs}, {"fidelity", e.fidelity},
                      {"outcome", e.outcome}, {"time_ns", e.time_ns ? json(*e.time_ns) : json()}, {"workload_ns", e.workload_ns},
                      {"incumbent_ns", e.incumbent_ns ? json(*e.incumbent_ns) : json()}, {"seconds", e.seconds}};
            if (!e.reason.empty()) p["reason"] = e.reason;
            if (!e.phase_seconds.empty()) p["phase_seconds"] = e.phase_seconds;
            if (e.source) p["source"] = *e.source;
            if (e.usage) p["usage"] = usage_json(*e.usage);
            return p;
          },
          [](const RoundClosed& e) { return json{{"screened", e.screened}, {"incumbent_ns", e.incumbent_ns ? json(*e.incumbent_ns) : json()}}; },
          [](const StartPaired& e) { return json{{"start", e.start}, {"best", e.best}, {"paired", paired_json(e.paired)}}; },
      },
      event);
}

std::vector<std::string> warnings_in(const json& payload) {
  return payload.contains("measurement_warnings") ? payload.at("measurement_warnings").get<std::vector<std::string>>() : std::vector<std::string>{};
}

Event event_from(const std::string& kind, const json& p, const std::map<std::int64_t, store::CandidateRecord>& candidates,
                 const store::Store& store) {
  if (kind == "run_started") {
    RunStarted e{p.at("config"), {}};
    for (const auto& seat : p.at("agents")) e.agents.push_back({seat.at("name").get<std::string>(), seat.at("strategy").get<std::string>()});
    return e;
  }
  if (kind == "run_resumed") return RunResumed{p.at("judged").get<int>(), p.at("promotions").get<int>()};
  if (kind == "budget_extended") return BudgetExtended{p.at("from").get<int>(), p.at("to").get<int>()};
  if (kind == "judged") {
    Judged e;
    e.number = p.at("number").get<std::int64_t>();
    e.candidate = p.at("candidate").get<std::int64_t>();
    e.agent = p.at("agent").get<std::string>();
    e.strategy = p.value("strategy", "");
    e.knobs = p.at("knobs").get<Knobs>();
    const auto decision = parse_decision(p.at("decision").get<std::string>());
    if (!decision) throw std::runtime_error(fmt::format("unknown decision {}", p.at("decision").dump()));
    e.decision = *decision;
    if (p.contains("source")) e.source = p.at("source").get<std::string>();
    e.usage = usage_in(p);
    e.judge_seconds = p.value("judge_seconds", 0.0);
    e.phase_seconds = p.value("phase_seconds", json());
    e.conditions = p.value("conditions", json());
    e.measurement_warnings = warnings_in(p);
    if (p.contains("paired")) e.paired = paired_from(p.at("paired"));
    const auto found = candidates.find(e.candidate);
    if (found == candidates.end()) throw std::runtime_error(fmt::format("candidate {} is not in the store", e.candidate));
    auto measurements = recorded_measurements(store, found->second, e.number);
    e.measured = measurements.first;
    e.measured_again = measurements.again;
    return e;
  }
  if (kind == "promoted")
    return Promoted{p.at("candidate").get<std::int64_t>(), p.at("agent").get<std::string>(), p.at("from_ns").get<double>(), p.at("to_ns").get<double>()};
  if (kind == "sandbox") return Sandbox{p};
  if (kind == "start_measured_again") {
    const auto candidate = p.at("candidate").get<std::int64_t>();
    return StartMeasuredAgain{candidate, measured_from(1, p.at("measured")), p.at("first_ns").get<double>(), p.value("judge_seconds", 0.0),
                              warnings_in(p)};
  }
  if (kind == "run_finished") return RunFinished{p};
  if (kind == "proposal_failed")
    return ProposalFailed{p.at("agent").get<std::string>(), p.value("strategy", ""), p.value("why", ""), p.value("in_a_row", 0),
                          p.value("retired", false), usage_in(p)};
  if (kind == "proposals_discarded") {
    ProposalsDiscarded e;
    for (const auto& [agent, usage] : p.at("usage").items()) e.usage[agent] = usage_from(usage);
    return e;
  }
  if (kind == "agent_reassigned")
    return AgentReassigned{p.at("agent").get<std::string>(), p.at("from").get<std::string>(), p.at("to").get<std::string>(), p.value("judged", 0),
                           p.value("reason", "")};
  if (kind == "plateau") {
    Plateau e{p.at("judged").get<int>(), p.at("window").get<std::size_t>(), p.at("min_gain").get<double>(), p.at("history_size").get<std::size_t>(),
              p.at("strategies").get<std::vector<std::string>>(), std::nullopt};
    if (p.contains("action") && p.at("action").contains("restart_from")) e.restart_from = p.at("action").at("restart_from").get<std::int64_t>();
    return e;
  }
  if (kind == "screened") {
    Screened e;
    e.agent = p.at("agent").get<std::string>();
    e.strategy = p.value("strategy", "");
    e.hypothesis = p.value("hypothesis", "");
    e.knobs = p.at("knobs").get<Knobs>();
    e.fidelity = p.value("fidelity", 0);
    e.outcome = p.at("outcome").get<std::string>();
    e.reason = p.value("reason", "");
    if (p.contains("time_ns") && p.at("time_ns").is_number()) e.time_ns = p.at("time_ns").get<double>();
    if (p.contains("workload_ns")) e.workload_ns = p.at("workload_ns").get<std::map<std::string, double>>();
    if (p.contains("incumbent_ns") && p.at("incumbent_ns").is_number()) e.incumbent_ns = p.at("incumbent_ns").get<double>();
    e.seconds = p.value("seconds", 0.0);
    if (p.contains("source")) e.source = p.at("source").get<std::string>();
    e.usage = usage_in(p);
    if (p.contains("phase_seconds")) e.phase_seconds = p.at("phase_seconds").get<std::map<std::string, double>>();
    return e;
  }
  if (kind == "round_closed") {
    RoundClosed e{p.at("screened").get<int>(), std::nullopt};
    if (p.contains("incumbent_ns") && p.at("incumbent_ns").is_number()) e.incumbent_ns = p.at("incumbent_ns").get<double>();
    return e;
  }
  if (kind == "start_paired") return StartPaired{p.at("start").get<std::int64_t>(), p.at("best").get<std::int64_t>(), paired_from(p.at("paired"))};
  throw std::runtime_error("an event of unknown kind (written by a newer kernelarc?)");
}

Entry entry_of(const store::EventRecord& record, const std::map<std::int64_t, store::CandidateRecord>& candidates, const store::Store& store) {
  try {
    return {record.id, record.created_at, event_from(record.kind, json::parse(record.payload_json), candidates, store)};
  } catch (const std::exception& error) {
    throw std::runtime_error(fmt::format("run {}'s journal cannot be read at event {} ({}): {}", record.run_id, record.id, record.kind, error.what()));
  }
}

}  // namespace

std::vector<std::string> RunStarted::strategies() const { return config.at("strategies").get<std::vector<std::string>>(); }

const char* kind_of(const Event& event) {
  static constexpr const char* kKinds[] = {"run_started", "run_resumed", "budget_extended", "judged", "promoted", "sandbox",
                                           "start_measured_again", "run_finished", "proposal_failed", "proposals_discarded",
                                           "agent_reassigned", "plateau", "screened", "round_closed", "start_paired"};
  static_assert(std::size(kKinds) == std::variant_size_v<Event>);
  return kKinds[event.index()];
}

void write(store::Store& store, std::int64_t run_id, const Event& event) {
  store.add_event({0, run_id, kind_of(event), payload_of(event).dump(), ""});
}

std::vector<Entry> read_entries(const store::Store& store, std::int64_t run_id) {
  std::map<std::int64_t, store::CandidateRecord> candidates;
  for (auto& candidate : store.candidates(run_id)) candidates.emplace(candidate.id, std::move(candidate));
  std::vector<Entry> entries;
  for (const auto& record : store.events(run_id)) entries.push_back(entry_of(record, candidates, store));
  return entries;
}

Entry read_entry(const store::Store& store, const store::EventRecord& record) {
  std::map<std::int64_t, store::CandidateRecord> candidates;  // only the one a judged event names
  const json payload = json::parse(record.payload_json, nullptr, false);
  if (payload.is_object() && payload.contains("candidate") && payload["candidate"].is_number_integer())
    if (auto candidate = store.candidate(payload["candidate"].get<std::int64_t>())) candidates.emplace(candidate->id, std::move(*candidate));
  return entry_of(record, candidates, store);
}

std::vector<Event> read(const store::Store& store, std::int64_t run_id) {
  std::vector<Event> events;
  for (auto& entry : read_entries(store, run_id)) events.push_back(std::move(entry.event));
  return events;
}

}  // namespace kernelarc::engine::journal
