#include "support/json_input.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include <fmt/format.h>

#include "support/error.h"
#include "support/text.h"

namespace tileperf {

namespace {

using Json = nlohmann::json;

int line_of_offset(const std::string& text, std::size_t offset) {
  offset = std::min(offset, text.size());
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
}

// Rejects nesting deeper than kMaxJsonDepth before the parser sees it.
void check_depth(const std::string& text, const std::string& filename) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      escaped = !escaped && c == '\\';
      in_string = escaped || c != '"';
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) {
        int line = line_of_offset(text, i);
        throw InputError(filename, line, fmt::format("JSON nested deeper than {} levels", kMaxJsonDepth),
                         line_at(text, line));
      }
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
}

// Follows the parser's events to catch a key that appears twice in one
// object (nlohmann keeps the last one silently).
class DuplicateKeys {
 public:
  explicit DuplicateKeys(const std::string& filename) : filename_(filename) {}

  bool operator()(int /*depth*/, Json::parse_event_t event, Json& parsed) {
    using E = Json::parse_event_t;
    switch (event) {
      case E::object_start:
        keys_.emplace_back();
        break;
      case E::array_start:
        path_.emplace_back("", false);
        break;
      case E::key:
        enter(parsed.get<std::string>());
        break;
      case E::object_end:
        keys_.pop_back();
        end_value();
        break;
      case E::array_end:
        path_.pop_back();
        end_value();
        break;
      case E::value:
        end_value();
        break;
    }
    return true;
  }

 private:
  void enter(const std::string& key) {
    if (!keys_.back().insert(key).second) {
      std::string where;
      for (const auto& [k, is_key] : path_) where += is_key ? k + "." : "";
      throw InputError(filename_, 0, fmt::format("key '{}{}' appears twice", where, key));
    }
    path_.emplace_back(key, true);
  }
  // A value is complete: the key that led to it is done.
  void end_value() {
    if (!path_.empty() && path_.back().second) path_.pop_back();
  }

  const std::string& filename_;
  std::vector<std::set<std::string>> keys_;
  std::vector<std::pair<std::string, bool>> path_;  // keys (true) and arrays (false) around the value
};

// nlohmann's out_of_range 406 ("number overflow parsing '1e400'") has no
// position: find the number in the text.
int line_of_number(const std::string& text, const std::string& what) {
  auto open = what.find('\'');
  auto close = what.rfind('\'');
  if (open == std::string::npos || close <= open) return 0;
  auto at = text.find(what.substr(open + 1, close - open - 1));
  return at == std::string::npos ? 0 : line_of_offset(text, at);
}

std::string without_prefix(const std::string& what) {
  auto close = what.find("] ");
  return close == std::string::npos ? what : what.substr(close + 2);
}

}  // namespace

Json parse_json(const std::string& text, const std::string& filename) {
  check_depth(text, filename);
  try {
    return Json::parse(text, DuplicateKeys(filename));
  } catch (const Json::parse_error& e) {
    int line = line_of_offset(text, e.byte > 0 ? e.byte - 1 : 0);
    std::string what = e.what();
    auto colon = what.find("syntax error");
    throw InputError(filename, line, "invalid JSON: " + (colon == std::string::npos ? what : what.substr(colon)),
                     line_at(text, line));
  } catch (const Json::exception& e) {
    int line = line_of_number(text, e.what());
    throw InputError(filename, line, "invalid JSON: " + without_prefix(e.what()), line > 0 ? line_at(text, line) : "");
  }
}

std::string json_string(const Json& object, const std::string& key, const std::string& filename) {
  if (!object.is_object() || !object.contains(key) || !object.at(key).is_string()) {
    throw InputError(filename, 0, "key '" + key + "' must be a string");
  }
  return object.at(key).get<std::string>();
}

std::string json_optional_string(const Json& object, const std::string& key, const std::string& filename) {
  return object.is_object() && object.contains(key) ? json_string(object, key, filename) : "";
}

double json_number(const Json& object, const std::string& key, const std::string& filename, const std::string& place,
                   bool whole) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_number() || (whole && !it->is_number_integer())) {
    throw InputError(filename, 0, place + "." + key + (whole ? " must be an integer" : " must be a number"));
  }
  return it->get<double>();
}

std::int64_t json_count(const Json& value, const std::string& filename, const std::string& key) {
  if (value.is_number_unsigned() && value.get<std::uint64_t>() <= std::uint64_t(kMaxCount)) {
    return static_cast<std::int64_t>(value.get<std::uint64_t>());
  }
  if (value.is_number_integer() && value.get<std::int64_t>() >= 0 && value.get<std::int64_t>() <= kMaxCount) {
    return value.get<std::int64_t>();
  }
  throw InputError(filename, 0,
                   fmt::format("key '{}' must be an integer from 0 to {}, got {}", key, kMaxCount, value.dump()));
}

std::map<std::string, std::int64_t> json_counts(const Json& object, const std::string& filename,
                                                const std::string& key) {
  if (!object.is_object()) throw InputError(filename, 0, fmt::format("key '{}' must be an object", key));
  std::map<std::string, std::int64_t> out;
  for (const auto& [name, value] : object.items()) out[name] = json_count(value, filename, key + "." + name);
  return out;
}

std::int64_t saturated_count(double v) {
  if (!(v > 0)) return 0;
  if (v >= static_cast<double>(kMaxCount)) return kMaxCount;
  return std::llround(v);
}

}  // namespace tileperf
