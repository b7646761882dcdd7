#include "llm/fake_model_server.h"

#include <httplib.h>
#include <sys/socket.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

namespace kernelarc::testing {

namespace {

using nlohmann::json;
using Fault = ScriptedAnswer::Fault;

constexpr std::size_t worker_threads = 40;           // 32 requests at once, and connections closing behind them
constexpr std::size_t stream_piece_bytes = 16;       // text per streamed delta
constexpr std::size_t oversized_piece_bytes = 64 << 10;

// `text` cut into pieces of about `bytes`, never inside a UTF-8 sequence (JSON needs whole characters).
std::vector<std::string> pieces_of(const std::string& text, std::size_t bytes) {
  std::vector<std::string> pieces;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = std::min(text.size(), start + bytes);
    while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) ++end;
    pieces.push_back(text.substr(start, end - start));
    start = end;
  }
  return pieces;
}

// The first half of `text`, ending on a character boundary.
std::string first_half(const std::string& text) {
  std::size_t end = text.size() / 2;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end);
}

std::string sse(const json& data, const std::string& event = "") {
  std::string head = event.empty() ? "" : "event: " + event + "\n";
  return head + "data: " + data.dump() + "\n\n";
}

// What each protocol sends, as its documentation shows it.
struct OpenAiWire {
  static json completion(const std::string& model, const std::string& text, const ScriptedAnswer& answer) {
    return {{"id", "chatcmpl-fake"},
            {"object", "chat.completion"},
            {"created", 0},
            {"model", model},
            {"choices", {{{"index", 0},
                          {"message", {{"role", "assistant"}, {"content", text}}},
                          {"finish_reason", "stop"}}}},
            {"usage", usage(answer)}};
  }

  static json usage(const ScriptedAnswer& answer) {
    return {{"prompt_tokens", answer.tokens_in},
            {"completion_tokens", answer.tokens_out},
            {"total_tokens", answer.tokens_in + answer.tokens_out}};
  }

  static json chunk(const std::string& model, json choices) {
    return {{"id", "chatcmpl-fake"},
            {"object", "chat.completion.chunk"},
            {"created", 0},
            {"model", model},
            {"choices", std::move(choices)}};
  }

  // The events of a streamed answer; without `finished`, they stop after the text, before finish_reason and [DONE].
  static std::vector<std::string> stream(const std::string& model, const std::string& text,
                                         const ScriptedAnswer& answer, bool include_usage, bool finished) {
    std::vector<std::string> events;
    events.push_back(sse(chunk(model, {{{"index", 0},
                                        {"delta", {{"role", "assistant"}, {"content", ""}}},
                                        {"finish_reason", nullptr}}})));
    for (const auto& piece : pieces_of(text, stream_piece_bytes))
      events.push_back(
          sse(chunk(model, {{{"index", 0}, {"delta", {{"content", piece}}}, {"finish_reason", nullptr}}})));
    if (!finished) return events;
    events.push_back(sse(chunk(model, {{{"index", 0}, {"delta", json::object()}, {"finish_reason", "stop"}}})));
    if (include_usage) {
      json last = chunk(model, json::array());
      last["usage"] = usage(answer);
      events.push_back(sse(last));
    }
    events.push_back("data: [DONE]\n\n");
    return events;
  }

  static json error(int status, const std::string& message) {
    std::string type = status == 429 ? "rate_limit_error" : status >= 500 ? "server_error" : "invalid_request_error";
    return {{"error", {{"message", message}, {"type", type}, {"param", nullptr}, {"code", nullptr}}}};
  }
};

struct AnthropicWire {
  static json message(const std::string& model, const std::string& text, const ScriptedAnswer& answer) {
    return {{"id", "msg_fake"},
            {"type", "message"},
            {"role", "assistant"},
            {"model", model},
            {"content", {{{"type", "text"}, {"text", text}}}},
            {"stop_reason", "end_turn"},
            {"stop_sequence", nullptr},
            {"usage", {{"input_tokens", answer.tokens_in}, {"output_tokens", answer.tokens_out}}}};
  }

  // The events of a streamed answer; without `finished`, they stop after the text, before content_block_stop.
  static std::vector<std::string> stream(const std::string& model, const std::string& text,
                                         const ScriptedAnswer& answer, bool finished) {
    std::vector<std::string> events;
    json start = message(model, "", answer);
    start["content"] = json::array();
    start["stop_reason"] = nullptr;
    start["usage"]["output_tokens"] = 1;
    events.push_back(sse({{"type", "message_start"}, {"message", start}}, "message_start"));
    events.push_back(sse({{"type", "content_block_start"}, {"index", 0}, {"content_block", {{"type", "text"}, {"text", ""}}}},
                         "content_block_start"));
    events.push_back(sse({{"type", "ping"}}, "ping"));
    for (const auto& piece : pieces_of(text, stream_piece_bytes))
      events.push_back(sse({{"type", "content_block_delta"}, {"index", 0}, {"delta", {{"type", "text_delta"}, {"text", piece}}}},
                           "content_block_delta"));
    if (!finished) return events;
    events.push_back(sse({{"type", "content_block_stop"}, {"index", 0}}, "content_block_stop"));
    events.push_back(sse({{"type", "message_delta"},
                          {"delta", {{"stop_reason", "end_turn"}, {"stop_sequence", nullptr}}},
                          {"usage", {{"output_tokens", answer.tokens_out}}}},
                         "message_delta"));
    events.push_back(sse({{"type", "message_stop"}}, "message_stop"));
    return events;
  }

  static json error(int status, const std::string& message) {
    std::string type = status == 400   ? "invalid_request_error"
                       : status == 401 ? "authentication_error"
                       : status == 403 ? "permission_error"
                       : status == 404 ? "not_found_error"
                       : status == 413 ? "request_too_large"
                       : status == 429 ? "rate_limit_error"
                       : status == 529 ? "overloaded_error"
                                       : "api_error";
    return {{"type", "error"}, {"error", {{"type", type}, {"message", message}}}};
  }
};

// cpp-httplib listens with a backlog of 5: a burst of connections beyond it waits for the client's SYN retry (1 s),
// which would make concurrent requests look serialised. listen() again on the bound socket deepens the queue.
class DeepBacklogServer : public httplib::Server {
 public:
  void deepen_backlog() { ::listen(svr_sock_, 128); }
};

}  // namespace

struct FakeModelServer::State {
  DeepBacklogServer server;
  std::thread listener;
  int port = 0;

  mutable std::mutex mutex;
  std::condition_variable stopping_signal;
  bool stopping = false;
  std::deque<ScriptedAnswer> script;
  std::function<ScriptedAnswer(const SeenRequest&)> fallback;
  std::vector<SeenRequest> seen;
  int in_flight = 0;
  int most_in_flight = 0;

  // Counts a request as being answered until the last copy is gone (a content provider keeps one while it writes).
  struct InFlight {
    State& state;
    explicit InFlight(State& state) : state(state) {
      std::lock_guard lock(state.mutex);
      state.most_in_flight = std::max(state.most_in_flight, ++state.in_flight);
    }
    ~InFlight() {
      std::lock_guard lock(state.mutex);
      --state.in_flight;
    }
  };

  // Waits `seconds`; false when the server stops first.
  bool wait(double seconds) {
    std::unique_lock lock(mutex);
    return !stopping_signal.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return stopping; });
  }

  ScriptedAnswer next_answer(const SeenRequest& request) {
    std::function<ScriptedAnswer(const SeenRequest&)> answer_by;
    {
      std::lock_guard lock(mutex);
      seen.push_back(request);
      if (!script.empty()) {
        ScriptedAnswer answer = std::move(script.front());
        script.pop_front();
        return answer;
      }
      answer_by = fallback;
    }
    if (answer_by) return answer_by(request);
    ScriptedAnswer exhausted;
    exhausted.fault = Fault::http_status;
    exhausted.status = 500;
    exhausted.text = "script exhausted";
    return exhausted;
  }

  void handle(const std::string& protocol, const httplib::Request& http_request, httplib::Response& response) {
    SeenRequest request{protocol, http_request.path, {}, json::parse(http_request.body, nullptr, false)};
    for (const auto& [name, value] : http_request.headers) {
      std::string lower = name;
      std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
      request.headers[lower] = value;
    }
    auto in_flight_token = std::make_shared<InFlight>(*this);
    ScriptedAnswer answer = next_answer(request);
    if (!wait(answer.delay_s)) {
      response.status = 503;
      return;
    }
    bool openai = protocol == "openai";
    const json& body = request.body;
    bool stream = body.is_object() && body.value("stream", false);
    bool include_usage = body.is_object() && body.contains("stream_options") &&
                         body["stream_options"].value("include_usage", false);
    std::string model = body.is_object() ? body.value("model", std::string("fake-model")) : "fake-model";

    auto whole = [&](const std::string& text) {
      return (openai ? OpenAiWire::completion(model, text, answer) : AnthropicWire::message(model, text, answer)).dump();
    };
    auto events = [&](const std::string& text, bool finished) {
      return openai ? OpenAiWire::stream(model, text, answer, include_usage, finished)
                    : AnthropicWire::stream(model, text, answer, finished);
    };

    switch (answer.fault) {
      case Fault::none:
      case Fault::slow:
        if (stream) {
          send_events(response, events(answer.text, true), in_flight_token);
        } else {
          response.set_content(whole(answer.text), "application/json");
        }
        return;
      case Fault::http_status: {
        std::string message = answer.text.empty() ? fmt::format("scripted HTTP {}", answer.status) : answer.text;
        response.status = answer.status;
        if (!answer.retry_after.empty()) response.set_header("Retry-After", answer.retry_after);
        auto error = openai ? OpenAiWire::error(answer.status, message) : AnthropicWire::error(answer.status, message);
        response.set_content(error.dump(), "application/json");
        return;
      }
      case Fault::malformed_json:
        if (stream) {
          send_events(response, {"data: this is not json {\n\n"}, in_flight_token);
        } else {
          response.set_content("<html>this is not json {", "application/json");
        }
        return;
      case Fault::truncated_stream:
        if (stream) {
          send_events(response, events(first_half(answer.text), false), in_flight_token);
        } else {
          auto full = std::make_shared<std::string>(whole(answer.text));
          response.set_content_provider(full->size(), "application/json",
                                        [full, in_flight_token](std::size_t, std::size_t, httplib::DataSink& sink) {
                                          sink.write(full->data(), full->size() / 2);
                                          return false;  // closes the connection with half the announced length sent
                                        });
        }
        return;
      case Fault::oversized:
        if (stream) {
          send_oversized_events(response, answer.oversized_bytes, model, openai, in_flight_token);
        } else {
          response.set_content(whole(std::string(answer.oversized_bytes, 'x')), "application/json");
        }
        return;
      case Fault::drop_connection:
        response.set_content_provider(1024, "application/json",
                                      [in_flight_token](std::size_t, std::size_t, httplib::DataSink&) { return false; });
        return;
    }
  }

  // Sends each event as a chunk of its own, as a real server flushes them.
  static void send_events(httplib::Response& response, std::vector<std::string> events,
                          std::shared_ptr<InFlight> in_flight_token) {
    auto queue = std::make_shared<std::vector<std::string>>(std::move(events));
    response.set_chunked_content_provider(
        "text/event-stream", [queue, next = std::size_t{0}, in_flight_token](std::size_t, httplib::DataSink& sink) mutable {
          if (next == queue->size()) {
            sink.done();
            return true;
          }
          const std::string& event = (*queue)[next++];
          // A client may finish at the last event, before the stream's end: the answer stops counting as in flight first.
          if (next == queue->size()) in_flight_token.reset();
          return sink.write(event.data(), event.size());
        });
  }

  // Text deltas of oversized_piece_bytes until `bytes` are sent, then the protocol's end.
  static void send_oversized_events(httplib::Response& response, std::size_t bytes, const std::string& model,
                                    bool openai, std::shared_ptr<InFlight> in_flight_token) {
    std::string piece(oversized_piece_bytes, 'x');
    std::string event = openai ? sse(OpenAiWire::chunk(model, {{{"index", 0}, {"delta", {{"content", piece}}}}}))
                               : sse({{"type", "content_block_delta"}, {"index", 0},
                                      {"delta", {{"type", "text_delta"}, {"text", piece}}}},
                                     "content_block_delta");
    std::string end = openai ? "data: [DONE]\n\n" : sse({{"type", "message_stop"}}, "message_stop");
    response.set_chunked_content_provider(
        "text/event-stream",
        [event, end, bytes, sent = std::size_t{0}, in_flight_token](std::size_t, httplib::DataSink& sink) mutable {
          if (sent >= bytes) {
            sink.write(end.data(), end.size());
            sink.done();
            return true;
          }
          sent += event.size();
          return sink.write(event.data(), event.size());
        });
  }
};

FakeModelServer::FakeModelServer() : state_(std::make_unique<State>()) {
  // A client that gives up (timeout, cancel, size limit) leaves the server writing to a closed socket; cpp-httplib
  // sends without MSG_NOSIGNAL, so that would be a SIGPIPE for the whole test process.
  std::signal(SIGPIPE, SIG_IGN);
  State& state = *state_;
  state.server.new_task_queue = [] { return new httplib::ThreadPool(worker_threads); };
  state.server.set_keep_alive_timeout(1);
  state.server.Post("/v1/chat/completions", [&state](const httplib::Request& request, httplib::Response& response) {
    state.handle("openai", request, response);
  });
  state.server.Post("/v1/messages", [&state](const httplib::Request& request, httplib::Response& response) {
    state.handle("anthropic", request, response);
  });
  state.port = state.server.bind_to_any_port("127.0.0.1");
  if (state.port <= 0) throw std::runtime_error("the fake model server could not bind a port on 127.0.0.1");
  state.server.deepen_backlog();
  state.listener = std::thread([&state] { state.server.listen_after_bind(); });
  while (!state.server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

FakeModelServer::~FakeModelServer() {
  {
    std::lock_guard lock(state_->mutex);
    state_->stopping = true;
  }
  state_->stopping_signal.notify_all();
  state_->server.stop();
  state_->listener.join();
}

int FakeModelServer::port() const { return state_->port; }

std::string FakeModelServer::openai_base_url() const { return fmt::format("http://127.0.0.1:{}/v1", state_->port); }

std::string FakeModelServer::anthropic_base_url() const { return fmt::format("http://127.0.0.1:{}", state_->port); }

void FakeModelServer::enqueue(ScriptedAnswer answer) {
  std::lock_guard lock(state_->mutex);
  state_->script.push_back(std::move(answer));
}

void FakeModelServer::set_fallback(std::function<ScriptedAnswer(const SeenRequest&)> answer) {
  std::lock_guard lock(state_->mutex);
  state_->fallback = std::move(answer);
}

std::vector<SeenRequest> FakeModelServer::requests() const {
  std::lock_guard lock(state_->mutex);
  return state_->seen;
}

int FakeModelServer::max_in_flight() const {
  std::lock_guard lock(state_->mutex);
  return state_->most_in_flight;
}

}  // namespace kernelarc::testing
