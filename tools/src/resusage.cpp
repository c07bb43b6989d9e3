#include "resusage.h"

#include <regex>

#include "error.h"
#include "text.h"

namespace tileperf {

namespace {

const std::regex kHeader(R"(^\s*Resource usage:\s*$)");
const std::regex kCommon(R"(^\s*Common:\s*$)");
const std::regex kFunction(R"(^\s*Function (\S+):\s*$)");
const std::regex kValues(R"(^\s*([A-Z_]+(\[[0-9]+\])?:[0-9]+\s*)+$)");
const std::regex kPair(R"(([A-Z_]+(?:\[[0-9]+\])?):([0-9]+))");
const char* const kRequired[] = {"REG", "STACK", "SHARED", "LOCAL"};

std::map<std::string, std::int64_t> parse_values(const std::string& line) {
  std::map<std::string, std::int64_t> out;
  for (std::sregex_iterator it(line.begin(), line.end(), kPair), end; it != end; ++it) {
    out[(*it)[1]] = std::stoll((*it)[2]);
  }
  return out;
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
  std::smatch m;
  while (std::getline(in, line)) {
    ++lineno;
    if (is_blank(line)) continue;
    if (expect != Expect::kAny) {
      if (!std::regex_match(line, kValues)) {
        throw InputError(filename, lineno, "expected KEY:VALUE resource counts", line);
      }
      auto values = parse_values(line);
      if (expect == Expect::kCommonValues) {
        usage.common = std::move(values);
      } else {
        for (const char* key : kRequired) {
          if (!values.count(key)) {
            throw InputError(filename, lineno,
                             std::string("resource counts lack ") + key, line);
          }
        }
        usage.functions.back().values = std::move(values);
      }
      expect = Expect::kAny;
    } else if (std::regex_match(line, kHeader)) {
      seen_header = true;
    } else if (seen_header && std::regex_match(line, kCommon)) {
      expect = Expect::kCommonValues;
    } else if (seen_header && std::regex_match(line, m, kFunction)) {
      usage.functions.push_back(FunctionResources{m[1], {}});
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
