#include "tileir.h"

#include <optional>
#include <string_view>
#include <vector>
#include <set>

#include "error.h"
#include "text.h"

namespace tileperf {

namespace {

bool is_word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

bool is_op_char(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.'; }

std::size_t run_of(std::string_view s, std::size_t from, bool (*pred)(char)) {
  while (from < s.size() && pred(s[from])) ++from;
  return from;
}

// "entry @gelu(%arg0: ...) ... {"
bool is_entry(std::string_view line) {
  if (line.rfind("entry @", 0) != 0 || line.back() != '{') return false;
  std::size_t end = run_of(line, 7, [](char c) { return is_word_char(c) || c == '.' || c == '$'; });
  return end > 7 && end < line.size() && line[end] == '(';
}

// "(%iv: tile<i32>) {": the arguments of a region's block.
bool is_block_arguments(std::string_view line) {
  if (line.empty() || line.front() != '(' || line.back() != '{') return false;
  return trim(line.substr(0, line.size() - 1)).back() == ')';
}

struct Operation {
  std::string results, name, rest;
};

// "%a, %b = name rest" or "name rest"; nothing for another line.
std::optional<Operation> operation(std::string_view line) {
  Operation op;
  if (!line.empty() && line.front() == '%') {
    auto eq = line.find('=');
    if (eq == std::string_view::npos || eq < 2 || line[eq - 1] != ' ' || eq + 1 >= line.size() ||
        line[eq + 1] != ' ') {
      return std::nullopt;
    }
    op.results = line.substr(0, eq - 1);
    line = line.substr(eq + 2);
  }
  if (line.empty() || !((line[0] >= 'a' && line[0] <= 'z') || line[0] == '_')) return std::nullopt;
  std::size_t end = run_of(line, 1, is_op_char);
  if (end < line.size() && is_word_char(line[end])) return std::nullopt;
  op.name = line.substr(0, end);
  op.rest = line.substr(end);
  return op;
}

// The token of "... token = %t ...", or "".
std::string token_operand(std::string_view rest) {
  constexpr std::string_view kToken = "token = %";
  for (auto at = rest.find(kToken); at != std::string_view::npos; at = rest.find(kToken, at + 1)) {
    if (at > 0 && is_word_char(rest[at - 1])) continue;
    std::size_t begin = at + kToken.size();
    std::size_t end = run_of(rest, begin, [](char c) { return is_word_char(c) || c == '#'; });
    if (end > begin) return std::string(rest.substr(begin - 1, end - begin + 1));
  }
  return "";
}

// Each "%name" in the results of an operation.
std::vector<std::string> result_names(std::string_view results) {
  std::vector<std::string> out;
  for (auto at = results.find('%'); at != std::string_view::npos; at = results.find('%', at + 1)) {
    std::size_t end = run_of(results, at + 1, is_word_char);
    if (end > at + 1) out.emplace_back(results.substr(at, end - at));
  }
  return out;
}

}  // namespace

TileIrStats parse_tileir(const std::string& text, const std::string& filename) {
  TileIrStats stats;
  std::set<std::string> fresh_tokens;  // results of make_token
  int depth = 0, lineno = 0, last = 0;
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
    if (is_entry(line)) {
      if (depth != 0) throw InputError(filename, lineno, "entry inside a region", raw);
      ++stats.entries;
      ++depth;
      continue;
    }
    if (depth == 0) throw InputError(filename, lineno, "operation outside an entry", raw);
    if (is_block_arguments(line)) {
      ++depth;
      continue;
    }
    auto op = operation(line);
    if (!op) throw InputError(filename, lineno, "unrecognized line in TileIR", raw);
    ++stats.ops[op->name];
    if (op->name == "make_token") {
      for (auto& name : result_names(op->results)) fresh_tokens.insert(std::move(name));
    }
    if (std::string token = token_operand(op->rest); !token.empty()) {
      ++stats.token_ordered;
      if (!fresh_tokens.count(token)) ++stats.token_chained;
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
