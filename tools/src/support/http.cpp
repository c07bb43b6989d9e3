#include "support/http.h"

#include <algorithm>

#include <fmt/format.h>

#ifdef TILEPERF_HAVE_CURL
#include <dlfcn.h>

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

// libcurl, loaded on the first request: linked, its libraries (TLS, IDN,
// LDAP, ...) would cost every tileperf process 15 ms to start, most of a
// check that reuses its result.
struct Curl {
  CURLcode (*global_init)(long);
  CURL* (*easy_init)();
  CURLcode (*easy_setopt)(CURL*, CURLoption, ...);
  CURLcode (*easy_perform)(CURL*);
  CURLcode (*easy_getinfo)(CURL*, CURLINFO, ...);
  void (*easy_cleanup)(CURL*);
  const char* (*easy_strerror)(CURLcode);
  curl_slist* (*slist_append)(curl_slist*, const char*);
  void (*slist_free_all)(curl_slist*);
};

template <typename F>
bool bind(void* lib, const char* name, F& f) {
  f = reinterpret_cast<F>(::dlsym(lib, name));
  return f != nullptr;
}

// nullptr when libcurl cannot be loaded.
const Curl* curl_library() {
  static const Curl* loaded = []() -> const Curl* {
    void* lib = ::dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    static Curl c;
    bool ok = lib && bind(lib, "curl_global_init", c.global_init) && bind(lib, "curl_easy_init", c.easy_init) &&
              bind(lib, "curl_easy_setopt", c.easy_setopt) && bind(lib, "curl_easy_perform", c.easy_perform) &&
              bind(lib, "curl_easy_getinfo", c.easy_getinfo) && bind(lib, "curl_easy_cleanup", c.easy_cleanup) &&
              bind(lib, "curl_easy_strerror", c.easy_strerror) && bind(lib, "curl_slist_append", c.slist_append) &&
              bind(lib, "curl_slist_free_all", c.slist_free_all) && c.global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
    return ok ? &c : nullptr;
  }();
  return loaded;
}

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
void set_method(const Curl& c, CURL* curl, const std::string& method, Source& source) {
  if (method == "HEAD") c.easy_setopt(curl, CURLOPT_NOBODY, 1L);
  if (method == "PUT") {
    c.easy_setopt(curl, CURLOPT_UPLOAD, 1L);
    c.easy_setopt(curl, CURLOPT_READFUNCTION, send);
    c.easy_setopt(curl, CURLOPT_READDATA, &source);
    c.easy_setopt(curl, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(source.body->size()));
  }
}

}  // namespace

bool http_available() { return curl_library() != nullptr; }

HttpResponse http_request(const std::string& method, const std::string& url, const std::string& body,
                          const HttpOptions& options) {
  HttpResponse r;
  const Curl* c = curl_library();
  CURL* curl = c ? c->easy_init() : nullptr;
  if (!curl) {
    r.error = c ? "cannot start an HTTP client" : "libcurl.so.4 cannot be loaded (Debian: libcurl4)";
    return r;
  }
  Sink sink{&r.body, options.max_bytes};
  Source source{&body};
  curl_slist* headers = nullptr;
  if (!options.bearer_token.empty()) {
    headers = c->slist_append(headers, ("Authorization: Bearer " + options.bearer_token).c_str());
  }
  headers = c->slist_append(headers, "Expect:");  // no 100-continue round trip for a PUT
  c->easy_setopt(curl, CURLOPT_URL, url.c_str());
  c->easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  c->easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  c->easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(options.timeout_seconds * 1000));
  c->easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options.connect_timeout_seconds * 1000));
  c->easy_setopt(curl, CURLOPT_WRITEFUNCTION, receive);
  c->easy_setopt(curl, CURLOPT_WRITEDATA, &sink);
  c->easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  set_method(*c, curl, method, source);
  CURLcode code = c->easy_perform(curl);
  if (code == CURLE_OK) {
    c->easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &r.status);
  } else {
    r.error =
        sink.overflow ? fmt::format("a response larger than {} bytes", options.max_bytes) : c->easy_strerror(code);
    r.body.clear();
  }
  c->slist_free_all(headers);
  c->easy_cleanup(curl);
  return r;
}

#else

bool http_available() { return false; }

HttpResponse http_request(const std::string&, const std::string&, const std::string&, const HttpOptions&) {
  HttpResponse r;
  r.error = "tileperf was built without libcurl's headers (Debian: libcurl4-openssl-dev)";
  return r;
}

#endif

}  // namespace tileperf
