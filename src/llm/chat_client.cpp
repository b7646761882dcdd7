// The client both protocols share: one request at a time through http_transport, retried with jittered exponential
// backoff (or the endpoint's Retry-After), at most max_concurrency in flight per endpoint in the whole process, and
// errors that name the endpoint and the URL path but never the key.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <ctime>
#include <iomanip>
#include <locale>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <sstream>
#include <thread>
#include <variant>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "llm/chat.h"
#include "llm/http_transport.h"
#include "llm/protocol.h"

namespace kernelarc::llm {

double cost_usd(const EndpointConfig& endpoint, std::int64_t tokens_in, std::int64_t tokens_out) {
  return (static_cast<double>(tokens_in) * endpoint.price_in_per_mtok +
          static_cast<double>(tokens_out) * endpoint.price_out_per_mtok) / 1e6;
}

namespace {

using namespace std::chrono_literals;

// How long a wait (for a slot, before a retry) sleeps at most between looks at the cancel flag.
constexpr auto cancel_check_interval = 50ms;

// A counting semaphore whose wait is abandoned when the cancel flag rises.
class ConcurrencyLimit {
 public:
  explicit ConcurrencyLimit(int slots) : free_slots_(slots) {}

  // False when cancelled before a slot came free.
  bool acquire(const std::atomic<bool>& cancelled) {
    std::unique_lock lock(mutex_);
    while (free_slots_ == 0 && !cancelled.load()) slot_freed_.wait_for(lock, cancel_check_interval);
    if (cancelled.load()) return false;
    --free_slots_;
    return true;
  }

  void release() {
    {
      std::lock_guard lock(mutex_);
      ++free_slots_;
    }
    slot_freed_.notify_one();
  }

 private:
  std::mutex mutex_;
  std::condition_variable slot_freed_;
  int free_slots_;
};

// Gives an acquired slot back, however the request ends.
struct SlotHeld {
  ConcurrencyLimit& limit;
  ~SlotHeld() { limit.release(); }
};

// The limit of the endpoint `name` at `base_url`, shared by every client of it that is alive; the first client's
// max_concurrency sets it.
std::shared_ptr<ConcurrencyLimit> concurrency_limit_of(const EndpointConfig& endpoint) {
  static std::mutex mutex;
  static std::map<std::string, std::weak_ptr<ConcurrencyLimit>> limits;
  std::lock_guard lock(mutex);
  auto& slot = limits[endpoint.name + '\n' + endpoint.base_url];
  auto limit = slot.lock();
  if (!limit) {
    limit = std::make_shared<ConcurrencyLimit>(endpoint.max_concurrency);
    slot = limit;
  }
  return limit;
}

// Sleeps `seconds` in short slices; false when the cancel flag rose first.
bool sleep_unless_cancelled(double seconds, const std::atomic<bool>& cancelled) {
  auto until = std::chrono::steady_clock::now() +
               std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
  while (!cancelled.load()) {
    auto left = until - std::chrono::steady_clock::now();
    if (left <= 0s) return true;
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(left, cancel_check_interval));
  }
  return false;
}

// Full jitter: uniform in [0, min(max, initial * 2^retry)], so that clients that failed together do not retry together.
double backoff_seconds(const EndpointConfig& endpoint, int retry) {
  thread_local std::mt19937_64 random(std::random_device{}());
  double ceiling = std::min(endpoint.backoff_max_s, endpoint.backoff_initial_s * std::ldexp(1.0, std::min(retry, 60)));
  return std::uniform_real_distribution<double>(0, std::max(0.0, ceiling))(random);
}

// A Retry-After value in seconds: delta-seconds, or an HTTP-date ("Wed, 21 Oct 2015 07:28:00 GMT").
std::optional<double> retry_after_seconds(const std::string& value) {
  if (value.empty()) return std::nullopt;
  char* end = nullptr;
  double seconds = std::strtod(value.c_str(), &end);
  if (end != value.c_str() && *end == '\0') return seconds >= 0 ? std::optional(seconds) : std::nullopt;
  std::tm date{};
  std::istringstream in(value);
  in.imbue(std::locale::classic());
  in >> std::get_time(&date, "%a, %d %b %Y %H:%M:%S");
  if (in.fail()) return std::nullopt;
  return std::max(0.0, std::difftime(timegm(&date), std::time(nullptr)));
}

bool status_is_retryable(int status) {
  return status == 429 || status == 500 || status == 502 || status == 503 || status == 504 || status == 529;
}

// What an error answer says: both protocols put {"error": {"type", "message"}} in the body; anything else is shown
// raw, shortened.
std::string error_text_of(const std::string& body) {
  auto parsed = nlohmann::json::parse(body, nullptr, false);
  if (parsed.is_object() && parsed.contains("error")) {
    const auto& error = parsed["error"];
    if (error.is_string()) return error.get<std::string>();
    if (error.is_object() && error.contains("message") && error["message"].is_string()) {
      std::string type = error.value("type", nlohmann::json()).is_string() ? error["type"].get<std::string>() : "";
      return type.empty() ? error["message"].get<std::string>() : type + ": " + error["message"].get<std::string>();
    }
  }
  if (body.empty()) return "(empty body)";
  std::string shown = body.substr(0, 300);
  std::replace_if(shown.begin(), shown.end(), [](unsigned char c) { return std::iscntrl(c); }, ' ');
  return body.size() > shown.size() ? shown + "..." : shown;
}

// Why one request did not give a reply.
struct AttemptFailure {
  ChatError::Kind kind;
  int http_status = 0;
  bool retryable = false;
  std::string reason;
  std::optional<double> retry_after_s;
};

class RetryingClient final : public ChatClient {
 public:
  RetryingClient(EndpointConfig endpoint, std::string api_key, std::unique_ptr<detail::Protocol> protocol)
      : endpoint_(std::move(endpoint)),
        api_key_(std::move(api_key)),
        protocol_(std::move(protocol)),
        limit_(concurrency_limit_of(endpoint_)) {
    std::string base = endpoint_.base_url;
    while (base.ends_with('/')) base.pop_back();
    url_ = base + protocol_->path();
    auto scheme_end = url_.find("://");
    auto path_start = url_.find('/', scheme_end == std::string::npos ? 0 : scheme_end + 3);
    url_path_ = path_start == std::string::npos ? "/" : url_.substr(path_start);
  }

  const EndpointConfig& endpoint() const override { return endpoint_; }

  ChatReply complete(const ChatRequest& request, const std::atomic<bool>& cancelled) override {
    const std::string body = protocol_->request_body(request, endpoint_);
    for (int attempt = 1;; ++attempt) {
      if (!limit_->acquire(cancelled))
        throw error(ChatError::Kind::cancelled, 0, attempt - 1, "cancelled while waiting for a free request slot");
      auto outcome = [&] {
        SlotHeld held{*limit_};
        return send_once(body, cancelled);
      }();

      if (auto* reply = std::get_if<ChatReply>(&outcome)) {
        reply->attempts = attempt;
        return std::move(*reply);
      }
      auto& failure = std::get<AttemptFailure>(outcome);
      if (failure.kind == ChatError::Kind::cancelled) throw error(failure.kind, 0, attempt, "cancelled during the request");
      if (!failure.retryable || attempt > endpoint_.max_retries) {
        std::string after = attempt > 1 ? fmt::format(" (after {} attempts)", attempt) : "";
        throw error(failure.kind, failure.http_status, attempt, failure.reason + after);
      }
      double wait_s = failure.retry_after_s ? std::min(*failure.retry_after_s, endpoint_.retry_after_max_s)
                                            : backoff_seconds(endpoint_, attempt - 1);
      if (!sleep_unless_cancelled(wait_s, cancelled))
        throw error(ChatError::Kind::cancelled, 0, attempt, "cancelled while waiting to retry");
    }
  }

 private:
  std::variant<ChatReply, AttemptFailure> send_once(const std::string& body, const std::atomic<bool>& cancelled) const {
    HttpPost post{url_, protocol_->headers(api_key_), body, endpoint_.connect_timeout_s, endpoint_.timeout_s,
                  endpoint_.max_response_bytes, {}};
    std::unique_ptr<detail::StreamDecoder> decoder;
    if (endpoint_.stream) {
      decoder = protocol_->stream_decoder();
      post.on_body = [&decoder](std::string_view bytes) { decoder->feed(bytes); };
    }

    HttpAnswer answer;
    try {
      answer = http_post(post, cancelled);
    } catch (const detail::ProtocolViolation& violation) {
      return AttemptFailure{ChatError::Kind::protocol, 200, false, violation.what(), std::nullopt};
    } catch (const detail::StreamedError& streamed) {
      return AttemptFailure{ChatError::Kind::http, streamed.status, status_is_retryable(streamed.status),
                            fmt::format("the stream reported an error ({}): {}", streamed.status, streamed.what()),
                            std::nullopt};
    }

    switch (answer.failure) {
      case HttpFailure::none: break;
      case HttpFailure::cancelled: return AttemptFailure{ChatError::Kind::cancelled, 0, false, "cancelled", std::nullopt};
      case HttpFailure::timeout:
        return AttemptFailure{ChatError::Kind::timeout, 0, true,
                              fmt::format("no complete answer within {} s: {}", endpoint_.timeout_s, answer.failure_message),
                              std::nullopt};
      case HttpFailure::too_large:
        return AttemptFailure{ChatError::Kind::too_large, answer.status, false,
                              fmt::format("the answer is larger than max_response_bytes ({} bytes)",
                                          endpoint_.max_response_bytes),
                              std::nullopt};
      // A broken connection has no HTTP status worth reporting: kind http with status 0.
      case HttpFailure::connection:
        return AttemptFailure{ChatError::Kind::http, 0, true, "the connection failed: " + answer.failure_message,
                              std::nullopt};
    }

    if (answer.status < 200 || answer.status >= 300)
      return AttemptFailure{ChatError::Kind::http, answer.status, status_is_retryable(answer.status),
                            fmt::format("HTTP {}: {}", answer.status, error_text_of(answer.body)),
                            retry_after_seconds(answer.header("retry-after"))};
    try {
      return endpoint_.stream ? decoder->finish() : protocol_->parse_reply(answer.body);
    } catch (const detail::ProtocolViolation& violation) {
      // Not retried: a 2xx that is not the protocol comes from a wrong base_url or a proxy, which a retry does not fix.
      return AttemptFailure{ChatError::Kind::protocol, answer.status, false, violation.what(), std::nullopt};
    } catch (const detail::TruncatedStream& truncated) {
      return AttemptFailure{ChatError::Kind::protocol, answer.status, true, truncated.what(), std::nullopt};
    }
  }

  // The error to throw: it names the endpoint and the path; any trace of the key is cut out, whatever the server said.
  ChatError error(ChatError::Kind kind, int http_status, int attempts, const std::string& reason) const {
    std::string message = fmt::format("endpoint '{}': POST {}: {}", endpoint_.name, url_path_, reason);
    if (!api_key_.empty())
      for (auto at = message.find(api_key_); at != std::string::npos; at = message.find(api_key_, at))
        message.replace(at, api_key_.size(), "[redacted]");
    return ChatError(kind, http_status, attempts, message);
  }

  EndpointConfig endpoint_;
  std::string api_key_;
  std::unique_ptr<detail::Protocol> protocol_;
  std::shared_ptr<ConcurrencyLimit> limit_;
  std::string url_;
  std::string url_path_;
};

}  // namespace

std::unique_ptr<ChatClient> make_client(const EndpointConfig& endpoint) {
  auto configuration_error = [&endpoint](const std::string& what) {
    return ChatError(ChatError::Kind::configuration, 0, 0, fmt::format("endpoint '{}': {}", endpoint.name, what));
  };
  std::unique_ptr<detail::Protocol> protocol;
  if (endpoint.protocol == "openai") {
    protocol = detail::make_openai_protocol();
  } else if (endpoint.protocol == "anthropic") {
    protocol = detail::make_anthropic_protocol();
  } else {
    throw configuration_error(fmt::format("unknown protocol '{}' (openai or anthropic)", endpoint.protocol));
  }
  if (endpoint.base_url.empty()) throw configuration_error("base_url is empty");
  if (endpoint.model.empty()) throw configuration_error("model is empty");
  if (endpoint.max_concurrency < 1) throw configuration_error("max_concurrency must be at least 1");

  std::string api_key;
  if (!endpoint.api_key_env.empty()) {
    const char* value = std::getenv(endpoint.api_key_env.c_str());
    if (value == nullptr || *value == '\0')
      throw configuration_error(fmt::format("the environment variable {} (api_key_env) is not set", endpoint.api_key_env));
    api_key = value;
  }
  return std::make_unique<RetryingClient>(endpoint, std::move(api_key), std::move(protocol));
}

}  // namespace kernelarc::llm
