#include "tileir.h"

#include <regex>
#include <set>

#include "error.h"
#include "text.h"

namespace tileperf {

namespace {

const std::regex kEntry(R"(^entry @[A-Za-z0-9_.$]+\(.*\{$)");
const std::regex kOperation(R"(^(?:(%[^=]*?) = )?([a-z_][a-z0-9_.]*)\b(.*)$)");
const std::regex kBlockArguments(R"(^\(.*\)\s*\{$)");
const std::regex kTokenOperand(R"(\btoken = (%[A-Za-z0-9_#]+))");
const std::regex kResultName(R"(%[A-Za-z0-9_]+)");

}  // namespace

TileIrStats parse_tileir(const std::string& text, const std::string& filename) {
  TileIrStats stats;
  std::set<std::string> fresh_tokens;  // results of make_token
  int depth = 0, lineno = 0, last = 0;
  std::smatch m;
  for (const auto& raw : split(text, '\n')) {
    ++lineno;
    std::string line = trim(raw);
    if (line.empty()) continue;
    last = lineno;
    if (line == "}") {
      if (--depth < 0) throw InputError(filename, lineno, "'}' closes no region", raw);
      continue;
    }
    if (line.front() == '}' && line.back() == '{') continue;  // "} else {": one region for another
    if (std::regex_match(line, kEntry)) {
      if (depth != 0) throw InputError(filename, lineno, "entry inside a region", raw);
      ++stats.entries;
      ++depth;
      continue;
    }
    if (depth == 0) throw InputError(filename, lineno, "operation outside an entry", raw);
    if (std::regex_match(line, kBlockArguments)) {
      ++depth;
      continue;
    }
    if (!std::regex_match(line, m, kOperation)) {
      throw InputError(filename, lineno, "unrecognized line in TileIR", raw);
    }
    const std::string results = m[1], op = m[2], rest = m[3];
    ++stats.ops[op];
    if (op == "make_token") {
      for (std::sregex_iterator it(results.begin(), results.end(), kResultName), end; it != end; ++it) {
        fresh_tokens.insert(it->str());
      }
    }
    std::smatch token;
    if (std::regex_search(rest, token, kTokenOperand)) {
      ++stats.token_ordered;
      if (!fresh_tokens.count(token[1].str())) ++stats.token_chained;
    }
    if (!line.empty() && line.back() == '{') ++depth;
  }
  if (depth != 0) {
    throw InputError(filename, last,
                     "TileIR is truncated: " + std::to_string(depth) + " region(s) not closed");
  }
  if (stats.entries == 0) throw InputError(filename, last, "no entry in TileIR");
  return stats;
}

std::map<std::string, std::int64_t> tileir_metrics(const TileIrStats& stats) {
  std::map<std::string, std::int64_t> m;
  std::int64_t total = 0;
  for (const auto& [op, n] : stats.ops) {
    m["tileir.op." + op] = n;
    total += n;
  }
  m["tileir.ops"] = total;
  m["tileir.tokens.ordered"] = stats.token_ordered;
  m["tileir.tokens.chained"] = stats.token_chained;
  return m;
}

}  // namespace tileperf
