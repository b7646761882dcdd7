// Content hashes for cache keys and task identity (not for security).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace kernelarc::common {

// 128 bits as 32 hex digits: two independent 64-bit FNV-1a passes, enough to make accidental
// collisions between cached builds negligible.
std::string content_hash(std::string_view data);

std::uint64_t fnv1a64(std::string_view data, std::uint64_t seed = 0xcbf29ce484222325ull);

// SplitMix64: a tiny, well-mixed generator step for deriving per-round seeds.
std::uint64_t mix64(std::uint64_t value);

}  // namespace kernelarc::common
