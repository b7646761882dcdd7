#include "common/hash.h"

#include <fmt/format.h>

namespace kernelarc::common {

std::uint64_t fnv1a64(std::string_view data, std::uint64_t seed) {
  std::uint64_t hash = seed;
  for (unsigned char byte : data) {
    hash ^= byte;
    hash *= 0x100000001b3ull;
  }
  return hash;
}

std::uint64_t mix64(std::uint64_t value) {
  value += 0x9e3779b97f4a7c15ull;
  value = (value ^ (value >> 30)) * 0xbf58476d1ce4e5b9ull;
  value = (value ^ (value >> 27)) * 0x94d049bb133111ebull;
  return value ^ (value >> 31);
}

std::string content_hash(std::string_view data) {
  const std::uint64_t first = mix64(fnv1a64(data));
  const std::uint64_t second = mix64(fnv1a64(data, 0x84222325cbf29ce4ull) ^ data.size());
  return fmt::format("{:016x}{:016x}", first, second);
}

}  // namespace kernelarc::common
