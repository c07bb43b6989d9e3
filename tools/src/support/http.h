// The HTTP client of the remote cache (libcurl): one request, bounded in
// time and size, with an optional bearer token that is sent and never shown.
#pragma once

#include <cstddef>
#include <string>

namespace tileperf {

struct HttpOptions {
  std::string bearer_token;     // "": none
  double timeout_seconds = 10;  // the whole request
  double connect_timeout_seconds = 2;
  std::size_t max_bytes = std::size_t(64) << 20;  // of a response body
};

struct HttpResponse {
  long status = 0;  // 0: no response; `error` says why
  std::string body;
  std::string error;
  bool ok() const { return status >= 200 && status < 300; }
};

// `method` is GET, HEAD or PUT (`body` is what a PUT sends).
HttpResponse http_request(const std::string& method, const std::string& url, const std::string& body,
                          const HttpOptions& options);

// Whether this build has an HTTP client (libcurl was found when it was built).
bool http_available();

// `url` without the user and password it may carry, for messages.
std::string shown_url(const std::string& url);

}  // namespace tileperf
