// An LLM team's configuration file: parsed, or refused with a ConfigError naming the field.
#include "fuzz_input.h"
#include "llm/team_config.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace kernelarc;
  try {
    const auto config = llm::parse_team_config(fuzz::text(data, size), "fuzz");
    for (const char* strategy : {"memory", "precision", "fusion", "tiling", "pipelining", "algorithmic"}) (void)config.endpoint_for(strategy);
  } catch (const llm::ConfigError&) {
  }
  return 0;
}
