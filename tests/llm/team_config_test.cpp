#include "llm/team_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace kernelarc::llm {
namespace {

namespace fs = std::filesystem;
using ::testing::Not;
using ::testing::HasSubstr;

// The ```json blocks of docs/LLM.md: the examples a user copies must parse.
std::vector<std::string> documented_examples() {
  std::ifstream doc(fs::path(KERNELARC_PROMPTS).parent_path() / "docs" / "LLM.md");
  std::vector<std::string> examples;
  std::string line, block;
  bool inside = false;
  while (std::getline(doc, line)) {
    if (!inside && line == "```json") {
      inside = true;
      block.clear();
    } else if (inside && line == "```") {
      inside = false;
      examples.push_back(block);
    } else if (inside) {
      block += line + "\n";
    }
  }
  return examples;
}

std::string config_error(const std::string& json_text) {
  try {
    parse_team_config(json_text, "team.json");
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "(no error)";
}

// One endpoint "local" with `fields` added to its required ones.
std::string local_endpoint_with(const std::string& fields) {
  return R"({"endpoints": {"local": {"base_url": "http://localhost:8000/v1", "model": "m")" +
         (fields.empty() ? "" : ", " + fields) + "}}}";
}

TEST(TeamConfig, TheDocumentedExamplesParse) {
  const std::vector<std::string> examples = documented_examples();
  ASSERT_EQ(examples.size(), 3u);

  const TeamConfig hosted = parse_team_config(examples[0], "docs/LLM.md");
  ASSERT_EQ(hosted.endpoints.size(), 1u);
  const EndpointConfig& claude = hosted.endpoints.at("claude");
  EXPECT_EQ(claude.name, "claude");
  EXPECT_EQ(claude.protocol, "anthropic");
  EXPECT_EQ(claude.base_url, "https://api.anthropic.com");
  EXPECT_EQ(claude.model, "claude-sonnet-4-5");
  EXPECT_EQ(claude.api_key_env, "ANTHROPIC_API_KEY");
  EXPECT_EQ(claude.price_in_per_mtok, 3);
  EXPECT_EQ(claude.price_out_per_mtok, 15);
  EXPECT_EQ(claude.max_concurrency, 4);
  EXPECT_EQ(claude.timeout_s, 300);  // the default
  EXPECT_EQ(hosted.default_endpoint, "claude");
  EXPECT_EQ(hosted.max_cost_usd, 5.0);
  EXPECT_EQ(hosted.max_complaints, 2);

  const TeamConfig local = parse_team_config(examples[1], "docs/LLM.md");
  const EndpointConfig& qwen = local.endpoints.at("local");
  EXPECT_EQ(qwen.protocol, "openai");
  EXPECT_EQ(qwen.base_url, "http://localhost:8000/v1");
  EXPECT_EQ(qwen.model, "Qwen/Qwen2.5-Coder-32B-Instruct");
  EXPECT_EQ(qwen.api_key_env, "");
  EXPECT_TRUE(qwen.stream);
  EXPECT_EQ(qwen.timeout_s, 600);
  EXPECT_EQ(qwen.max_concurrency, 16);
  EXPECT_EQ(local.default_endpoint, "local");  // the only endpoint
  EXPECT_FALSE(local.max_cost_usd.has_value());
  EXPECT_EQ(local.endpoint_for("tiling").name, "local");

  const TeamConfig team = parse_team_config(examples[2], "docs/LLM.md");
  EXPECT_EQ(team.endpoints.size(), 2u);
  EXPECT_EQ(team.strategy_endpoint, (std::map<std::string, std::string>{{"memory", "local"}, {"tiling", "local"}}));
  EXPECT_EQ(team.endpoint_for("memory").name, "local");
  EXPECT_EQ(team.endpoint_for("tiling").model, "Qwen/Qwen2.5-Coder-32B-Instruct");
  EXPECT_EQ(team.endpoint_for("fusion").name, "claude");
}

TEST(TeamConfig, EveryEndpointFieldIsSettable) {
  const TeamConfig config = parse_team_config(R"({
    "endpoints": {"e": {
      "protocol": "anthropic", "base_url": "https://example.com/api/", "model": "big", "api_key_env": "MY_KEY_2",
      "stream": true, "timeout_s": 12.5, "connect_timeout_s": 3, "max_retries": 0, "backoff_initial_s": 0.5,
      "backoff_max_s": 7, "retry_after_max_s": 60, "max_concurrency": 2, "max_response_bytes": 1024,
      "price_in_per_mtok": 0.25, "price_out_per_mtok": 1.25}},
    "max_complaints": 0})",
                                              "t.json");
  const EndpointConfig& e = config.endpoints.at("e");
  EXPECT_EQ(e.name, "e");
  EXPECT_EQ(e.protocol, "anthropic");
  EXPECT_EQ(e.base_url, "https://example.com/api");  // the trailing slash dropped
  EXPECT_EQ(e.model, "big");
  EXPECT_EQ(e.api_key_env, "MY_KEY_2");
  EXPECT_TRUE(e.stream);
  EXPECT_EQ(e.timeout_s, 12.5);
  EXPECT_EQ(e.connect_timeout_s, 3);
  EXPECT_EQ(e.max_retries, 0);
  EXPECT_EQ(e.backoff_initial_s, 0.5);
  EXPECT_EQ(e.backoff_max_s, 7);
  EXPECT_EQ(e.retry_after_max_s, 60);
  EXPECT_EQ(e.max_concurrency, 2);
  EXPECT_EQ(e.max_response_bytes, 1024u);
  EXPECT_EQ(e.price_in_per_mtok, 0.25);
  EXPECT_EQ(e.price_out_per_mtok, 1.25);
  EXPECT_EQ(config.max_complaints, 0);
  EXPECT_TRUE(config.strategy_endpoint.empty());
}

TEST(TeamConfig, DefaultsAreChatHs) {
  const EndpointConfig& e = parse_team_config(local_endpoint_with(""), "t.json").endpoints.at("local");
  const EndpointConfig defaults;
  EXPECT_EQ(e.protocol, defaults.protocol);
  EXPECT_EQ(e.api_key_env, "");
  EXPECT_EQ(e.stream, defaults.stream);
  EXPECT_EQ(e.timeout_s, defaults.timeout_s);
  EXPECT_EQ(e.max_retries, defaults.max_retries);
  EXPECT_EQ(e.max_concurrency, defaults.max_concurrency);
  EXPECT_EQ(e.max_response_bytes, defaults.max_response_bytes);
}

TEST(TeamConfig, AKeyInTheFileIsRefusedWithoutQuotingIt) {
  const std::string error = config_error(local_endpoint_with(R"("api_key": "sk-secret-123")"));
  EXPECT_EQ(error,
            "team.json: endpoints.local.api_key: a key must not be written in the configuration: put it in an "
            "environment variable and name that variable in api_key_env");
  EXPECT_THAT(error, Not(HasSubstr("sk-secret-123")));
  const std::string pasted = config_error(local_endpoint_with(R"("api_key_env": "sk-ant-api03-secret")"));
  EXPECT_EQ(pasted,
            "team.json: endpoints.local.api_key_env: must be the name of an environment variable (letters, digits and "
            "underscores), not the key itself");
}

TEST(TeamConfig, EndpointFieldErrorsNameTheField) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"("timeout_s": -1)", "endpoints.local.timeout_s: must be a positive number"},
      {R"("timeout_s": "600")", "endpoints.local.timeout_s: must be a positive number"},
      {R"("connect_timeout_s": 0)", "endpoints.local.connect_timeout_s: must be a positive number"},
      {R"("max_retries": -1)", "endpoints.local.max_retries: must be a non-negative integer"},
      {R"("max_retries": 1.5)", "endpoints.local.max_retries: must be a non-negative integer"},
      {R"("max_concurrency": 0)", "endpoints.local.max_concurrency: must be an integer of at least 1"},
      {R"("max_concurrency": 3000000000)", "endpoints.local.max_concurrency: must be at most 2147483647"},
      {R"("max_response_bytes": 0)", "endpoints.local.max_response_bytes: must be an integer of at least 1"},
      {R"("price_in_per_mtok": -0.5)", "endpoints.local.price_in_per_mtok: must be a non-negative number"},
      {R"("stream": "yes")", "endpoints.local.stream: must be true or false"},
      {R"("protocol": "grpc")", "endpoints.local.protocol: \"grpc\" is not a protocol: must be openai or anthropic"},
      {R"("protocol": 1)", "endpoints.local.protocol: must be a string"},
      {R"("model": "")", "endpoints.local.model: must not be empty: the model's name as the endpoint knows it"},
      {R"("backoff_initial_s": 10, "backoff_max_s": 5)", "endpoints.local.backoff_max_s: must be at least backoff_initial_s (10)"},
      {R"("name": "other")", "endpoints.local.name: an endpoint's name is its key in endpoints, not a field"},
      {R"("timeout": 5)",
       "endpoints.local.timeout: unknown field (an endpoint's fields: api_key_env, backoff_initial_s, backoff_max_s, "
       "base_url, connect_timeout_s, max_concurrency, max_response_bytes, max_retries, model, price_in_per_mtok, "
       "price_out_per_mtok, protocol, retry_after_max_s, stream, timeout_s)"},
  };
  for (const auto& [fields, message] : cases) EXPECT_EQ(config_error(local_endpoint_with(fields)), "team.json: " + message);
}

TEST(TeamConfig, BaseUrlAndModelAreChecked) {
  EXPECT_EQ(config_error(R"({"endpoints": {"e": {"base_url": "localhost:8000/v1", "model": "m"}}})"),
            "team.json: endpoints.e.base_url: \"localhost:8000/v1\" must start with http:// or https://");
  EXPECT_EQ(config_error(R"({"endpoints": {"e": {"base_url": "https://", "model": "m"}}})"),
            "team.json: endpoints.e.base_url: \"https://\" names no host");
  EXPECT_EQ(config_error(R"({"endpoints": {"e": {"model": "m"}}})"),
            "team.json: endpoints.e.base_url: missing: the endpoint's URL, http:// or https://");
  EXPECT_EQ(config_error(R"({"endpoints": {"e": {"base_url": "http://h"}}})"),
            "team.json: endpoints.e.model: missing: the model's name as the endpoint knows it");
  EXPECT_EQ(config_error(R"({"endpoints": {"e": "http://h"}})"), "team.json: endpoints.e: must be an object");
}

TEST(TeamConfig, TopLevelErrorsNameTheField) {
  const std::string two = R"("endpoints": {"a": {"base_url": "http://a", "model": "m"}, "b": {"base_url": "http://b", "model": "m"}})";
  EXPECT_EQ(config_error("{" + two + "}"),
            "team.json: default: missing: the endpoint for every strategy that \"strategies\" does not map (one of: a, b)");
  EXPECT_EQ(config_error("{" + two + R"(, "default": "c"})"), "team.json: default: \"c\" is not an endpoint (the endpoints: a, b)");
  EXPECT_EQ(config_error("{" + two + R"(, "default": "a", "strategies": {"speed": "b"}})"),
            "team.json: strategies.speed: unknown strategy (the strategies: memory, precision, fusion, tiling, pipelining, "
            "algorithmic)");
  EXPECT_EQ(config_error("{" + two + R"(, "default": "a", "strategies": {"fusion": "z"}})"),
            "team.json: strategies.fusion: \"z\" is not an endpoint (the endpoints: a, b)");
  EXPECT_EQ(config_error("{" + two + R"(, "default": "a", "strategies": ["a"]})"),
            "team.json: strategies: must be an object from strategy to endpoint name");
  EXPECT_EQ(config_error("{" + two + R"(, "default": "a", "max_cost_usd": 0})"), "team.json: max_cost_usd: must be a positive number");
  EXPECT_EQ(config_error("{" + two + R"(, "default": "a", "max_complaints": -1})"),
            "team.json: max_complaints: must be a non-negative integer");
  EXPECT_EQ(config_error("{" + two + R"(, "default": "a", "max_cost": 5})"),
            "team.json: max_cost: unknown field (the fields: endpoints, default, strategies, max_cost_usd, max_complaints)");
  EXPECT_EQ(config_error(R"({"default": "a"})"), "team.json: endpoints: missing: at least one endpoint, by name");
  EXPECT_EQ(config_error(R"({"endpoints": {}})"), "team.json: endpoints: must be an object with at least one endpoint, by name");
  EXPECT_EQ(config_error("[]"), "team.json: must be a JSON object with \"endpoints\"");
  EXPECT_THAT(config_error("{\"endpoints\": "), HasSubstr("team.json: not valid JSON: "));
}

TEST(TeamConfig, LoadNamesTheFile) {
  const fs::path file = fs::temp_directory_path() / ("kernelarc-team-" + std::to_string(::getpid()) + ".json");
  std::ofstream(file) << local_endpoint_with(R"("timeout_s": 0)");
  try {
    load_team_config(file);
    ADD_FAILURE() << "no error";
  } catch (const ConfigError& error) {
    EXPECT_EQ(std::string(error.what()), file.string() + ": endpoints.local.timeout_s: must be a positive number");
  }
  std::ofstream(file) << local_endpoint_with("");
  EXPECT_EQ(load_team_config(file).endpoints.at("local").model, "m");
  fs::remove(file);
  try {
    load_team_config(file);
    ADD_FAILURE() << "no error";
  } catch (const ConfigError& error) {
    EXPECT_EQ(std::string(error.what()), file.string() + ": cannot be read");
  }
}

TEST(TeamConfig, SingleEndpointFromTheFlags) {
  const TeamConfig config = single_endpoint_config("openai", "http://localhost:8000/v1/", "Qwen/Qwen2.5-Coder-32B-Instruct", "");
  ASSERT_EQ(config.endpoints.size(), 1u);
  const EndpointConfig& endpoint = config.endpoint_for("pipelining");
  EXPECT_EQ(endpoint.name, config.default_endpoint);
  EXPECT_EQ(config.endpoints.begin()->first, endpoint.name);
  EXPECT_EQ(endpoint.protocol, "openai");
  EXPECT_EQ(endpoint.base_url, "http://localhost:8000/v1");
  EXPECT_EQ(endpoint.model, "Qwen/Qwen2.5-Coder-32B-Instruct");
  EXPECT_EQ(endpoint.api_key_env, "");
  EXPECT_EQ(config.endpoint_for("memory").name, endpoint.name);
  EXPECT_EQ(single_endpoint_config("anthropic", "https://api.anthropic.com", "claude-sonnet-4-5", "ANTHROPIC_API_KEY")
                .endpoint_for("fusion")
                .api_key_env,
            "ANTHROPIC_API_KEY");
}

TEST(TeamConfig, SingleEndpointErrorsNameTheFlag) {
  const auto error = [](const std::string& protocol, const std::string& url, const std::string& model, const std::string& key) {
    try {
      single_endpoint_config(protocol, url, model, key);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(error("http", "http://h", "m", ""), "command line: --protocol: \"http\" is not a protocol: must be openai or anthropic");
  EXPECT_EQ(error("openai", "h:8000", "m", ""), "command line: --endpoint: \"h:8000\" must start with http:// or https://");
  EXPECT_EQ(error("openai", "http://h", "", ""),
            "command line: --model: must not be empty: the model's name as the endpoint knows it");
  EXPECT_EQ(error("openai", "http://h", "m", "sk-123"),
            "command line: --api-key-env: must be the name of an environment variable (letters, digits and underscores), "
            "not the key itself");
}

TEST(TeamConfig, EndpointForAnUndefinedEndpointIsAnError) {
  TeamConfig config;
  config.default_endpoint = "gone";
  try {
    config.endpoint_for("memory");
    ADD_FAILURE() << "no error";
  } catch (const ConfigError& error) {
    EXPECT_EQ(std::string(error.what()), "strategy \"memory\" uses endpoint \"gone\", which the configuration does not define");
  }
}

}  // namespace
// Found by fuzz_team_config: a number too large for any type escaped as nlohmann's out_of_range, not a ConfigError.
TEST(TeamConfig, ANumberTooLargeForAnyTypeIsAConfigError) {
  EXPECT_THROW(parse_team_config("4e4444444444444444444", "fuzz"), ConfigError);
  EXPECT_THROW(parse_team_config(R"({"max_cost_usd": 1e999999})", "fuzz"), ConfigError);
}

}  // namespace kernelarc::llm
