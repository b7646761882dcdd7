// Which screened candidates go on (issue 25's multi-fidelity search): of a round of screenings, the fastest that beat the
// incumbent's screening at the same fidelity by more than the minimum step, at most a number of them; and the round's
// faster moves taken together. Pure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kernelarc::engine {

// Indices into `times` (none: the screening failed) of those below `incumbent_ns / (1 + min_improvement)`, fastest first,
// at most `at_most`. Without an incumbent time (its screening failed) every measured one qualifies.
std::vector<std::size_t> fastest_beating(const std::vector<std::optional<double>>& times, std::optional<double> incumbent_ns,
                                         double min_improvement, std::size_t at_most);

// How many of a round of `round_size` screenings go on to a longer screening: the `keep` fraction, rounded up, at least one.
std::size_t survivors_of(std::size_t round_size, double keep);

// The moves of the configurations in `faster` (fastest first) away from `base`, made together: each one's changed knobs
// where no faster one changed any of them. None when fewer than two moves go in, or when a configuration carries its
// own source or is composed (a knob named "@..."): those are not knob moves.
std::optional<std::map<std::string, std::int64_t>> combined_moves(const std::map<std::string, std::int64_t>& base,
                                                                  const std::vector<std::map<std::string, std::int64_t>>& faster);

}  // namespace kernelarc::engine
