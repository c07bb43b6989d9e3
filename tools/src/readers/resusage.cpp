#include "readers/resusage.h"

#include <algorithm>
#include <optional>
#include <string_view>

#include "support/error.h"
#include "support/text.h"

namespace tileperf {

namespace {

const char* const kRequired[] = {"REG", "STACK", "SHARED", "LOCAL"};
constexpr std::int64_t kMaxValue = std::int64_t(1) << 40;

bool is_key_char(char c) { return (c >= 'A' && c <= 'Z') || c == '_'; }

// "CONSTANT[0]:928" -> ("CONSTANT[0]", 928), or nothing.
std::optional<std::pair<std::string, std::int64_t>> parse_pair(std::string_view item) {
  auto colon = item.rfind(':');
  if (colon == std::string_view::npos) return std::nullopt;
  std::string_view key = item.substr(0, colon);
  auto bracket = key.find('[');
  std::string_view word = key.substr(0, bracket);
  if (word.empty() || !std::all_of(word.begin(), word.end(), is_key_char)) return std::nullopt;
  if (bracket != std::string_view::npos) {
    std::string_view index = key.substr(bracket + 1);
    if (index.size() < 2 || index.back() != ']' || !std::all_of(index.begin(), index.end() - 1, is_digit)) {
      return std::nullopt;
    }
  }
  auto value = parse_count(item.substr(colon + 1), kMaxValue);
  if (!value) return std::nullopt;
  return std::make_pair(std::string(key), *value);
}

// "REG:40 STACK:0 ...": every item a KEY:VALUE count, or nothing.
std::optional<std::map<std::string, std::int64_t>> parse_values(const std::string& line) {
  std::map<std::string, std::int64_t> out;
  for (const auto& item : split(trim(line), ' ')) {
    if (item.empty()) continue;
    auto pair = parse_pair(trim(item));
    if (!pair) return std::nullopt;
    out[pair->first] = pair->second;
  }
  if (out.empty()) return std::nullopt;
  return out;
}

// "Function gelu_f16:": the name, or nothing.
std::optional<std::string> function_header(const std::string& line) {
  std::string t = trim(line);
  constexpr std::string_view kPrefix = "Function ";
  if (t.rfind(kPrefix, 0) != 0 || t.size() <= kPrefix.size() + 1 || t.back() != ':') return std::nullopt;
  std::string name = t.substr(kPrefix.size(), t.size() - kPrefix.size() - 1);
  if (name.find_first_of(" \t") != std::string::npos) return std::nullopt;
  return name;
}

}  // namespace

std::int64_t FunctionResources::get(const std::string& key) const {
  auto it = values.find(key);
  return it == values.end() ? 0 : it->second;
}

ResourceUsage parse_resource_usage(std::istream& in, const std::string& filename) {
  ResourceUsage usage;
  enum class Expect { kAny, kCommonValues, kFunctionValues } expect = Expect::kAny;
  bool seen_header = false;
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (is_blank(line)) continue;
    if (expect != Expect::kAny) {
      auto parsed = parse_values(line);
      if (!parsed) {
        throw InputError(filename, lineno, "expected KEY:VALUE resource counts", line);
      }
      auto values = std::move(*parsed);
      if (expect == Expect::kCommonValues) {
        usage.common = std::move(values);
      } else {
        for (const char* key : kRequired) {
          if (!values.count(key)) {
            throw InputError(filename, lineno, std::string("resource counts lack ") + key, line);
          }
        }
        usage.functions.back().values = std::move(values);
      }
      expect = Expect::kAny;
    } else if (trim(line) == "Resource usage:") {
      seen_header = true;
    } else if (seen_header && trim(line) == "Common:") {
      expect = Expect::kCommonValues;
    } else if (auto name = seen_header ? function_header(line) : std::nullopt) {
      usage.functions.push_back(FunctionResources{*name, {}});
      expect = Expect::kFunctionValues;
    } else {
      throw InputError(filename, lineno, "unrecognized line in resource usage", line);
    }
  }
  if (expect != Expect::kAny) {
    throw InputError(filename, lineno, "resource usage is truncated: counts missing at end");
  }
  if (usage.functions.empty()) {
    throw InputError(filename, lineno, "no functions in resource usage");
  }
  return usage;
}

}  // namespace tileperf
