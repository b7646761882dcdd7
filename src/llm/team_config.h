// Which model each strategy's agents talk to: endpoints by name (protocol, URL, model, key variable, limits and prices)
// and a map from strategy to endpoint, from a JSON file (docs/LLM.md shows examples) or from command-line flags.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>

#include "llm/chat.h"

namespace kernelarc::llm {

class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct TeamConfig {
  std::map<std::string, EndpointConfig> endpoints;     // by name
  std::string default_endpoint;                        // for strategies the map does not name
  std::map<std::string, std::string> strategy_endpoint;  // strategy -> endpoint name
  std::optional<double> max_cost_usd;                  // stop the run once the spend reaches it
  int max_complaints = 2;                              // answers without a usable candidate sent back, per proposal

  // The endpoint that `strategy`'s agents use.
  const EndpointConfig& endpoint_for(const std::string& strategy) const;
};

// Parses the file; every error names the file and the field. Unknown fields are errors (a typo must not pass silently).
TeamConfig load_team_config(const std::filesystem::path& file);
TeamConfig parse_team_config(const std::string& json_text, const std::string& origin);

// One endpoint for every strategy, from `--model`, `--endpoint` and `--protocol` (openai or anthropic), with the key
// in `api_key_env` (empty: none).
TeamConfig single_endpoint_config(const std::string& protocol, const std::string& base_url, const std::string& model, const std::string& api_key_env);

}  // namespace kernelarc::llm
