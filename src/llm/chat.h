// What a language-model endpoint is to KernelArc: a request (a system prompt and turns), a reply (the text and its
// token counts), an endpoint's configuration, and a client that sends one request with retries. The protocols
// themselves (OpenAI chat completions, Anthropic Messages) live in openai_client.cpp and anthropic_client.cpp.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace kernelarc::llm {

struct Message {
  std::string role;     // "user" or "assistant"
  std::string content;
};

struct ChatRequest {
  std::string system;
  std::vector<Message> messages;
  int max_tokens = 8192;
  double temperature = 0.7;
};

struct ChatReply {
  std::string text;
  std::int64_t tokens_in = 0, tokens_out = 0;
  std::string stop_reason;   // "stop", "length", "end_turn", "max_tokens", ... as the endpoint says it
  int attempts = 1;          // requests sent for this reply, the failed ones included
};

// Why a request failed after its retries; `attempts` counts every request sent.
class ChatError : public std::runtime_error {
 public:
  enum class Kind { timeout, http, protocol, too_large, cancelled, configuration };
  ChatError(Kind kind, int http_status, int attempts, const std::string& message)
      : std::runtime_error(message), kind(kind), http_status(http_status), attempts(attempts) {}
  Kind kind;
  int http_status;  // 0 when there was no HTTP answer
  int attempts;
};

struct EndpointConfig {
  std::string name;                  // how the configuration and the store call it
  std::string protocol = "openai";   // "openai" (chat completions) or "anthropic" (Messages)
  std::string base_url;              // openai: ".../v1" (POST base_url + "/chat/completions"); anthropic: "https://api.anthropic.com" (POST base_url + "/v1/messages")
  std::string model;
  std::string api_key_env;           // the environment variable holding the key; empty: no key sent
  bool stream = false;
  double timeout_s = 300;            // one request, from connect to the last byte
  double connect_timeout_s = 10;
  int max_retries = 4;               // after the first request, on 429, 5xx, timeouts, broken connections and truncated streams
  double backoff_initial_s = 1;      // doubled each retry, with full jitter, capped at backoff_max_s
  double backoff_max_s = 30;
  double retry_after_max_s = 120;    // a Retry-After longer than this is cut to it
  int max_concurrency = 8;           // requests in flight at once to this endpoint, across every agent of the process
  std::size_t max_response_bytes = 8u << 20;
  double price_in_per_mtok = 0;      // US dollars per million input tokens
  double price_out_per_mtok = 0;
};

// Money for a reply's tokens at the endpoint's prices.
double cost_usd(const EndpointConfig& endpoint, std::int64_t tokens_in, std::int64_t tokens_out);

class ChatClient {
 public:
  virtual ~ChatClient() = default;
  // Sends the request, retrying what may succeed later; throws ChatError when it cannot. Safe to call from many threads
  // at once; at most `max_concurrency` requests of one endpoint are in flight in the process, the rest wait their turn.
  // Returns (throws ChatError kind cancelled) soon after `cancelled` becomes true, even mid-request or mid-backoff.
  virtual ChatReply complete(const ChatRequest& request, const std::atomic<bool>& cancelled) = 0;
  virtual const EndpointConfig& endpoint() const = 0;
};

// The client for `endpoint.protocol`. The key is read from the environment here, once, and lives only in the client:
// it is never logged, never part of an error message, never written anywhere. Throws ChatError kind configuration
// for an unknown protocol, an empty base URL or model, or a named key variable that is unset.
std::unique_ptr<ChatClient> make_client(const EndpointConfig& endpoint);

}  // namespace kernelarc::llm
