#include "readers/tileir.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <vector>
#include <set>

#include "support/error.h"
#include "support/text.h"

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

// " loc(#loc47)" at the end of a line: removed, and the location's name
// returned ("#loc47"; "" when there is none).
std::string strip_location(std::string& line) {
  if (line.empty() || line.back() != ')') return "";
  auto at = line.rfind(" loc(");
  if (at == std::string::npos) return "";
  std::string ref = line.substr(at + 5, line.size() - at - 6);
  line = trim(line.substr(0, at));
  return ref.rfind("#loc", 0) == 0 ? ref : "";
}

struct SourceLoc {
  std::string file;
  int line = 0;
};

// The table of "#locN = ..." definitions after the entries.
class Locations {
 public:
  // Whether `line` is a definition ("#name = ..."), which it then records.
  bool add(const std::string& line) {
    if (line.empty() || line[0] != '#') return false;
    auto eq = line.find(" = ");
    if (eq == std::string::npos) return true;  // another attribute alias: nothing to keep
    defs_[line.substr(0, eq)] = line.substr(eq + 3);
    return true;
  }

  SourceLoc resolve(const std::string& ref, int depth = 0) const {
    auto it = defs_.find(ref);
    if (it == defs_.end() || depth > 32) return {};
    const std::string& d = it->second;
    if (d.rfind("loc(\"", 0) == 0) {  // loc("file":line:col)
      auto close = d.find("\":", 5);
      if (close == std::string::npos) return {};
      SourceLoc out{d.substr(5, close - 5), 0};
      auto n = parse_count(d.substr(close + 2, d.find(':', close + 2) - close - 2), 1 << 30);
      out.line = n ? static_cast<int>(*n) : 0;
      return out;
    }
    // di_loc<#locN in ...>, loc(callsite(#locA at #locB)), loc(fused[...]):
    // the first location named inside.
    auto at = d.find("#loc");
    if (at == std::string::npos) return {};
    std::size_t end = run_of(d, at + 1, is_word_char);
    return resolve(d.substr(at, end - at), depth + 1);
  }

 private:
  std::map<std::string, std::string> defs_;
};

// The type a memory operation moves: for a load the first tile type after
// "->", for a store the first after " : ".
std::int64_t moved_bytes(const std::string& rest, bool store) {
  std::size_t from = store ? rest.find(" : ") : rest.find("->");
  if (from == std::string::npos) return 0;
  auto at = rest.find("tile<", from);
  if (at == std::string::npos) return 0;
  int open = 0;
  std::size_t end = at + 4;
  for (; end < rest.size(); ++end) {
    if (rest[end] == '<') ++open;
    if (rest[end] == '>' && --open == 0) break;
  }
  return end < rest.size() ? tile_type_bytes(std::string_view(rest).substr(at, end - at + 1)) : 0;
}

bool is_memory_op(const std::string& name) {
  return name.rfind("load_", 0) == 0 || name.rfind("store_", 0) == 0 || name.rfind("atomic", 0) == 0;
}

struct Region {
  bool loop = false;
  std::vector<std::size_t> ops;  // memory operations inside (indices into stats.memory)
};

}  // namespace

std::int64_t tile_type_bytes(std::string_view type) {
  if (type.rfind("tile<", 0) != 0 || type.back() != '>') return 0;
  std::string_view inner = type.substr(5, type.size() - 6);
  std::int64_t elements = 1;
  std::size_t x;
  while ((x = inner.find('x')) != std::string_view::npos && x > 0 && is_digit(inner[0])) {
    auto n = parse_count(inner.substr(0, x), std::int64_t(1) << 24);
    if (!n) return 0;
    elements *= *n;
    inner.remove_prefix(x + 1);
  }
  if (inner.rfind("ptr<", 0) == 0) return elements * 8;  // a tile of pointers
  std::size_t digits = inner.find_first_of("0123456789");
  if (digits == std::string_view::npos) return 0;
  auto bits = parse_count(inner.substr(digits, run_of(inner, digits, [](char c) { return is_digit(c); }) - digits), 64);
  if (!bits || *bits == 0) return 0;
  std::int64_t b = std::max<std::int64_t>(*bits, 8 * (*bits == 1));
  return elements * b / 8;
}

TileIrStats parse_tileir(const std::string& text, const std::string& filename) {
  TileIrStats stats;
  std::set<std::string> fresh_tokens;  // results of make_token
  Locations locations;
  std::vector<Region> regions;
  // Each memory operation's location, and each loop's with the operations inside.
  std::vector<std::string> op_loc;
  std::vector<std::pair<std::string, std::vector<std::size_t>>> loops;
  int depth = 0, lineno = 0, last = 0;
  auto close_region = [&](const std::string& loc) {
    if (regions.empty()) return;
    Region r = std::move(regions.back());
    regions.pop_back();
    if (r.loop) loops.emplace_back(loc, r.ops);
    if (!regions.empty()) {
      regions.back().ops.insert(regions.back().ops.end(), r.ops.begin(), r.ops.end());
    }
  };
  for (const auto& raw : split(text, '\n')) {
    ++lineno;
    std::string line = trim(raw);
    if (line.empty()) continue;
    last = lineno;
    if (depth == 0 && locations.add(line)) continue;
    std::string loc = strip_location(line);
    if (line == "}") {
      if (--depth < 0) throw InputError(filename, lineno, "'}' closes no region", raw);
      close_region(loc);
      continue;
    }
    if (line.front() == '}' && line.back() == '{') continue;  // "} else {": one region for another
    if (is_entry(line)) {
      if (depth != 0) throw InputError(filename, lineno, "entry inside a region", raw);
      ++stats.entries;
      ++depth;
      regions.push_back({});
      continue;
    }
    if (depth == 0) throw InputError(filename, lineno, "operation outside an entry", raw);
    if (is_block_arguments(line)) {
      ++depth;
      regions.push_back({});
      continue;
    }
    auto op = operation(line);
    if (!op) throw InputError(filename, lineno, "unrecognized line in TileIR", raw);
    ++stats.ops[op->name];
    if (is_memory_op(op->name)) {
      TileMemoryOp m;
      m.name = op->name;
      m.store = op->name.rfind("store_", 0) == 0;
      m.bytes = moved_bytes(op->rest, m.store);
      regions.back().ops.push_back(stats.memory.size());
      stats.memory.push_back(std::move(m));
      op_loc.push_back(loc);
    }
    if (op->name == "make_token") {
      for (auto& name : result_names(op->results)) fresh_tokens.insert(std::move(name));
    }
    if (std::string token = token_operand(op->rest); !token.empty()) {
      ++stats.token_ordered;
      if (!fresh_tokens.count(token)) ++stats.token_chained;
    }
    if (!line.empty() && line.back() == '{') {
      ++depth;
      regions.push_back({op->name == "for" || op->name == "loop", {}});
    }
  }
  if (depth != 0) {
    throw InputError(filename, last,
                     "TileIR is truncated: " + std::to_string(depth) + " region(s) not closed");
  }
  if (stats.entries == 0) throw InputError(filename, last, "no entry in TileIR");
  for (std::size_t i = 0; i < stats.memory.size(); ++i) {
    SourceLoc where = locations.resolve(op_loc[i]);
    stats.memory[i].file = where.file;
    stats.memory[i].line = where.line;
  }
  // Loops close innermost first: the outermost's line goes first.
  for (auto it = loops.rbegin(); it != loops.rend(); ++it) {
    int line = locations.resolve(it->first).line;
    for (std::size_t i : it->second) {
      if (line > 0) {
        stats.memory[i].loops.push_back(line);
      } else {
        stats.memory[i].in_unknown_loop = true;
      }
    }
  }
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
