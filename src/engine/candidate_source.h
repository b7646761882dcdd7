// The source the judge builds for a configuration of knobs: the template's file with those knobs, or, for a proposal
// that brought its own source (kSourceKnob), that source, named after its hash; for a composed candidate's knobs
// (engine/composition.h), the composed source.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "engine/brain.h"
#include "judge/judge.h"
#include "task/task.h"

namespace kernelarc::engine {

// `sources` holds the proposals' own sources by their kSourceKnob value.
judge::CandidateSource candidate_source(const task::Task& task, const task::Template& tmpl, const Knobs& knobs,
                                        const std::map<std::int64_t, std::string>& sources);

}  // namespace kernelarc::engine
