// The Anthropic Messages protocol: POST {base_url}/v1/messages with x-api-key and anthropic-version; the answer's text
// blocks concatenated, the tokens in usage; streamed as named events from message_start to message_stop.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "llm/protocol.h"

namespace kernelarc::llm::detail {

namespace {

using nlohmann::json;

constexpr const char* api_version = "2023-06-01";

json parse_json(std::string_view text, std::string_view what) {
  json parsed = json::parse(text, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object())
    throw ProtocolViolation(fmt::format("{} is not a JSON object: {:.80}", what, text));
  return parsed;
}

// The HTTP status that an error of this type has when it is the whole answer (the Messages API's error table).
int status_of_error_type(const std::string& type) {
  if (type == "invalid_request_error") return 400;
  if (type == "authentication_error") return 401;
  if (type == "permission_error") return 403;
  if (type == "not_found_error") return 404;
  if (type == "request_too_large") return 413;
  if (type == "rate_limit_error") return 429;
  if (type == "overloaded_error") return 529;
  return 500;  // api_error, and types newer than this code
}

class AnthropicStreamDecoder final : public StreamDecoder {
 public:
  void feed(std::string_view bytes) override {
    for (const auto& event : events_.feed(bytes)) {
      json data = parse_json(event.data, fmt::format("the data of the streamed event '{}'", event.name));
      try {
        read_event(event.name.empty() ? data.value("type", std::string()) : event.name, data);
      } catch (const json::exception& e) {
        throw ProtocolViolation(
            fmt::format("a streamed '{}' event does not follow the Messages format: {}", event.name, e.what()));
      }
    }
  }

  ChatReply finish() override {
    if (!stopped_) throw TruncatedStream("the stream ended before its message_stop event");
    return reply_;
  }

 private:
  void read_event(const std::string& type, const json& data) {
    if (type == "message_start") {
      const json& usage = data.at("message").value("usage", json::object());
      reply_.tokens_in = token_count(usage, "input_tokens", 0);
      reply_.tokens_out = token_count(usage, "output_tokens", 0);
    } else if (type == "content_block_delta") {
      const json& delta = data.at("delta");
      if (delta.value("type", std::string()) == "text_delta") reply_.text += delta.at("text").get<std::string>();
    } else if (type == "message_delta") {
      const json& delta = data.value("delta", json::object());
      if (delta.contains("stop_reason") && !delta["stop_reason"].is_null())
        reply_.stop_reason = delta["stop_reason"].get<std::string>();
      const json& usage = data.value("usage", json::object());
      reply_.tokens_out = token_count(usage, "output_tokens", reply_.tokens_out);  // cumulative, not an increment
      reply_.tokens_in = token_count(usage, "input_tokens", reply_.tokens_in);
    } else if (type == "message_stop") {
      stopped_ = true;
    } else if (type == "error") {
      const json& error = data.at("error");
      std::string error_type = error.value("type", std::string());
      throw StreamedError(status_of_error_type(error_type),
                          fmt::format("{}: {}", error_type, error.value("message", std::string())));
    }
    // ping, content_block_start and content_block_stop carry nothing a text reply needs.
  }

  SseSplitter events_;
  ChatReply reply_;
  bool stopped_ = false;
};

class AnthropicProtocol final : public Protocol {
 public:
  std::string path() const override { return "/v1/messages"; }

  std::vector<std::string> headers(const std::string& api_key) const override {
    std::vector<std::string> lines{fmt::format("anthropic-version: {}", api_version)};
    if (!api_key.empty()) lines.push_back("x-api-key: " + api_key);
    return lines;
  }

  std::string request_body(const ChatRequest& request, const EndpointConfig& endpoint) const override {
    json messages = json::array();
    for (const auto& message : request.messages)
      messages.push_back({{"role", message.role}, {"content", message.content}});
    json body = {{"model", endpoint.model},
                 {"messages", std::move(messages)},
                 {"max_tokens", request.max_tokens},
                 {"temperature", request.temperature},
                 {"stream", endpoint.stream}};
    if (!request.system.empty()) body["system"] = request.system;  // no system prompt, no field
    return body.dump();
  }

  ChatReply parse_reply(const std::string& body) const override {
    json answer = parse_json(body, "the answer");
    try {
      ChatReply reply;
      for (const auto& block : answer.at("content"))
        if (block.at("type") == "text") reply.text += block.at("text").get<std::string>();
      const json& stop_reason = answer.value("stop_reason", json());
      if (!stop_reason.is_null()) reply.stop_reason = stop_reason.get<std::string>();
      const json& usage = answer.value("usage", json::object());
      reply.tokens_in = token_count(usage, "input_tokens", 0);
      reply.tokens_out = token_count(usage, "output_tokens", 0);
      return reply;
    } catch (const json::exception& e) {
      throw ProtocolViolation(fmt::format("the answer does not follow the Messages format: {}", e.what()));
    }
  }

  std::unique_ptr<StreamDecoder> stream_decoder() const override { return std::make_unique<AnthropicStreamDecoder>(); }
};

}  // namespace

std::unique_ptr<Protocol> make_anthropic_protocol() { return std::make_unique<AnthropicProtocol>(); }

}  // namespace kernelarc::llm::detail
