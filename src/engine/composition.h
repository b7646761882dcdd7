// A composed candidate: several configurations of one template in one source, each taking the workloads up to a size
// (judge/dispatch_rule.h: one var axis's value, or the product of them). Each part is the template's text with its knobs
// #defined, its entry symbol renamed and its body in a namespace of its own (the #include lines hoisted above every
// part); a full-form candidate gets a generated entry point that picks the part from the tensors' shapes, a kernel-only
// one a kernel per part that the judge (and an export's launcher) picks by the same rule. It is judged, recorded and
// exported like any candidate: its knobs (composed_knobs) say which parts it has, so the run, the journal and a resume
// know it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/brain.h"
#include "judge/judge.h"
#include "task/task.h"

namespace kernelarc::engine {

// The knob that marks a composed candidate's knobs: its number of parts. Part i's knobs are "@p<i>.<knob>", its bound
// "@p<i><=", its dispatch axis, when it has one, "@by.<axis>" = 1 (template knobs are identifiers, so none can clash).
inline constexpr const char* kPartsKnob = "@parts";

// `axis`: the var axis the parts are told apart by (judge/dispatch_rule.h); empty: the product of the var axes.
Knobs composed_knobs(const std::vector<judge::DispatchPart>& parts, const std::string& axis = "");
// nullopt: not a composed candidate's knobs. Throws std::invalid_argument for a malformed encoding.
std::optional<std::vector<judge::DispatchPart>> composed_parts(const Knobs& knobs);
// The dispatch axis of a composed candidate's knobs; empty when it has none (the product, as every composed candidate
// recorded before the axis existed).
std::string composed_axis(const Knobs& knobs);

// What a knob search goes on from when `knobs` is a composed candidate's (a resumed run whose incumbent or backup is
// composed): its last part's configuration, the one for the largest sizes; any other knobs as they are.
Knobs search_base(const Knobs& knobs);

// The symbol part `index` gives the template's entry (kernelarc_run, or a kernel-only template's kernel).
std::string part_symbol(const std::string& entry, std::size_t index);
// The namespace part `index`'s text is in: host code names its kernel "<namespace>::<part_symbol>".
std::string part_namespace(std::size_t index);
// The part whose text part `index` runs: the first with the same knobs, so a configuration that takes two runs of
// sizes (engine/shape_classes.h) is built once.
std::size_t part_source_index(const std::vector<judge::DispatchPart>& parts, std::size_t index);
// How many configurations the parts have: parts with the same knobs count once.
std::size_t configuration_count(const std::vector<judge::DispatchPart>& parts);

// The composed source of `parts` (bounds increasing, the last unbounded) of template `tmpl`, told apart by `axis` (empty:
// the product of the var axes). Throws std::runtime_error when the template cannot be composed: a var axis no tensor
// shape names (a full source reads sizes from shapes), a kernel-only template that does not name its kernel, a template
// that brings its own source; std::invalid_argument when `axis` is no var axis.
judge::CandidateSource composed_source(const task::Task& task, const task::Template& tmpl, const std::vector<judge::DispatchPart>& parts,
                                       const std::string& axis = "");

}  // namespace kernelarc::engine
