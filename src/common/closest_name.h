// "Did you mean ...?": the known name nearest to a mistyped one, for options, commands, task fields and knobs.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kernelarc::common {

// Edits (insert, delete, replace, swap of two neighbours) that turn `a` into `b`, ignoring case.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The known name within a third of the typed one's length in edits (at least one, at most three), the nearest first
// in `known`'s order on a tie; nullopt when none is that close.
std::optional<std::string> closest_name(std::string_view typed, const std::vector<std::string>& known);

// " (did you mean NAME?)" for the closest known name, or "" when none is close.
std::string did_you_mean(std::string_view typed, const std::vector<std::string>& known);

}  // namespace kernelarc::common
