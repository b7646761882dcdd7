// What proposes the next candidate of an agent. The engine knows only this interface; the brains themselves (the
// built-in knob searches, later language models) live in src/brains/ and are handed to a run as a factory.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/board.h"
#include "task/task.h"

namespace kernelarc::engine {

using Knobs = std::map<std::string, std::int64_t>;

// A candidate that brings its own source (a language model's) is known by its knobs plus this one: the source's hash.
// Template knobs are identifiers, so the name cannot clash with one.
inline constexpr const char* kSourceKnob = "@source";

// What a language model cost to make proposals: requests (retries included), failed requests, tokens, money.
struct ModelUsage {
  std::int64_t requests = 0, failures = 0, tokens_in = 0, tokens_out = 0;
  double cost_usd = 0;
  ModelUsage& operator+=(const ModelUsage& other);
  bool empty() const { return requests == 0; }
};
nlohmann::json usage_json(const ModelUsage& usage);
ModelUsage usage_from(const nlohmann::json& j);

struct Proposal {
  Knobs knobs;
  std::string hypothesis;  // one line: the change and why it might help
  std::optional<std::string> source;  // a whole candidate source of the brain's own; nullopt: the base's source with `knobs`
};

// One workload's time of the base candidate, for a brain that reads them.
struct WorkloadTime {
  std::string uuid;
  std::string axes;        // "batch_size=64 hidden=4096"
  double median_ns = 0;
  double sol_ns = 0;       // the roofline time; 0 when unknown
};

// Everything an agent may propose from. Owned values, so a slow brain can work on it in another thread.
struct ProposalContext {
  Knobs base;                           // the candidate to change (with kSourceKnob when it has its own source)
  std::set<Knobs> tried;                // every configuration judged or in flight, by any agent
  std::vector<Conclusion> evidence;     // the board's entries for this agent, most relevant first
  std::string base_source;              // the base's source, knob #defines not inlined
  std::vector<WorkloadTime> base_times; // the incumbent's time per visible workload, when known
  std::string feedback;                 // what happened to this agent's last candidate; empty before its first
};

class Brain {
 public:
  virtual ~Brain() = default;
  // The next proposal, or nullopt when this agent has nothing (left) to propose: why_not() says why.
  virtual std::optional<Proposal> propose(const ProposalContext& context) = 0;
  virtual std::string why_not() const { return "nothing left to try"; }
  // A brain that takes long (a model's round trip) is asked on its own thread, and many are asked at once.
  virtual bool asynchronous() const { return false; }
  // Makes a propose() under way return soon (nullopt); the run is stopping.
  virtual void cancel() {}
  // What the brain spent since the last call (language models); thread-safe.
  virtual ModelUsage take_usage() { return {}; }
};

// A search over the template's knobs: what it proposes depends only on the base, what was tried and the board.
class KnobBrain : public Brain {
 public:
  std::optional<Proposal> propose(const ProposalContext& context) final { return propose(context.base, context.tried, context.evidence); }
  virtual std::optional<Proposal> propose(const Knobs& base, const std::set<Knobs>& tried, const std::vector<Conclusion>& evidence) = 0;
};

// Makes the brain of one agent: the template it searches, the agent's strategy, its seed.
using BrainFactory = std::function<std::unique_ptr<Brain>(const task::Template& tmpl, const std::string& strategy, std::uint64_t seed)>;

// The template's knobs at their first values: the starting candidate.
Knobs default_knobs(const task::Template& tmpl);
// A configuration drawn uniformly from each knob's values until one satisfies the template's knob-only constraints
// (the same for the same seed); nullopt when none of many draws does.
std::optional<Knobs> random_knobs(const task::Template& tmpl, std::uint64_t seed);
// Whether `knobs` satisfies every constraint of the template that names only knobs (the judge checks the ones over a
// workload's axes, per workload).
bool knobs_allowed(const task::Template& tmpl, const Knobs& knobs);
// The allowed configuration nearest `knobs` that keeps knob `kept` at its value and is not in `tried`: `knobs` itself
// when the constraints allow it (nullopt if it was tried), else `knobs` with one other knob changed, else with two (the
// first found, knobs in the template's order and values in theirs): a knob whose value the constraints tie to others
// (PINGPONG to PERSISTENT and the tile) is reached in one move. nullopt when no such configuration is allowed and new.
std::optional<Knobs> allowed_near(const task::Template& tmpl, const Knobs& knobs, const std::string& kept, const std::set<Knobs>& tried);

}  // namespace kernelarc::engine
