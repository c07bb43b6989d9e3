#include "readers/tileir.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <vector>
#include <set>

#include <fmt/format.h>

#include "support/error.h"
#include "support/text.h"
#include "readers/tileir_program.h"

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
    if (eq == std::string_view::npos || eq < 2 || line[eq - 1] != ' ' || eq + 1 >= line.size() || line[eq + 1] != ' ') {
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

InputError nested_too_deep(const std::string& filename, int lineno, const std::string& raw) {
  return InputError(filename, lineno, fmt::format("regions nested deeper than {} levels", kMaxTileIrNesting), raw);
}

bool is_memory_op(const std::string& name) {
  return name.rfind("load_", 0) == 0 || name.rfind("store_", 0) == 0 || name.rfind("atomic", 0) == 0;
}

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

namespace {

// Each memory operation's enclosing loops (their lines, outermost first),
// from the program's regions.
void enclosing_loops(const TileIrProgram& p, const IrRegion& region, std::vector<int>& loops, bool unknown,
                     TileIrStats& stats) {
  for (int index : region.ops) {
    const IrOp& op = p.ops[static_cast<std::size_t>(index)];
    if (op.memory >= 0) {
      TileMemoryOp& m = stats.memory[static_cast<std::size_t>(op.memory)];
      m.loops = loops;
      m.in_unknown_loop = unknown;
    }
    bool loop = op.name == "for" || op.name == "loop";
    const IrLocation* where = p.location_of(op);
    int line = loop && where ? where->line : 0;
    if (line > 0) loops.push_back(line);
    for (const auto& r : op.regions) enclosing_loops(p, r, loops, unknown || (loop && line == 0), stats);
    if (line > 0) loops.pop_back();
  }
}

}  // namespace

TileIrStats parse_tileir(const std::string& text, const std::string& filename) {
  TileIrStats stats;
  std::set<std::string> fresh_tokens;  // results of make_token
  TileIrProgramBuilder program(filename);
  int depth = 0, lineno = 0, last = 0;
  for (const auto& raw : split(text, '\n')) {
    ++lineno;
    std::string line = trim(raw);
    if (line.empty()) continue;
    last = lineno;
    program.at_line(lineno);
    if (depth == 0 && !line.empty() && line[0] == '#') {  // "#locN = ...", other attribute aliases
      auto eq = line.find(" = ");
      if (eq != std::string::npos) program.location_definition(line.substr(0, eq), line.substr(eq + 3), lineno);
      continue;
    }
    std::string loc = strip_location(line);
    if (line == "}") {
      if (--depth < 0) throw InputError(filename, lineno, "'}' closes no region", raw);
      program.close(loc);
      continue;
    }
    if (line.front() == '}' && line.back() == '{') {  // "} else {": one region for another
      program.else_region();
      continue;
    }
    if (is_entry(line)) {
      if (depth != 0) throw InputError(filename, lineno, "entry inside a region", raw);
      ++stats.entries;
      ++depth;
      program.entry(line, lineno);
      continue;
    }
    if (depth == 0) throw InputError(filename, lineno, "operation outside an entry", raw);
    if (is_block_arguments(line)) {
      if (++depth > kMaxTileIrNesting) throw nested_too_deep(filename, lineno, raw);
      program.block_arguments(line);
      continue;
    }
    auto op = operation(line);
    if (!op) throw InputError(filename, lineno, "unrecognized line in TileIR", raw);
    ++stats.ops[op->name];
    bool opens = !line.empty() && line.back() == '{';
    int index = program.operation(op->results, op->name, op->rest, lineno, loc, opens);
    if (is_memory_op(op->name)) {
      TileMemoryOp m;
      m.name = op->name;
      m.store = op->name.rfind("store_", 0) == 0;
      m.bytes = moved_bytes(op->rest, m.store);
      program.set_memory(index, static_cast<int>(stats.memory.size()));
      stats.memory.push_back(std::move(m));
    }
    if (op->name == "make_token") {
      for (auto& name : result_names(op->results)) fresh_tokens.insert(std::move(name));
    }
    if (std::string token = token_operand(op->rest); !token.empty()) {
      ++stats.token_ordered;
      if (!fresh_tokens.count(token)) ++stats.token_chained;
    }
    if (opens && ++depth > kMaxTileIrNesting) throw nested_too_deep(filename, lineno, raw);
  }
  if (depth != 0) {
    throw InputError(filename, last, "TileIR is truncated: " + std::to_string(depth) + " region(s) not closed");
  }
  if (stats.entries == 0) throw InputError(filename, last, "no entry in TileIR");
  stats.program = program.finish();
  for (const auto& op : stats.program.ops) {
    if (op.memory < 0) continue;
    if (const IrLocation* where = stats.program.location_of(op)) {
      stats.memory[static_cast<std::size_t>(op.memory)].file = where->file;
      stats.memory[static_cast<std::size_t>(op.memory)].line = where->line;
    }
  }
  std::vector<int> loops;
  enclosing_loops(stats.program, stats.program.body, loops, false, stats);
  return stats;
}

}  // namespace tileperf
