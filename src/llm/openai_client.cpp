// The OpenAI chat completions protocol (also spoken by vLLM, SGLang, llama.cpp and most gateways): POST
// {base_url}/chat/completions with a Bearer key; the answer in choices[0], the tokens in usage; streamed as
// "data: {chunk}" events ending with "data: [DONE]".
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "llm/protocol.h"

namespace kernelarc::llm::detail {

namespace {

using nlohmann::json;

// The string at `value`, "" when it is null (content is null when a model answers with a refusal or tool calls only).
std::string string_or_empty(const json& value) { return value.is_null() ? std::string() : value.get<std::string>(); }

void read_usage(const json& usage, ChatReply& reply) {
  if (usage.is_null()) return;
  reply.tokens_in = token_count(usage, "prompt_tokens", 0);
  reply.tokens_out = token_count(usage, "completion_tokens", 0);
}

json parse_json(std::string_view text, std::string_view what) {
  json parsed = json::parse(text, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object())
    throw ProtocolViolation(fmt::format("{} is not a JSON object: {:.80}", what, text));
  return parsed;
}

class OpenAiStreamDecoder final : public StreamDecoder {
 public:
  void feed(std::string_view bytes) override {
    for (const auto& event : events_.feed(bytes)) {
      if (event.data == "[DONE]") {
        done_ = true;
        continue;
      }
      json chunk = parse_json(event.data, "a streamed chunk");
      if (chunk.contains("error")) {
        const json& error = chunk["error"];
        throw StreamedError(500, error.is_object() ? error.value("message", error.dump()) : error.dump());
      }
      try {
        read_chunk(chunk);
      } catch (const json::exception& e) {
        throw ProtocolViolation(fmt::format("a streamed chunk does not follow the chat completions format: {}", e.what()));
      }
    }
  }

  ChatReply finish() override {
    if (!done_) throw TruncatedStream("the stream ended before \"data: [DONE]\"");
    return reply_;
  }

 private:
  void read_chunk(const json& chunk) {
    const json& choices = chunk.value("choices", json::array());
    if (!choices.empty()) {
      const json& choice = choices.at(0);
      const json& delta = choice.value("delta", json::object());
      if (delta.contains("content")) reply_.text += string_or_empty(delta["content"]);
      if (choice.contains("finish_reason") && !choice["finish_reason"].is_null())
        reply_.stop_reason = choice["finish_reason"].get<std::string>();
    }
    if (chunk.contains("usage")) read_usage(chunk["usage"], reply_);  // the last chunk, thanks to include_usage
  }

  SseSplitter events_;
  ChatReply reply_;
  bool done_ = false;
};

class OpenAiProtocol final : public Protocol {
 public:
  std::string path() const override { return "/chat/completions"; }

  std::vector<std::string> headers(const std::string& api_key) const override {
    if (api_key.empty()) return {};
    return {"Authorization: Bearer " + api_key};
  }

  std::string request_body(const ChatRequest& request, const EndpointConfig& endpoint) const override {
    json messages = json::array();
    if (!request.system.empty()) messages.push_back({{"role", "system"}, {"content", request.system}});
    for (const auto& message : request.messages)
      messages.push_back({{"role", message.role}, {"content", message.content}});
    json body = {{"model", endpoint.model},
                 {"messages", std::move(messages)},
                 {"max_tokens", request.max_tokens},
                 {"temperature", request.temperature},
                 {"stream", endpoint.stream}};
    if (endpoint.stream) body["stream_options"] = {{"include_usage", true}};
    return body.dump();
  }

  ChatReply parse_reply(const std::string& body) const override {
    json answer = parse_json(body, "the answer");
    try {
      ChatReply reply;
      const json& choice = answer.at("choices").at(0);
      reply.text = string_or_empty(choice.at("message").at("content"));
      reply.stop_reason = string_or_empty(choice.value("finish_reason", json()));
      read_usage(answer.value("usage", json()), reply);
      return reply;
    } catch (const json::exception& e) {
      throw ProtocolViolation(fmt::format("the answer does not follow the chat completions format: {}", e.what()));
    }
  }

  std::unique_ptr<StreamDecoder> stream_decoder() const override { return std::make_unique<OpenAiStreamDecoder>(); }
};

}  // namespace

std::unique_ptr<Protocol> make_openai_protocol() { return std::make_unique<OpenAiProtocol>(); }

}  // namespace kernelarc::llm::detail
