// JSON text the store keeps (a run's config and summary, a verdict's details, knobs), read leniently: a field an older
// kernelarc left empty, or text that is not JSON, reads as {} and the page shows what it can.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace kernelarc::report {

inline nlohmann::json parse_or_empty(const std::string& text) {
  nlohmann::json value = nlohmann::json::parse(text, nullptr, false);
  return value.is_discarded() ? nlohmann::json::object() : value;
}

}  // namespace kernelarc::report
