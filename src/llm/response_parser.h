// What a model's answer proposes: a whole candidate source (a fenced code block) or a unified diff against the base
// source, the one-line hypothesis, and knob values. An answer that proposes nothing usable gets a precise complaint to
// send back to the model.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace kernelarc::llm {

struct ParsedResponse {
  std::optional<std::string> source;            // the full candidate source: the code block, or the base with the diff applied
  bool from_diff = false;                       // the source came from a unified diff
  std::string hypothesis;                       // one line, at most 200 characters
  std::map<std::string, std::int64_t> knobs;    // values for the base's knobs, when the answer gives any
  std::string complaint;                        // empty when the answer is usable; otherwise what to tell the model, precisely
  bool usable() const { return complaint.empty(); }
};

// `base_source` is what a diff applies to. An answer is usable when it gives a source or at least one knob value, and
// a hypothesis (a line starting "Hypothesis:", any case; without one, the first sentence of the prose before the code).
ParsedResponse parse_response(const std::string& answer, const std::string& base_source);

}  // namespace kernelarc::llm
