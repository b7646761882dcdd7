// One HTTP POST through libcurl: a JSON body out, the status, headers and body back, within a connect timeout, a total
// timeout and a size limit, abandoned soon after a cancel flag is raised. Body bytes can go to a callback as they
// arrive (server-sent events). Retries and their policy belong to the caller (chat_client.cpp).
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace kernelarc::llm {

struct HttpPost {
  std::string url;
  std::vector<std::string> headers;   // "Name: value"; Content-Type: application/json is always sent
  std::string body;
  double connect_timeout_s = 10;
  double timeout_s = 300;             // from connect to the last byte
  std::size_t max_response_bytes = 8u << 20;
  // When set, the body of a 2xx answer goes here as it arrives instead of into HttpAnswer::body (other statuses still
  // fill HttpAnswer::body, which holds the endpoint's error). An exception it throws aborts the transfer and is
  // rethrown by http_post.
  std::function<void(std::string_view bytes)> on_body;
};

enum class HttpFailure { none, timeout, connection, too_large, cancelled };

struct HttpAnswer {
  int status = 0;                              // 0 when no status line arrived
  std::map<std::string, std::string> headers;  // names in lower case, the last value of a repeated header
  std::string body;
  HttpFailure failure = HttpFailure::none;
  std::string failure_message;                 // what libcurl says, when failure is not none

  // The value of header `lower_case_name`, or "" when absent.
  std::string header(const std::string& lower_case_name) const;
};

// Sends the POST and waits for the whole answer. Never throws for network trouble (see HttpAnswer::failure); a cancel
// takes effect within about 50 ms, even while no byte is arriving.
HttpAnswer http_post(const HttpPost& post, const std::atomic<bool>& cancelled);

}  // namespace kernelarc::llm
