// Work a candidate's worker keeps doing after its call returned: threads still burning CPU are a REWARD_HACK.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

namespace kernelarc::judge {

// What the worker's threads did over 50 ms after its reply, when it is more than an idle pool would do.
std::optional<std::string> find_background_activity(pid_t pid);

}  // namespace kernelarc::judge
