// `kernelarc run --brain llm` end to end: three agents on two endpoints (OpenAI streamed, Anthropic plain) of a model
// server on loopback that replays real variants of a fixture task's kernel (a copy after a spin of known length) and
// every fault it can make. The run
// must finish, promote a faster variant, record tokens and cost, lose no candidate or conclusion, and keep the key out
// of the store, its own output and the worker's environment. Real processes, a real store file, real HTTP.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "common/subprocess.h"
#include "llm/fake_model_server.h"
#include "store/store.h"

namespace kernelarc {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::FakeModelServer;
using testing::ScriptedAnswer;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kKeyVariable = "KERNELARC_TEST_LLM_KEY";
constexpr const char* kKey = "sk-kernelarc-test-5f3a9c1e7b2d";

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "the template no longer has: " << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

std::string fenced(const std::string& hypothesis, const std::string& source) {
  return fmt::format("Hypothesis: {}\n\n```cpp\n{}\n```\n", hypothesis, source);
}

ScriptedAnswer answer(std::string text) {
  ScriptedAnswer a;
  a.text = std::move(text);
  return a;
}

ScriptedAnswer fault(ScriptedAnswer::Fault kind, int status = 200, std::string retry_after = "", double delay_s = 0) {
  ScriptedAnswer a;
  a.fault = kind;
  a.status = status;
  a.retry_after = std::move(retry_after);
  a.delay_s = delay_s;
  a.text = "Hypothesis: cut off\n```cpp\n// the rest never arrives";
  return a;
}

class LlmRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "kernelarc-llm-run-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    template_ = read_file(fs::path(KERNELARC_SPIN_TASK) / "spin_candidate.cpp");
    ASSERT_FALSE(template_.empty());
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path dir_;
  std::string template_;
};

TEST_F(LlmRunTest, ThreeAgentsSurviveEveryFaultPromoteAFasterVariantAndKeepTheKeySecret) {
  FakeModelServer server;
  // The task: bench/tasks/spin_copy, whose template spins SPIN_US (1000) microseconds before a copy, so a faster variant
  // is faster by a factor no load on a 2-core machine can hide.
  const std::string copy = "std::memcpy(outputs[0]->data, inputs[0]->data, static_cast<size_t>(inputs[0]->shape[0]) * sizeof(float));";
  // Real variants of the template, as a model would write them, between every fault the server can make.
  server.enqueue(fault(ScriptedAnswer::Fault::http_status, 429, "1"));
  server.enqueue(answer("Hypothesis: spin a tenth as long\nKnobs: {\"SPIN_US\": 100}\n"));
  server.enqueue(fault(ScriptedAnswer::Fault::http_status, 500));
  server.enqueue(fault(ScriptedAnswer::Fault::malformed_json));
  server.enqueue(answer("I would look at the memory traffic first, it seems promising."));  // no candidate: a complaint goes back
  server.enqueue(answer(fenced("spin for 10 us", replaced(template_, "#include <kernelarc/candidate_abi.h>\n",
                                                          "#include <kernelarc/candidate_abi.h>\n#undef SPIN_US\n#define SPIN_US 10\n"))));
  server.enqueue(fault(ScriptedAnswer::Fault::truncated_stream));
  server.enqueue(answer(fenced("copy half (wrong on purpose)", replaced(template_, copy, replaced(copy, "shape[0])", "shape[0] / 2)")))));
  server.enqueue(fault(ScriptedAnswer::Fault::slow, 200, "", 4.0));
  server.enqueue(answer(fenced("a candidate that does not compile", template_ + "\nthis is not C++;\n")));
  server.enqueue(answer("Hypothesis: say what the file is\n```diff\n--- a/spin_candidate.cpp\n+++ b/spin_candidate.cpp\n@@ -1,2 +1,2 @@\n"
                        "-// Spins for SPIN_US microseconds, then copies: a kernel of known duration.\n+// Spins, then copies.\n"
                        " #include <kernelarc/candidate_abi.h>\n```\n"));
  // Correct only when the worker cannot see the key's variable: a worker that inherits the user's secrets fails it.
  server.enqueue(answer(fenced("read the environment", replaced(replaced(template_, "#include <cstring>\n", "#include <cstring>\n#include <cstdlib>\n"), copy,
                                                                 copy + fmt::format("\n  if (std::getenv(\"{}\")) static_cast<float*>(outputs[0]->data)[0] = -1.0f;",
                                                                                    kKeyVariable)))));
  ScriptedAnswer oversized = fault(ScriptedAnswer::Fault::oversized);
  oversized.oversized_bytes = 2u << 20;  // past the 1 MiB limit below; small, so making it does not disturb the timing
  server.enqueue(oversized);
  server.enqueue(fault(ScriptedAnswer::Fault::http_status, 529));
  std::atomic<int> variant{0};
  server.set_fallback([&](const testing::SeenRequest&) {
    const int n = ++variant;
    return answer(fenced(fmt::format("variant {}", n), fmt::format("// variant {}\n{}", n, template_)));
  });

  const json config = {
      {"endpoints",
       {{"local", {{"protocol", "openai"}, {"base_url", server.openai_base_url()}, {"model", "scripted-coder"}, {"api_key_env", kKeyVariable},
                   {"stream", true}, {"timeout_s", 2}, {"backoff_initial_s", 0.05}, {"max_retries", 6}, {"max_response_bytes", 1 << 20},
                   {"price_in_per_mtok", 1.0}, {"price_out_per_mtok", 2.0}}},
        {"hosted", {{"protocol", "anthropic"}, {"base_url", server.anthropic_base_url()}, {"model", "scripted-claude"}, {"api_key_env", kKeyVariable},
                    {"timeout_s", 2}, {"backoff_initial_s", 0.05}, {"max_retries", 6}, {"max_response_bytes", 1 << 20}, {"price_in_per_mtok", 3.0},
                    {"price_out_per_mtok", 15.0}}}}},
      {"default", "hosted"},
      {"strategies", {{"memory", "local"}, {"tiling", "local"}}},
      {"max_complaints", 2}};
  const fs::path config_file = dir_ / "team.json", db = dir_ / "runs.db";
  std::ofstream(config_file) << config.dump(2);

  ASSERT_EQ(setenv(kKeyVariable, kKey, 1), 0);
  const auto result = common::run_command({KERNELARC_BINARY, "run", KERNELARC_SPIN_TASK, "--brain", "llm", "--llm-config", config_file.string(), "--agents", "3",
                                           "--strategies", "memory,precision,tiling", "--budget", "10", "--rounds", "1", "--warmup", "1",
                                           "--iterations", "10", "--seed", "4", "--json", "--store", db.string()},
                                          std::chrono::minutes(8), 1u << 22);
  unsetenv(kKeyVariable);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const auto json_start = result.output.rfind("\n{\n");
  ASSERT_NE(json_start, std::string::npos) << result.output;
  const json summary = json::parse(result.output.substr(json_start + 1));

  // It finished its budget and a faster variant was promoted.
  EXPECT_EQ(summary.at("judged"), 10) << result.output;
  EXPECT_GE(summary.at("promotions").get<int>(), 1) << result.output;
  EXPECT_GT(summary.at("speedup").get<double>(), 1.2) << result.output;
  // Tokens and money, per agent and in all.
  const auto& usage = summary.at("usage");
  EXPECT_GT(usage.at("tokens_in").get<std::int64_t>(), 0);
  EXPECT_GT(usage.at("tokens_out").get<std::int64_t>(), 0);
  EXPECT_GT(usage.at("cost_usd").get<double>(), 0);
  EXPECT_GE(usage.at("failures").get<std::int64_t>(), 6) << "429, 500, malformed, truncated, timeout, oversized, 529: each a failed request";
  for (const auto& agent : summary.at("agents")) EXPECT_GT(agent.at("usage").at("requests").get<std::int64_t>(), 0) << agent.dump();

  // Every scripted answer was asked for, the key went in the protocols' headers, and nowhere else.
  const auto requests = server.requests();
  EXPECT_GE(requests.size(), 14u);
  int keyed = 0;
  for (const auto& r : requests) {
    const auto header = r.headers.find(r.protocol == "openai" ? "authorization" : "x-api-key");
    keyed += header != r.headers.end() && header->second.find(kKey) != std::string::npos;
  }
  EXPECT_EQ(keyed, static_cast<int>(requests.size()));
  // The answer without a candidate got a complaint in the same conversation; the compiler's words went back to the agent.
  bool complained = false, told_compile_error = false;
  for (const auto& r : requests) {
    const auto& messages = r.body.at("messages");
    complained |= messages.size() == (r.protocol == "openai" ? 4u : 3u);  // OpenAI's system prompt is a message
    told_compile_error |= messages.back().at("content").get<std::string>().find("rejected: COMPILE_ERROR") != std::string::npos;
  }
  EXPECT_TRUE(complained);
  EXPECT_TRUE(told_compile_error);
  EXPECT_THAT(result.output, Not(HasSubstr(kKey)));
  std::string stored;
  for (const auto& entry : fs::directory_iterator(dir_))
    if (entry.path().filename().string().starts_with("runs.db")) stored += read_file(entry.path());
  EXPECT_FALSE(stored.empty());
  EXPECT_EQ(stored.find(kKey), std::string::npos) << "the key is in the store";

  // Nothing lost: every judged candidate is in the store with its conclusion, the rejected ones with their reasons.
  auto store = store::Store::open(db);
  const auto run_id = summary.at("run_id").get<std::int64_t>();
  const auto candidates = store.candidates(run_id);
  EXPECT_EQ(candidates.size(), 10u);
  std::map<std::string, std::string> outcome;  // by hypothesis
  for (const auto& c : store.conclusions("spin_copy"))
    if (c.run_id == run_id) outcome[c.change] = c.outcome;
  EXPECT_EQ(outcome.size(), 9u) << "one conclusion per candidate after the start";
  EXPECT_THAT(outcome["copy half (wrong on purpose)"], HasSubstr("rejected: INCORRECT"));
  EXPECT_THAT(outcome["a candidate that does not compile"], HasSubstr("rejected: COMPILE_ERROR"));
  ASSERT_TRUE(outcome.count("read the environment")) << "the environment candidate was judged";
  EXPECT_THAT(outcome["read the environment"], Not(HasSubstr("rejected"))) << "the worker saw the key's variable";
  EXPECT_TRUE(outcome.count("say what the file is")) << "the diff was applied and judged";
}

}  // namespace
}  // namespace kernelarc
