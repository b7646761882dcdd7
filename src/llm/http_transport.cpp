#include "llm/http_transport.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <exception>
#include <mutex>
#include <stdexcept>

namespace kernelarc::llm {

namespace {

// libcurl asks for one global initialisation before any handle, and that call is not thread-safe itself.
void initialise_curl_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) throw std::runtime_error("libcurl failed to initialise");
  });
}

// How long the transfer loop sleeps while no byte moves. curl_easy_perform wakes only once a second when idle, so
// the loop drives a multi handle itself: every wake-up runs the progress callback, which sees the cancel flag.
constexpr int idle_wake_up_ms = 50;

struct Transfer {
  const HttpPost& post;
  const std::atomic<bool>& cancelled;
  HttpAnswer answer;
  std::size_t body_bytes = 0;
  bool too_large = false;
  std::exception_ptr callback_error;
};

std::string trim(std::string_view text) {
  auto begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string_view::npos) return {};
  auto end = text.find_last_not_of(" \t\r\n");
  return std::string(text.substr(begin, end - begin + 1));
}

std::size_t on_header_line(char* data, std::size_t size, std::size_t count, void* user) {
  auto& transfer = *static_cast<Transfer*>(user);
  std::string_view line(data, size * count);
  if (line.starts_with("HTTP/")) {
    // A status line starts a new header block: an interim 1xx answer may have come before.
    transfer.answer.headers.clear();
    auto space = line.find(' ');
    int status = 0;
    if (space != std::string_view::npos) std::from_chars(line.data() + space + 1, line.data() + line.size(), status);
    transfer.answer.status = status;
    return line.size();
  }
  auto colon = line.find(':');
  if (colon == std::string_view::npos) return line.size();
  std::string name = trim(line.substr(0, colon));
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  transfer.answer.headers[name] = trim(line.substr(colon + 1));
  return line.size();
}

std::size_t on_body_bytes(char* data, std::size_t size, std::size_t count, void* user) {
  auto& transfer = *static_cast<Transfer*>(user);
  std::size_t length = size * count;
  transfer.body_bytes += length;
  if (transfer.body_bytes > transfer.post.max_response_bytes) {
    transfer.too_large = true;
    return 0;  // anything but `length` stops the transfer with CURLE_WRITE_ERROR
  }
  bool success = transfer.answer.status >= 200 && transfer.answer.status < 300;
  if (!transfer.post.on_body || !success) {
    transfer.answer.body.append(data, length);
    return length;
  }
  try {
    transfer.post.on_body(std::string_view(data, length));
  } catch (...) {
    transfer.callback_error = std::current_exception();  // never through libcurl's C frames
    return 0;
  }
  return length;
}

int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return static_cast<Transfer*>(user)->cancelled.load() ? 1 : 0;
}

long milliseconds(double seconds) { return std::max(1L, std::lround(seconds * 1000)); }

// The handles of one transfer, released in the order libcurl wants.
struct CurlHandles {
  CURL* easy = curl_easy_init();
  CURLM* multi = curl_multi_init();
  curl_slist* headers = nullptr;
  bool added = false;
  ~CurlHandles() {
    if (added) curl_multi_remove_handle(multi, easy);
    if (easy) curl_easy_cleanup(easy);
    if (multi) curl_multi_cleanup(multi);
    curl_slist_free_all(headers);
  }
};

HttpFailure failure_of(CURLcode result, const Transfer& transfer) {
  switch (result) {
    case CURLE_OK: return HttpFailure::none;
    case CURLE_ABORTED_BY_CALLBACK: return HttpFailure::cancelled;
    case CURLE_OPERATION_TIMEDOUT: return HttpFailure::timeout;
    case CURLE_FILESIZE_EXCEEDED: return HttpFailure::too_large;
    case CURLE_WRITE_ERROR: return transfer.too_large ? HttpFailure::too_large : HttpFailure::connection;
    default: return HttpFailure::connection;
  }
}

}  // namespace

std::string HttpAnswer::header(const std::string& lower_case_name) const {
  auto found = headers.find(lower_case_name);
  return found == headers.end() ? std::string() : found->second;
}

HttpAnswer http_post(const HttpPost& post, const std::atomic<bool>& cancelled) {
  initialise_curl_once();
  Transfer transfer{post, cancelled, {}, 0, false, nullptr};
  CurlHandles handles;
  if (!handles.easy || !handles.multi) throw std::runtime_error("libcurl could not create a transfer handle");

  for (const auto& header : post.headers) handles.headers = curl_slist_append(handles.headers, header.c_str());
  handles.headers = curl_slist_append(handles.headers, "Content-Type: application/json");
  handles.headers = curl_slist_append(handles.headers, "Expect:");  // no 100-continue round trip for large bodies

  char error_text[CURL_ERROR_SIZE] = {};
  CURL* easy = handles.easy;
  curl_easy_setopt(easy, CURLOPT_URL, post.url.c_str());
  curl_easy_setopt(easy, CURLOPT_POST, 1L);
  curl_easy_setopt(easy, CURLOPT_POSTFIELDS, post.body.data());
  curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(post.body.size()));
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, handles.headers);
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);  // no SIGALRM for timeouts: this runs on many threads
  curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, milliseconds(post.connect_timeout_s));
  curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, milliseconds(post.timeout_s));
  curl_easy_setopt(easy, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(post.max_response_bytes));
  curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, on_header_line);
  curl_easy_setopt(easy, CURLOPT_HEADERDATA, &transfer);
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_body_bytes);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, &transfer);
  curl_easy_setopt(easy, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(easy, CURLOPT_XFERINFOFUNCTION, on_progress);
  curl_easy_setopt(easy, CURLOPT_XFERINFODATA, &transfer);
  curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, error_text);

  if (curl_multi_add_handle(handles.multi, easy) != CURLM_OK) throw std::runtime_error("libcurl could not start a transfer");
  handles.added = true;
  int running = 1;
  while (running) {
    CURLMcode code = curl_multi_perform(handles.multi, &running);
    if (code == CURLM_OK && running) code = curl_multi_poll(handles.multi, nullptr, 0, idle_wake_up_ms, nullptr);
    if (code != CURLM_OK) throw std::runtime_error(std::string("libcurl failed: ") + curl_multi_strerror(code));
  }
  CURLcode result = CURLE_OK;
  int queued = 0;
  while (CURLMsg* message = curl_multi_info_read(handles.multi, &queued))
    if (message->msg == CURLMSG_DONE) result = message->data.result;

  if (transfer.callback_error) std::rethrow_exception(transfer.callback_error);
  transfer.answer.failure = failure_of(result, transfer);
  if (transfer.answer.failure != HttpFailure::none)
    transfer.answer.failure_message = error_text[0] ? error_text : curl_easy_strerror(result);
  return std::move(transfer.answer);
}

}  // namespace kernelarc::llm
