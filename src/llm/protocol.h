// What the retrying client (chat_client.cpp) needs from a wire protocol (openai_client.cpp, anthropic_client.cpp):
// where to POST, which headers, the request body, and how to read an answer, whole or as server-sent events.
// Internal to src/llm.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "llm/chat.h"

namespace kernelarc::llm::detail {

// A 2xx answer that is not what the protocol says (not JSON, fields missing or of the wrong type).
class ProtocolViolation : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A stream that ended before the protocol's last event: the connection broke somewhere on the way.
class TruncatedStream : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An error the endpoint reported inside a 2xx stream; `status` is the HTTP status the same error has as an answer.
class StreamedError : public std::runtime_error {
 public:
  StreamedError(int status, const std::string& message) : std::runtime_error(message), status(status) {}
  int status;
};

// Reads one streamed answer. feed() throws ProtocolViolation or StreamedError; finish() throws TruncatedStream.
class StreamDecoder {
 public:
  virtual ~StreamDecoder() = default;
  virtual void feed(std::string_view bytes) = 0;
  virtual ChatReply finish() = 0;  // after the last byte
};

class Protocol {
 public:
  virtual ~Protocol() = default;
  virtual std::string path() const = 0;  // appended to the endpoint's base_url
  // "Name: value" lines; `api_key` may be empty (no key header then).
  virtual std::vector<std::string> headers(const std::string& api_key) const = 0;
  virtual std::string request_body(const ChatRequest& request, const EndpointConfig& endpoint) const = 0;
  // A whole 2xx answer; throws ProtocolViolation.
  virtual ChatReply parse_reply(const std::string& body) const = 0;
  virtual std::unique_ptr<StreamDecoder> stream_decoder() const = 0;
};

// usage[key] as a token count, `absent` when it is missing or null; throws ProtocolViolation when it is not a whole
// number from 0 to 2^63 - 1 (token_count.cpp).
std::int64_t token_count(const nlohmann::json& usage, const char* key, std::int64_t absent);

std::unique_ptr<Protocol> make_openai_protocol();
std::unique_ptr<Protocol> make_anthropic_protocol();

// Splits a byte stream into server-sent events (the WHATWG rules both endpoints follow): lines end in "\n" or
// "\r\n", "event:" names the event, "data:" lines are joined with "\n", a blank line ends the event, ":" comments.
class SseSplitter {
 public:
  struct Event {
    std::string name;  // "" when the event had no "event:" line
    std::string data;
  };

  // The events that `bytes` completes, in order.
  std::vector<Event> feed(std::string_view bytes) {
    std::vector<Event> events;
    partial_line_.append(bytes);
    std::size_t start = 0;
    for (std::size_t end; (end = partial_line_.find('\n', start)) != std::string::npos; start = end + 1) {
      std::string_view line(partial_line_.data() + start, end - start);
      if (line.ends_with('\r')) line.remove_suffix(1);
      take_line(line, events);
    }
    partial_line_.erase(0, start);
    return events;
  }

 private:
  void take_line(std::string_view line, std::vector<Event>& events) {
    if (line.empty()) {
      if (has_data_) events.push_back(std::move(event_));
      event_ = {};
      has_data_ = false;
      return;
    }
    if (line.starts_with(':')) return;
    auto colon = line.find(':');
    std::string_view field = line.substr(0, colon);
    std::string_view value = colon == std::string_view::npos ? std::string_view() : line.substr(colon + 1);
    if (value.starts_with(' ')) value.remove_prefix(1);
    if (field == "event") {
      event_.name = value;
    } else if (field == "data") {
      if (has_data_) event_.data += '\n';
      event_.data += value;
      has_data_ = true;
    }
  }

  std::string partial_line_;
  Event event_;
  bool has_data_ = false;
};

}  // namespace kernelarc::llm::detail
