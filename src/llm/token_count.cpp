// A usage count of either protocol, read strictly: a 2xx answer whose count is not a whole number of tokens (a float, a
// string, a number past 64 bits) is a protocol violation, never a cast of an out-of-range double.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "llm/protocol.h"

namespace kernelarc::llm::detail {

std::int64_t token_count(const nlohmann::json& usage, const char* key, std::int64_t absent) {
  if (!usage.is_object()) throw ProtocolViolation(fmt::format("usage is not an object: {:.80}", usage.dump()));
  const auto found = usage.find(key);
  if (found == usage.end() || found->is_null()) return absent;
  if (found->is_number_unsigned() && found->get<std::uint64_t>() <= static_cast<std::uint64_t>(INT64_MAX))
    return static_cast<std::int64_t>(found->get<std::uint64_t>());
  if (found->is_number_integer() && !found->is_number_unsigned() && found->get<std::int64_t>() >= 0) return found->get<std::int64_t>();
  throw ProtocolViolation(fmt::format("usage.{} is not a token count: {:.80}", key, found->dump()));
}

}  // namespace kernelarc::llm::detail
