#include "http.h"

#include <fmt/format.h>

#ifdef TILEPERF_HAVE_CURL
#include <curl/curl.h>
#endif

namespace tileperf {

std::string shown_url(const std::string& url) {
  std::size_t scheme = url.find("://");
  std::size_t start = scheme == std::string::npos ? 0 : scheme + 3;
  std::size_t slash = url.find('/', start);
  std::size_t at = url.rfind('@', slash);
  if (at == std::string::npos || at < start) return url;
  return url.substr(0, start) + url.substr(at + 1);
}

#ifdef TILEPERF_HAVE_CURL

namespace {

struct Sink {
  std::string* body;
  std::size_t max;
  bool overflow = false;
};

std::size_t receive(char* data, std::size_t size, std::size_t n, void* user) {
  auto* sink = static_cast<Sink*>(user);
  if (sink->body->size() + size * n > sink->max) {
    sink->overflow = true;
    return 0;  // libcurl aborts the transfer
  }
  sink->body->append(data, size * n);
  return size * n;
}

struct Source {
  const std::string* body;
  std::size_t at = 0;
};

std::size_t send(char* buffer, std::size_t size, std::size_t n, void* user) {
  auto* src = static_cast<Source*>(user);
  std::size_t count = std::min(size * n, src->body->size() - src->at);
  std::copy_n(src->body->data() + src->at, count, buffer);
  src->at += count;
  return count;
}

// One handle's settings for `method`.
void set_method(CURL* curl, const std::string& method, Source& source) {
  if (method == "HEAD") curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
  if (method == "PUT") {
    curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(curl, CURLOPT_READFUNCTION, send);
    curl_easy_setopt(curl, CURLOPT_READDATA, &source);
    curl_easy_setopt(curl, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(source.body->size()));
  }
}

}  // namespace

bool http_available() { return true; }

HttpResponse http_request(const std::string& method, const std::string& url, const std::string& body,
                          const HttpOptions& options) {
  static const bool initialised = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
  HttpResponse r;
  CURL* curl = initialised ? curl_easy_init() : nullptr;
  if (!curl) {
    r.error = "cannot start an HTTP client";
    return r;
  }
  Sink sink{&r.body, options.max_bytes};
  Source source{&body};
  curl_slist* headers = nullptr;
  if (!options.bearer_token.empty()) {
    headers = curl_slist_append(headers, ("Authorization: Bearer " + options.bearer_token).c_str());
  }
  headers = curl_slist_append(headers, "Expect:");  // no 100-continue round trip for a PUT
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(options.timeout_seconds * 1000));
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options.connect_timeout_seconds * 1000));
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, receive);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  set_method(curl, method, source);
  CURLcode code = curl_easy_perform(curl);
  if (code == CURLE_OK) {
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &r.status);
  } else {
    r.error = sink.overflow ? fmt::format("a response larger than {} bytes", options.max_bytes)
                            : curl_easy_strerror(code);
    r.body.clear();
  }
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
  return r;
}

#else

bool http_available() { return false; }

HttpResponse http_request(const std::string&, const std::string&, const std::string&, const HttpOptions&) {
  HttpResponse r;
  r.error = "tileperf was built without libcurl";
  return r;
}

#endif

}  // namespace tileperf
