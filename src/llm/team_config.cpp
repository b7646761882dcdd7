#include "llm/team_config.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <vector>

namespace kernelarc::llm {
namespace {

using nlohmann::json;

// The strategies an agent can own (task.h's strategy_names()).
const std::vector<std::string> kStrategies = {"memory", "precision", "fusion", "tiling", "pipelining", "algorithmic"};
const std::vector<std::string> kTopLevelFields = {"endpoints", "default", "strategies", "max_cost_usd", "max_complaints"};
const std::string kSingleEndpointName = "command-line";

// Where a value sits: the file (or "command line") and the field's path in it; every error says both.
struct Where {
  std::string origin;
  std::string path;

  Where operator/(const std::string& field) const { return {origin, path.empty() ? field : path + "." + field}; }
  [[noreturn]] void fail(const std::string& message) const {
    throw ConfigError(path.empty() ? fmt::format("{}: {}", origin, message) : fmt::format("{}: {}: {}", origin, path, message));
  }
};

std::string checked_protocol(const std::string& protocol, const Where& where) {
  if (protocol != "openai" && protocol != "anthropic") where.fail(fmt::format("\"{}\" is not a protocol: must be openai or anthropic", protocol));
  return protocol;
}

// Without the trailing slash, as the clients append "/chat/completions" or "/v1/messages".
std::string checked_base_url(std::string url, const Where& where) {
  const bool has_scheme = url.rfind("http://", 0) == 0 || url.rfind("https://", 0) == 0;
  if (!has_scheme) where.fail(fmt::format("\"{}\" must start with http:// or https://", url));
  const std::size_t host = url.find("://") + 3;
  while (url.size() > host && url.back() == '/') url.pop_back();
  if (url.size() == host) where.fail(fmt::format("\"{}\" names no host", url));
  return url;
}

std::string checked_model(const std::string& model, const Where& where) {
  if (model.empty()) where.fail("must not be empty: the model's name as the endpoint knows it");
  return model;
}

// The value is deliberately never quoted back: a key pasted here by mistake must not reach a log.
std::string checked_key_env(const std::string& variable, const Where& where) {
  static const std::regex variable_name("[A-Za-z_][A-Za-z0-9_]*");
  if (!variable.empty() && !std::regex_match(variable, variable_name))
    where.fail("must be the name of an environment variable (letters, digits and underscores), not the key itself");
  return variable;
}

std::string json_string(const json& value, const Where& where) {
  if (!value.is_string()) where.fail("must be a string");
  return value.get<std::string>();
}

double positive_number(const json& value, const Where& where) {
  if (!value.is_number() || value.get<double>() <= 0) where.fail("must be a positive number");
  return value.get<double>();
}

double non_negative_number(const json& value, const Where& where) {
  if (!value.is_number() || value.get<double>() < 0) where.fail("must be a non-negative number");
  return value.get<double>();
}

std::int64_t integer_at_least(const json& value, std::int64_t least, const Where& where) {
  const bool integer = value.is_number_integer() &&
                       (!value.is_number_unsigned() ||
                        value.get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()));
  if (!integer || value.get<std::int64_t>() < least)
    where.fail(least == 0 ? "must be a non-negative integer" : fmt::format("must be an integer of at least {}", least));
  return value.get<std::int64_t>();
}

int int_at_least(const json& value, std::int64_t least, const Where& where) {
  const std::int64_t number = integer_at_least(value, least, where);
  if (number > std::numeric_limits<int>::max()) where.fail(fmt::format("must be at most {}", std::numeric_limits<int>::max()));
  return static_cast<int>(number);
}

using FieldReader = std::function<void(EndpointConfig&, const json&, const Where&)>;

// Every EndpointConfig field a file may set, by its name in chat.h.
const std::map<std::string, FieldReader>& endpoint_fields() {
  static const std::map<std::string, FieldReader> fields = {
      {"protocol", [](EndpointConfig& e, const json& v, const Where& w) { e.protocol = checked_protocol(json_string(v, w), w); }},
      {"base_url", [](EndpointConfig& e, const json& v, const Where& w) { e.base_url = checked_base_url(json_string(v, w), w); }},
      {"model", [](EndpointConfig& e, const json& v, const Where& w) { e.model = checked_model(json_string(v, w), w); }},
      {"api_key_env", [](EndpointConfig& e, const json& v, const Where& w) { e.api_key_env = checked_key_env(json_string(v, w), w); }},
      {"stream",
       [](EndpointConfig& e, const json& v, const Where& w) {
         if (!v.is_boolean()) w.fail("must be true or false");
         e.stream = v.get<bool>();
       }},
      {"timeout_s", [](EndpointConfig& e, const json& v, const Where& w) { e.timeout_s = positive_number(v, w); }},
      {"connect_timeout_s", [](EndpointConfig& e, const json& v, const Where& w) { e.connect_timeout_s = positive_number(v, w); }},
      {"max_retries", [](EndpointConfig& e, const json& v, const Where& w) { e.max_retries = int_at_least(v, 0, w); }},
      {"backoff_initial_s", [](EndpointConfig& e, const json& v, const Where& w) { e.backoff_initial_s = positive_number(v, w); }},
      {"backoff_max_s", [](EndpointConfig& e, const json& v, const Where& w) { e.backoff_max_s = positive_number(v, w); }},
      {"retry_after_max_s", [](EndpointConfig& e, const json& v, const Where& w) { e.retry_after_max_s = positive_number(v, w); }},
      {"max_concurrency", [](EndpointConfig& e, const json& v, const Where& w) { e.max_concurrency = int_at_least(v, 1, w); }},
      {"max_response_bytes",
       [](EndpointConfig& e, const json& v, const Where& w) { e.max_response_bytes = static_cast<std::size_t>(integer_at_least(v, 1, w)); }},
      {"price_in_per_mtok", [](EndpointConfig& e, const json& v, const Where& w) { e.price_in_per_mtok = non_negative_number(v, w); }},
      {"price_out_per_mtok", [](EndpointConfig& e, const json& v, const Where& w) { e.price_out_per_mtok = non_negative_number(v, w); }},
  };
  return fields;
}

std::string field_list() {
  std::vector<std::string> names;
  for (const auto& [name, reader] : endpoint_fields()) names.push_back(name);
  return fmt::format("{}", fmt::join(names, ", "));
}

EndpointConfig parse_endpoint(const std::string& name, const json& value, const Where& where) {
  if (!value.is_object()) where.fail("must be an object");
  EndpointConfig endpoint;
  endpoint.name = name;
  for (const auto& [field, field_value] : value.items()) {
    const Where field_where = where / field;
    if (field == "api_key")
      field_where.fail("a key must not be written in the configuration: put it in an environment variable and name "
                       "that variable in api_key_env");
    if (field == "name") field_where.fail("an endpoint's name is its key in endpoints, not a field");
    const auto reader = endpoint_fields().find(field);
    if (reader == endpoint_fields().end()) field_where.fail(fmt::format("unknown field (an endpoint's fields: {})", field_list()));
    reader->second(endpoint, field_value, field_where);
  }
  if (!value.contains("base_url")) (where / "base_url").fail("missing: the endpoint's URL, http:// or https://");
  if (!value.contains("model")) (where / "model").fail("missing: the model's name as the endpoint knows it");
  if (endpoint.backoff_max_s < endpoint.backoff_initial_s)
    (where / "backoff_max_s").fail(fmt::format("must be at least backoff_initial_s ({:g})", endpoint.backoff_initial_s));
  return endpoint;
}

std::string endpoint_names(const TeamConfig& config) {
  std::vector<std::string> names;
  for (const auto& [name, endpoint] : config.endpoints) names.push_back(name);
  return fmt::format("{}", fmt::join(names, ", "));
}

std::string endpoint_name(const json& value, const TeamConfig& config, const Where& where) {
  const std::string name = json_string(value, where);
  if (config.endpoints.count(name) == 0)
    where.fail(fmt::format("\"{}\" is not an endpoint (the endpoints: {})", name, endpoint_names(config)));
  return name;
}

}  // namespace

const EndpointConfig& TeamConfig::endpoint_for(const std::string& strategy) const {
  const auto mapped = strategy_endpoint.find(strategy);
  const std::string& name = mapped != strategy_endpoint.end() ? mapped->second : default_endpoint;
  const auto endpoint = endpoints.find(name);
  if (endpoint == endpoints.end())
    throw ConfigError(fmt::format("strategy \"{}\" uses endpoint \"{}\", which the configuration does not define", strategy, name));
  return endpoint->second;
}

TeamConfig parse_team_config(const std::string& json_text, const std::string& origin) {
  const Where root{origin, ""};
  json document;
  try {
    document = json::parse(json_text);
  } catch (const json::exception& error) {  // a parse error, or a number too large for any type (out_of_range)
    root.fail(fmt::format("not valid JSON: {}", error.what()));
  }
  if (!document.is_object()) root.fail("must be a JSON object with \"endpoints\"");
  for (const auto& [field, value] : document.items())
    if (std::find(kTopLevelFields.begin(), kTopLevelFields.end(), field) == kTopLevelFields.end())
      (root / field).fail(fmt::format("unknown field (the fields: {})", fmt::join(kTopLevelFields, ", ")));

  TeamConfig config;
  if (!document.contains("endpoints")) (root / "endpoints").fail("missing: at least one endpoint, by name");
  const json& endpoints = document["endpoints"];
  if (!endpoints.is_object() || endpoints.empty()) (root / "endpoints").fail("must be an object with at least one endpoint, by name");
  for (const auto& [name, value] : endpoints.items()) {
    if (name.empty()) (root / "endpoints").fail("an endpoint's name must not be empty");
    config.endpoints[name] = parse_endpoint(name, value, root / "endpoints" / name);
  }

  if (document.contains("default")) {
    config.default_endpoint = endpoint_name(document["default"], config, root / "default");
  } else if (config.endpoints.size() == 1) {
    config.default_endpoint = config.endpoints.begin()->first;
  } else {
    (root / "default").fail(fmt::format("missing: the endpoint for every strategy that \"strategies\" does not map (one of: {})",
                                        endpoint_names(config)));
  }

  if (document.contains("strategies")) {
    const json& strategies = document["strategies"];
    if (!strategies.is_object()) (root / "strategies").fail("must be an object from strategy to endpoint name");
    for (const auto& [strategy, value] : strategies.items()) {
      const Where where = root / "strategies" / strategy;
      if (std::find(kStrategies.begin(), kStrategies.end(), strategy) == kStrategies.end())
        where.fail(fmt::format("unknown strategy (the strategies: {})", fmt::join(kStrategies, ", ")));
      config.strategy_endpoint[strategy] = endpoint_name(value, config, where);
    }
  }

  if (document.contains("max_cost_usd")) config.max_cost_usd = positive_number(document["max_cost_usd"], root / "max_cost_usd");
  if (document.contains("max_complaints")) config.max_complaints = int_at_least(document["max_complaints"], 0, root / "max_complaints");
  return config;
}

TeamConfig load_team_config(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ConfigError(fmt::format("{}: cannot be read", file.string()));
  std::ostringstream text;
  text << in.rdbuf();
  return parse_team_config(text.str(), file.string());
}

TeamConfig single_endpoint_config(const std::string& protocol, const std::string& base_url, const std::string& model,
                                  const std::string& api_key_env) {
  const Where flags{"command line", ""};
  EndpointConfig endpoint;
  endpoint.name = kSingleEndpointName;
  endpoint.protocol = checked_protocol(protocol, flags / "--protocol");
  endpoint.base_url = checked_base_url(base_url, flags / "--endpoint");
  endpoint.model = checked_model(model, flags / "--model");
  endpoint.api_key_env = checked_key_env(api_key_env, flags / "--api-key-env");
  TeamConfig config;
  config.endpoints[endpoint.name] = endpoint;
  config.default_endpoint = endpoint.name;
  return config;
}

}  // namespace kernelarc::llm
