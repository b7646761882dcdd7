// A language-model server on loopback for tests: it speaks OpenAI chat completions (POST /v1/chat/completions) and
// Anthropic Messages (POST /v1/messages), whole or streamed as the request asks, and replays scripted answers and
// faults in the order requests arrive. It records what it was sent and how many requests it answered at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kernelarc::testing {

struct ScriptedAnswer {
  // none: the answer. http_status: `status` with the protocol's error body (its message is `text` when given) and
  // Retry-After when given. malformed_json: 200 with a body (or stream events) that is not JSON. truncated_stream: a
  // stream with half the text and no last event; a whole answer announces its full length and closes halfway. slow:
  // the answer after delay_s. oversized: an answer of about oversized_bytes. drop_connection: a 200 status line and
  // headers announcing a body, then the connection closes (cpp-httplib cannot close before the status line).
  enum class Fault { none, http_status, malformed_json, truncated_stream, slow, oversized, drop_connection };
  Fault fault = Fault::none;
  std::string text;            // the assistant's text (both protocols)
  int status = 200;            // for Fault::http_status (429, 500, 529, 400 ...)
  std::string retry_after;     // the Retry-After header's value, when not empty
  double delay_s = 0;          // waited before answering (Fault::slow, or any answer)
  std::int64_t tokens_in = 1000, tokens_out = 200;
  std::size_t oversized_bytes = 16u << 20;  // body size for Fault::oversized
};

struct SeenRequest {
  std::string protocol;  // "openai" or "anthropic"
  std::string path;
  std::map<std::string, std::string> headers;  // lower-case names
  nlohmann::json body;                         // discarded (is_discarded()) when the body was not JSON
};

class FakeModelServer {
 public:
  FakeModelServer();   // binds 127.0.0.1 on a free port and serves on its own threads; ready when the constructor returns
  ~FakeModelServer();  // stops and joins; answers still waiting out a delay are abandoned
  FakeModelServer(const FakeModelServer&) = delete;
  FakeModelServer& operator=(const FakeModelServer&) = delete;

  int port() const;
  std::string openai_base_url() const;     // "http://127.0.0.1:PORT/v1"
  std::string anthropic_base_url() const;  // "http://127.0.0.1:PORT"
  void enqueue(ScriptedAnswer answer);     // answers go to requests in their order of arrival
  // Answers requests when the queue is empty; the default is status 500 "script exhausted".
  void set_fallback(std::function<ScriptedAnswer(const SeenRequest&)> answer);
  std::vector<SeenRequest> requests() const;
  int max_in_flight() const;               // the most requests being answered at the same moment

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace kernelarc::testing
