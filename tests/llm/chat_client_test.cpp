// The chat clients of both protocols, whole and streamed, against the fake model server on loopback: answers and
// tokens, what goes on the wire, retries (429 with Retry-After, 5xx, truncated streams, dropped connections,
// timeouts), errors that are not retried, size limits, cancellation, the per-endpoint concurrency limit, and the key.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include "llm/chat.h"
#include "llm/fake_model_server.h"
#include "llm/protocol.h"

namespace {

using namespace kernelarc::llm;
using kernelarc::testing::FakeModelServer;
using kernelarc::testing::ScriptedAnswer;
using kernelarc::testing::SeenRequest;
using Fault = ScriptedAnswer::Fault;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* key_variable = "KERNELARC_TEST_LLM_KEY";
constexpr const char* distinctive_key = "sk-kernelarc-test-7Qz9-DO-NOT-LEAK-4f1e";

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

ScriptedAnswer answer_with(std::string text) {
  ScriptedAnswer answer;
  answer.text = std::move(text);
  return answer;
}

ScriptedAnswer fault(Fault kind) {
  ScriptedAnswer answer;
  answer.fault = kind;
  answer.text = "a partial answer that the client must not keep";
  return answer;
}

ScriptedAnswer status(int code, std::string retry_after = "") {
  ScriptedAnswer answer = fault(Fault::http_status);
  answer.status = code;
  answer.text = "";
  answer.retry_after = std::move(retry_after);
  return answer;
}

ScriptedAnswer slow(double delay_s) {
  ScriptedAnswer answer = answer_with("late");
  answer.fault = Fault::slow;
  answer.delay_s = delay_s;
  return answer;
}

ChatRequest request() {
  ChatRequest request;
  request.system = "You write fast kernels.";
  request.messages = {{"user", "Make softmax faster."}};
  request.max_tokens = 512;
  request.temperature = 0.25;
  return request;
}

// Raises `flag` after `delay_s`, on its own thread.
class CancelLater {
 public:
  CancelLater(std::atomic<bool>& flag, double delay_s)
      : thread_([&flag, delay_s] {
          std::this_thread::sleep_for(std::chrono::duration<double>(delay_s));
          flag = true;
        }) {}
  ~CancelLater() { thread_.join(); }

 private:
  std::thread thread_;
};

struct Mode {
  std::string protocol;
  bool stream;
};

// How ctest lists a case, instead of the parameter's bytes.
void PrintTo(const Mode& mode, std::ostream* out) { *out << mode.protocol << (mode.stream ? " streamed" : " whole"); }

class ChatClientTest : public ::testing::TestWithParam<Mode> {
 protected:
  void SetUp() override { setenv(key_variable, distinctive_key, 1); }

  bool openai() const { return GetParam().protocol == "openai"; }

  EndpointConfig endpoint() const {
    EndpointConfig config;
    config.name = "fake-" + GetParam().protocol;
    config.protocol = GetParam().protocol;
    config.base_url = openai() ? server_.openai_base_url() : server_.anthropic_base_url();
    config.model = "fake-model-1";
    config.api_key_env = key_variable;
    config.stream = GetParam().stream;
    config.timeout_s = 5;
    config.connect_timeout_s = 2;
    config.max_retries = 4;
    config.backoff_initial_s = 0.01;
    config.backoff_max_s = 0.05;
    config.retry_after_max_s = 5;
    return config;
  }

  ChatReply complete(const EndpointConfig& config, const std::atomic<bool>& cancelled) {
    return make_client(config)->complete(request(), cancelled);
  }
  ChatReply complete(const EndpointConfig& config) { return complete(config, never_cancelled_); }

  // The error that the request ends with; every error message is checked for the key here.
  ChatError failure_of(const EndpointConfig& config, const std::atomic<bool>& cancelled) {
    try {
      complete(config, cancelled);
    } catch (const ChatError& error) {
      EXPECT_THAT(error.what(), Not(HasSubstr(distinctive_key)));
      return error;
    }
    ADD_FAILURE() << "the request succeeded";
    return ChatError(ChatError::Kind::configuration, 0, 0, "no error");
  }
  ChatError failure_of(const EndpointConfig& config) { return failure_of(config, never_cancelled_); }

  FakeModelServer server_;
  std::atomic<bool> never_cancelled_{false};
};

TEST_P(ChatClientTest, AnswersWithTheTextAndItsTokens) {
  const std::string text = "Hypothesis: one pass with an online maximum → fewer reads.\n```cpp\nint main() { return 0; }\n```";
  ScriptedAnswer answer = answer_with(text);
  answer.tokens_in = 1234;
  answer.tokens_out = 567;
  server_.enqueue(answer);

  ChatReply reply = complete(endpoint());
  EXPECT_EQ(reply.text, text);
  EXPECT_EQ(reply.tokens_in, 1234);
  EXPECT_EQ(reply.tokens_out, 567);
  EXPECT_EQ(reply.stop_reason, openai() ? "stop" : "end_turn");
  EXPECT_EQ(reply.attempts, 1);
}

TEST_P(ChatClientTest, SendsTheProtocolsRequestWithTheKeyInItsHeader) {
  server_.enqueue(answer_with("ok"));
  complete(endpoint());

  auto seen = server_.requests();
  ASSERT_EQ(seen.size(), 1u);
  const SeenRequest& sent = seen[0];
  const auto& body = sent.body;
  ASSERT_TRUE(body.is_object());
  EXPECT_EQ(body["model"], "fake-model-1");
  EXPECT_EQ(body["max_tokens"], 512);
  EXPECT_DOUBLE_EQ(body["temperature"].get<double>(), 0.25);
  EXPECT_EQ(body["stream"], GetParam().stream);
  if (openai()) {
    EXPECT_EQ(sent.path, "/v1/chat/completions");
    EXPECT_EQ(sent.headers.at("authorization"), std::string("Bearer ") + distinctive_key);
    EXPECT_EQ(sent.headers.count("x-api-key"), 0u);
    ASSERT_EQ(body["messages"].size(), 2u);
    EXPECT_EQ(body["messages"][0]["role"], "system");
    EXPECT_EQ(body["messages"][0]["content"], "You write fast kernels.");
    EXPECT_EQ(body["messages"][1]["role"], "user");
    EXPECT_EQ(body["messages"][1]["content"], "Make softmax faster.");
    EXPECT_EQ(body.contains("stream_options"), GetParam().stream);
    if (GetParam().stream) EXPECT_EQ(body["stream_options"]["include_usage"], true);
  } else {
    EXPECT_EQ(sent.path, "/v1/messages");
    EXPECT_EQ(sent.headers.at("x-api-key"), distinctive_key);
    EXPECT_EQ(sent.headers.at("anthropic-version"), "2023-06-01");
    EXPECT_EQ(sent.headers.count("authorization"), 0u);
    EXPECT_EQ(body["system"], "You write fast kernels.");
    ASSERT_EQ(body["messages"].size(), 1u);
    EXPECT_EQ(body["messages"][0]["role"], "user");
    EXPECT_EQ(body["messages"][0]["content"], "Make softmax faster.");
  }
}

TEST_P(ChatClientTest, WaitsForRetryAfterOn429) {
  server_.enqueue(status(429, "1"));
  server_.enqueue(answer_with("after the wait"));
  auto start = std::chrono::steady_clock::now();
  ChatReply reply = complete(endpoint());
  EXPECT_GE(seconds_since(start), 0.95);
  EXPECT_EQ(reply.text, "after the wait");
  EXPECT_EQ(reply.attempts, 2);
}

TEST_P(ChatClientTest, CutsRetryAfterToItsMaximum) {
  server_.enqueue(status(503, "100"));
  server_.enqueue(answer_with("soon"));
  EndpointConfig config = endpoint();
  config.retry_after_max_s = 0.2;
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(complete(config).attempts, 2);
  EXPECT_GE(seconds_since(start), 0.19);
  EXPECT_LT(seconds_since(start), 2.0);
}

TEST_P(ChatClientTest, RetriesServerErrorsUntilAnAnswer) {
  server_.enqueue(status(500));
  server_.enqueue(status(500));
  server_.enqueue(answer_with("third time"));
  ChatReply reply = complete(endpoint());
  EXPECT_EQ(reply.text, "third time");
  EXPECT_EQ(reply.attempts, 3);
}

TEST_P(ChatClientTest, RetriesOverloadAndGatewayErrors) {
  server_.enqueue(status(529));
  server_.enqueue(status(502));
  server_.enqueue(status(504));
  server_.enqueue(answer_with("through"));
  EXPECT_EQ(complete(endpoint()).attempts, 4);
}

TEST_P(ChatClientTest, GivesUpAfterMaxRetries) {
  server_.set_fallback([](const SeenRequest&) { return status(500); });
  EndpointConfig config = endpoint();
  config.max_retries = 2;
  ChatError error = failure_of(config);
  EXPECT_EQ(error.kind, ChatError::Kind::http);
  EXPECT_EQ(error.http_status, 500);
  EXPECT_EQ(error.attempts, 3);
  EXPECT_EQ(server_.requests().size(), 3u);
  EXPECT_THAT(error.what(), HasSubstr("HTTP 500"));
}

TEST_P(ChatClientTest, DoesNotRetryAClientError) {
  ScriptedAnswer refused = status(400);
  refused.text = "max_tokens: must be at most 4096";
  server_.enqueue(refused);
  ChatError error = failure_of(endpoint());
  EXPECT_EQ(error.kind, ChatError::Kind::http);
  EXPECT_EQ(error.http_status, 400);
  EXPECT_EQ(error.attempts, 1);
  EXPECT_EQ(server_.requests().size(), 1u);
  EXPECT_THAT(error.what(), HasSubstr("max_tokens: must be at most 4096"));
  EXPECT_THAT(error.what(), HasSubstr("'fake-" + GetParam().protocol + "'"));
  EXPECT_THAT(error.what(), HasSubstr(openai() ? "/v1/chat/completions" : "/v1/messages"));
}

TEST_P(ChatClientTest, MalformedJsonIsAProtocolError) {
  server_.enqueue(fault(Fault::malformed_json));
  ChatError error = failure_of(endpoint());
  EXPECT_EQ(error.kind, ChatError::Kind::protocol);
  EXPECT_EQ(error.attempts, 1);
  EXPECT_THAT(error.what(), HasSubstr("not a JSON object"));
}

TEST_P(ChatClientTest, RetriesATruncatedAnswer) {
  server_.enqueue(fault(Fault::truncated_stream));
  server_.enqueue(answer_with("whole this time"));
  ChatReply reply = complete(endpoint());
  EXPECT_EQ(reply.text, "whole this time");
  EXPECT_EQ(reply.attempts, 2);
}

TEST_P(ChatClientTest, ATruncatedAnswerEveryTimeFailsWithTheReason) {
  server_.set_fallback([](const SeenRequest&) { return fault(Fault::truncated_stream); });
  EndpointConfig config = endpoint();
  config.max_retries = 1;
  ChatError error = failure_of(config);
  EXPECT_EQ(error.attempts, 2);
  if (GetParam().stream) {
    EXPECT_EQ(error.kind, ChatError::Kind::protocol);
    EXPECT_THAT(error.what(), HasSubstr(openai() ? "[DONE]" : "message_stop"));
  } else {
    EXPECT_EQ(error.kind, ChatError::Kind::http);
    EXPECT_THAT(error.what(), HasSubstr("connection failed"));
  }
}

TEST_P(ChatClientTest, RetriesADroppedConnection) {
  server_.enqueue(fault(Fault::drop_connection));
  server_.enqueue(answer_with("reconnected"));
  ChatReply reply = complete(endpoint());
  EXPECT_EQ(reply.text, "reconnected");
  EXPECT_EQ(reply.attempts, 2);
}

TEST_P(ChatClientTest, ASlowAnswerTimesOut) {
  server_.enqueue(slow(3));
  EndpointConfig config = endpoint();
  config.timeout_s = 0.3;
  config.max_retries = 0;
  auto start = std::chrono::steady_clock::now();
  ChatError error = failure_of(config);
  EXPECT_LT(seconds_since(start), 1.5);
  EXPECT_EQ(error.kind, ChatError::Kind::timeout);
  EXPECT_EQ(error.attempts, 1);
}

TEST_P(ChatClientTest, RetriesATimeout) {
  server_.enqueue(slow(3));
  server_.enqueue(answer_with("in time"));
  EndpointConfig config = endpoint();
  config.timeout_s = 0.3;
  ChatReply reply = complete(config);
  EXPECT_EQ(reply.text, "in time");
  EXPECT_EQ(reply.attempts, 2);
}

TEST_P(ChatClientTest, AnAnswerOverTheSizeLimitIsTooLarge) {
  ScriptedAnswer huge = fault(Fault::oversized);
  huge.oversized_bytes = 1u << 20;
  server_.enqueue(huge);
  EndpointConfig config = endpoint();
  config.max_response_bytes = 64u << 10;
  ChatError error = failure_of(config);
  EXPECT_EQ(error.kind, ChatError::Kind::too_large);
  EXPECT_EQ(error.attempts, 1);
  EXPECT_THAT(error.what(), HasSubstr("max_response_bytes"));
}

TEST_P(ChatClientTest, ACancelStopsASlowAnswerAtOnce) {
  server_.enqueue(slow(5));
  std::atomic<bool> cancelled{false};
  auto start = std::chrono::steady_clock::now();
  CancelLater cancel(cancelled, 0.1);
  ChatError error = failure_of(endpoint(), cancelled);
  EXPECT_LT(seconds_since(start), 0.3);
  EXPECT_EQ(error.kind, ChatError::Kind::cancelled);
  EXPECT_EQ(error.attempts, 1);
}

TEST_P(ChatClientTest, ACancelStopsTheWaitBeforeARetry) {
  server_.enqueue(status(429, "10"));
  std::atomic<bool> cancelled{false};
  auto start = std::chrono::steady_clock::now();
  CancelLater cancel(cancelled, 0.1);
  ChatError error = failure_of(endpoint(), cancelled);
  EXPECT_LT(seconds_since(start), 0.3);
  EXPECT_EQ(error.kind, ChatError::Kind::cancelled);
  EXPECT_EQ(error.attempts, 1);
}

TEST_P(ChatClientTest, KeepsAtMostMaxConcurrencyRequestsInFlight) {
  server_.set_fallback([](const SeenRequest&) {
    ScriptedAnswer answer = answer_with("in turn");
    answer.delay_s = 0.15;
    return answer;
  });
  EndpointConfig config = endpoint();
  config.max_concurrency = 2;
  // Separate clients of one endpoint share its limit, as agents do.
  std::vector<std::thread> agents;
  std::atomic<int> answered{0};
  for (int agent = 0; agent < 8; ++agent)
    agents.emplace_back([&] {
      if (make_client(config)->complete(request(), never_cancelled_).text == "in turn") ++answered;
    });
  for (auto& agent : agents) agent.join();
  EXPECT_EQ(answered.load(), 8);
  EXPECT_EQ(server_.max_in_flight(), 2);
}

TEST_P(ChatClientTest, SendsManyRequestsAtOnceWhenAllowed) {
  server_.set_fallback([](const SeenRequest&) {
    ScriptedAnswer answer = answer_with("together");
    answer.delay_s = 0.5;
    return answer;
  });
  EndpointConfig config = endpoint();
  config.max_concurrency = 16;
  auto client = make_client(config);
  std::vector<std::thread> agents;
  std::atomic<int> answered{0};
  for (int agent = 0; agent < 16; ++agent)
    agents.emplace_back([&] {
      if (client->complete(request(), never_cancelled_).text == "together") ++answered;
    });
  for (auto& agent : agents) agent.join();
  EXPECT_EQ(answered.load(), 16);
  EXPECT_GE(server_.max_in_flight(), 12);
}

TEST_P(ChatClientTest, NeverPutsTheKeyInAnErrorMessage) {
  // The server quotes the key it was sent in its error body, as some gateways do.
  server_.set_fallback([](const SeenRequest& seen) {
    ScriptedAnswer refused = status(401);
    auto header = seen.headers.find(seen.protocol == "openai" ? "authorization" : "x-api-key");
    refused.text = "invalid key: " + (header == seen.headers.end() ? std::string("none") : header->second);
    return refused;
  });
  ChatError error = failure_of(endpoint());
  EXPECT_EQ(error.kind, ChatError::Kind::http);
  EXPECT_EQ(error.http_status, 401);
  EXPECT_THAT(error.what(), Not(HasSubstr(distinctive_key)));
  EXPECT_THAT(error.what(), HasSubstr("invalid key: "));
  EXPECT_THAT(error.what(), HasSubstr("[redacted]"));
}

INSTANTIATE_TEST_SUITE_P(BothProtocols, ChatClientTest,
                         ::testing::Values(Mode{"openai", false}, Mode{"openai", true}, Mode{"anthropic", false},
                                           Mode{"anthropic", true}),
                         [](const ::testing::TestParamInfo<Mode>& info) {
                           return info.param.protocol + (info.param.stream ? "_streamed" : "_whole");
                         });

EndpointConfig openai_endpoint(const FakeModelServer& server) {
  EndpointConfig config;
  config.name = "plain";
  config.base_url = server.openai_base_url();
  config.model = "fake-model-1";
  config.backoff_initial_s = 0.01;
  return config;
}

TEST(ChatClientConfiguration, AMissingKeyVariableIsNamed) {
  FakeModelServer server;
  EndpointConfig config = openai_endpoint(server);
  config.api_key_env = "KERNELARC_TEST_UNSET_KEY_VARIABLE";
  unsetenv(config.api_key_env.c_str());
  try {
    make_client(config);
    FAIL() << "make_client accepted an unset key variable";
  } catch (const ChatError& error) {
    EXPECT_EQ(error.kind, ChatError::Kind::configuration);
    EXPECT_THAT(error.what(), HasSubstr("KERNELARC_TEST_UNSET_KEY_VARIABLE"));
    EXPECT_THAT(error.what(), HasSubstr("'plain'"));
  }
}

TEST(ChatClientConfiguration, RefusesAnUnknownProtocolAndMissingFields) {
  FakeModelServer server;
  auto kind_of_failure = [](const EndpointConfig& config) {
    try {
      make_client(config);
    } catch (const ChatError& error) {
      return error.kind;
    }
    return ChatError::Kind::http;  // no error: not configuration
  };
  EndpointConfig unknown = openai_endpoint(server);
  unknown.protocol = "gemini";
  EXPECT_EQ(kind_of_failure(unknown), ChatError::Kind::configuration);
  EndpointConfig no_url = openai_endpoint(server);
  no_url.base_url.clear();
  EXPECT_EQ(kind_of_failure(no_url), ChatError::Kind::configuration);
  EndpointConfig no_model = openai_endpoint(server);
  no_model.model.clear();
  EXPECT_EQ(kind_of_failure(no_model), ChatError::Kind::configuration);
}

TEST(ChatClientConfiguration, SendsNoKeyHeaderWithoutAKeyVariable) {
  FakeModelServer server;
  server.enqueue(answer_with("local model"));
  std::atomic<bool> never{false};
  EXPECT_EQ(make_client(openai_endpoint(server))->complete(request(), never).text, "local model");
  ASSERT_EQ(server.requests().size(), 1u);
  EXPECT_EQ(server.requests()[0].headers.count("authorization"), 0u);
}

TEST(ChatClientConcurrency, ACancelStopsTheWaitForASlot) {
  FakeModelServer server;
  ScriptedAnswer busy = answer_with("busy");
  busy.delay_s = 1;
  server.enqueue(busy);
  EndpointConfig config = openai_endpoint(server);
  config.max_concurrency = 1;
  std::atomic<bool> never{false};
  std::thread holder([&] { make_client(config)->complete(request(), never); });
  while (server.requests().empty()) std::this_thread::sleep_for(std::chrono::milliseconds(5));

  std::atomic<bool> cancelled{false};
  auto start = std::chrono::steady_clock::now();
  CancelLater cancel(cancelled, 0.1);
  try {
    make_client(config)->complete(request(), cancelled);
    ADD_FAILURE() << "the second request did not wait for the slot";
  } catch (const ChatError& error) {
    EXPECT_EQ(error.kind, ChatError::Kind::cancelled);
    EXPECT_EQ(error.attempts, 0);
  }
  EXPECT_LT(seconds_since(start), 0.3);
  holder.join();
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST(ChatCost, PricesTokensPerMillion) {
  EndpointConfig config;
  config.price_in_per_mtok = 3;
  config.price_out_per_mtok = 15;
  EXPECT_DOUBLE_EQ(cost_usd(config, 1'000'000, 0), 3.0);
  EXPECT_DOUBLE_EQ(cost_usd(config, 2000, 1000), 0.006 + 0.015);
}

TEST(AnthropicStream, AnOverloadedErrorEventIsRetryable) {
  auto decoder = detail::make_anthropic_protocol()->stream_decoder();
  decoder->feed("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":9}}}\n\n");
  try {
    decoder->feed("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n");
    FAIL() << "the error event was ignored";
  } catch (const detail::StreamedError& error) {
    EXPECT_EQ(error.status, 529);
    EXPECT_THAT(error.what(), HasSubstr("Overloaded"));
  }
}

// A usage count that is not a whole number of tokens (the fuzzer's 2026-12-04 find: a 130-digit prompt_tokens parsed as a
// double and cast to 64 bits, undefined behaviour) is a protocol violation in both protocols, whole or streamed.
TEST(UsageCounts, AnythingButAWholeNumberOfTokensIsAProtocolViolation) {
  const auto openai = detail::make_openai_protocol(), anthropic = detail::make_anthropic_protocol();
  const std::string answer = R"({"choices":[{"message":{"content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":)";
  EXPECT_EQ(openai->parse_reply(answer + R"(12,"completion_tokens":3}})").tokens_in, 12);
  EXPECT_EQ(openai->parse_reply(answer + R"(9223372036854775807}})").tokens_in, INT64_MAX);
  for (const std::string count : {std::string(130, '1'), std::string("1e300"), std::string("2.5"), std::string("-1"),
                                  std::string("\"12\""), std::string("9223372036854775808")}) {
    SCOPED_TRACE(count);
    EXPECT_THROW(openai->parse_reply(answer + count + "}}"), detail::ProtocolViolation);
    auto stream = openai->stream_decoder();
    EXPECT_THROW(stream->feed("data: {\"choices\":[],\"usage\":{\"prompt_tokens\":" + count + "}}\n\n"), detail::ProtocolViolation);
    EXPECT_THROW(anthropic->parse_reply(R"({"content":[],"usage":{"input_tokens":)" + count + "}}"), detail::ProtocolViolation);
    auto events = anthropic->stream_decoder();
    EXPECT_THROW(events->feed("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"output_tokens\":" +
                              count + "}}}\n\n"),
                 detail::ProtocolViolation);
  }
}

TEST(ServerSentEvents, SplitsEventsAcrossReadsAndLineEndings) {
  detail::SseSplitter splitter;
  EXPECT_TRUE(splitter.feed("event: a\r\ndata: one\r\n").empty());
  auto events = splitter.feed("data: two\r\n\r\n: a comment\n\ndata:three\n");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].name, "a");
  EXPECT_EQ(events[0].data, "one\ntwo");
  events = splitter.feed("\n");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].name, "");
  EXPECT_EQ(events[0].data, "three");
}

}  // namespace
