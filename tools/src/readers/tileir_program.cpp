#include "readers/tileir_program.h"

#include <algorithm>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "readers/tileir_literals.h"
#include "support/error.h"
#include "support/text.h"

namespace tileperf {

namespace {

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' ||
         c == '.' || c == '-';
}

bool is_digit_char(char c) { return c >= '0' && c <= '9'; }

// The end of the value name that starts at `at` ('%'), with a "#N" result
// index included.
std::size_t name_end(std::string_view s, std::size_t at) {
  std::size_t end = at + 1;
  while (end < s.size() && is_name_char(s[end])) ++end;
  if (end + 1 < s.size() && s[end] == '#' && is_digit_char(s[end + 1])) {
    ++end;
    while (end < s.size() && is_digit_char(s[end])) ++end;
  }
  return end;
}

// The position of `what` in `s` at nesting depth 0 of (), [], <> and {},
// from `from`; npos when there is none.
std::size_t find_top(std::string_view s, std::string_view what, std::size_t from = 0) {
  int depth = 0;
  for (std::size_t i = from; i < s.size(); ++i) {
    char c = s[i];
    if (depth == 0 && s.compare(i, what.size(), what) == 0) return i;
    if (c == '(' || c == '[' || c == '<' || c == '{') ++depth;
    if ((c == ')' || c == ']' || c == '>' || c == '}') && depth > 0) {
      // "->" is not a closing bracket.
      if (!(c == '>' && i > 0 && s[i - 1] == '-')) --depth;
    }
  }
  return std::string_view::npos;
}

std::size_t rfind_top(std::string_view s, std::string_view what) {
  std::size_t found = std::string_view::npos;
  for (std::size_t at = find_top(s, what); at != std::string_view::npos; at = find_top(s, what, at + 1)) {
    found = at;
  }
  return found;
}

std::vector<std::string_view> split_top(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t begin = 0;
  std::string_view separator(&sep, 1);
  for (std::size_t at = find_top(s, separator); at != std::string_view::npos; at = find_top(s, separator, begin)) {
    out.push_back(trim_view(s.substr(begin, at - begin)));
    begin = at + 1;
  }
  out.push_back(trim_view(s.substr(begin)));
  return out;
}

// The types of an operation's results, from its signature: those after
// "->" ("tile<i32> -> tile<i1>", "-> (tile<f32>, token)"); without one, the
// signature lists the operands' types and the last is the results' (select's
// "tile<i1>, tile<i32>", mmaf's three tiles, one type for all of
// get_tile_block_id's results).
std::vector<IrType> result_types(std::string_view signature) {
  std::vector<IrType> out;
  std::size_t arrow = rfind_top(signature, "->");
  std::string_view types = trim_view(arrow == std::string_view::npos ? signature : signature.substr(arrow + 2));
  if (types.size() >= 2 && types.front() == '(' && types.back() == ')') types = types.substr(1, types.size() - 2);
  if (types.empty()) return out;
  for (auto t : split_top(types, ',')) out.push_back(ir_type(t));
  if (arrow == std::string_view::npos) out = {out.back()};
  return out;
}

std::optional<std::int64_t> integer_literal(std::string_view s) {
  s = trim_view(s);
  bool negative = !s.empty() && s[0] == '-';
  if (negative) s.remove_prefix(1);
  auto n = parse_count(s, std::int64_t(1) << 62);
  if (!n) return std::nullopt;
  return negative ? -*n : *n;
}

// "tile=(1x1x64x64)" and "dim_map=[0, 1, 3, 2]" of a partition view's type.
void partition_shape(std::string_view type, IrOp& op) {
  auto at = type.find("tile=(");
  if (at == std::string_view::npos) return;
  auto close = type.find(')', at);
  if (close == std::string_view::npos) return;
  for (const auto& d : split(std::string(type.substr(at + 6, close - at - 6)), 'x')) {
    auto n = integer_literal(d);
    op.tile.push_back(n ? *n : 0);
  }
  at = type.find("dim_map=[", close);
  if (at == std::string_view::npos) return;
  close = type.find(']', at);
  if (close == std::string_view::npos) return;
  for (auto d : split_top(type.substr(at + 9, close - at - 9), ',')) {
    auto n = integer_literal(d);
    op.dim_map.push_back(n ? *n : -1);
  }
}

}  // namespace

bool is_integer(IrType t) { return t >= IrType::kI1 && t <= IrType::kI64; }
bool is_float(IrType t) { return t >= IrType::kF16 && t <= IrType::kF64; }

int integer_bits(IrType t) {
  switch (t) {
    case IrType::kI1:
      return 1;
    case IrType::kI8:
      return 8;
    case IrType::kI16:
      return 16;
    case IrType::kI32:
      return 32;
    case IrType::kI64:
      return 64;
    default:
      return 0;
  }
}

IrType ir_type(std::string_view type) {
  type = trim_view(type);
  if (type.rfind("tensor_view<", 0) == 0) return IrType::kTensorView;
  if (type.rfind("partition_view<", 0) == 0) return IrType::kPartitionView;
  if (type.rfind("tile<", 0) != 0 || type.back() != '>') return IrType::kOther;
  std::string_view e = type.substr(5, type.size() - 6);
  if (e == "i1") return IrType::kI1;
  if (e == "i8") return IrType::kI8;
  if (e == "i16") return IrType::kI16;
  if (e == "i32") return IrType::kI32;
  if (e == "i64") return IrType::kI64;
  if (e == "f16") return IrType::kF16;
  if (e == "bf16") return IrType::kBF16;
  if (e == "f32" || e == "tf32") return IrType::kF32;
  if (e == "f64") return IrType::kF64;
  return IrType::kOther;
}

std::string TileIrProgram::where(const IrOp& op) const {
  const IrLocation* l = location_of(op);
  if (l && l->known()) return fmt::format("{}:{}", file_name(l->file), l->line);
  return fmt::format("{}:{}", file_name(file), op.listing_line);
}

TileIrProgramBuilder::TileIrProgramBuilder(std::string file) { p_.file = std::move(file); }

void TileIrProgramBuilder::fail(int lineno, const std::string& what) const { throw InputError(p_.file, lineno, what); }

int TileIrProgramBuilder::new_value(std::string name, IrType type, int op, bool undefined) {
  if (p_.values.size() >= kMaxTileIrValues)
    fail(lineno_, fmt::format("more than {} values in one listing", kMaxTileIrValues));
  int id = static_cast<int>(p_.values.size());
  p_.values.push_back({std::move(name), type, op, undefined});
  return id;
}

int TileIrProgramBuilder::define(const std::string& name, IrType type, int op, bool in_scope) {
  int id = new_value(name, type, op, false);
  if (in_scope && !open_.empty()) {
    open_.back().names.push_back(name);
    visible_[name].push_back(id);
  }
  return id;
}

int TileIrProgramBuilder::use(std::string_view name) {
  if (auto it = visible_.find(std::string(name)); it != visible_.end() && !it->second.empty()) {
    return it->second.back();
  }
  return new_value(std::string(name), IrType::kOther, -1, true);
}

void TileIrProgramBuilder::open_region(int op, std::vector<int> arguments) {
  Open o;
  o.op = op;
  o.region.arguments = std::move(arguments);
  // The arguments were defined before the region opened: they belong to it.
  for (int a : o.region.arguments) {
    const std::string& name = p_.values[static_cast<std::size_t>(a)].name;
    o.names.push_back(name);
    visible_[name].push_back(a);
  }
  open_.push_back(std::move(o));
}

TileIrProgramBuilder::Open TileIrProgramBuilder::close_region() {
  Open done = std::move(open_.back());
  open_.pop_back();
  for (auto it = done.names.rbegin(); it != done.names.rend(); ++it) {
    auto found = visible_.find(*it);
    found->second.pop_back();
    if (found->second.empty()) visible_.erase(found);
  }
  return done;
}

std::vector<int> TileIrProgramBuilder::define_results(std::string_view results, const std::vector<IrType>& types,
                                                      int op) {
  std::vector<int> out;
  for (auto r : split_top(results, ',')) {
    if (r.empty() || r[0] != '%') continue;
    std::size_t end = name_end(r, 0);
    std::string base(r.substr(0, end));
    std::int64_t count = 1;
    if (end < r.size() && r[end] == ':') {
      auto n = parse_count(r.substr(end + 1), std::numeric_limits<std::int64_t>::max());
      if (!n || *n == 0) fail(lineno_, fmt::format("'{}' declares no number of results", std::string(r)));
      count = *n;
    }
    if (count > kMaxTileIrResults || static_cast<std::int64_t>(out.size()) + count > kMaxTileIrResults) {
      fail(lineno_, fmt::format("more than {} results declared on one line", kMaxTileIrResults));
    }
    for (std::int64_t i = 0; i < count; ++i) {
      std::size_t k = out.size();
      IrType t = types.empty() ? IrType::kOther : types[std::min(k, types.size() - 1)];
      out.push_back(define(count > 1 ? fmt::format("{}#{}", base, i) : base, t, op));
    }
  }
  return out;
}

void TileIrProgramBuilder::read_constant(IrType type, IrOp& op) const {
  if (!is_integer(type) && !is_float(type)) return;  // a tile's: not a scalar the evaluator computes
  ScalarLiteral v = is_integer(type) ? read_integer_literal(op.literal, integer_bits(type))
                                     : read_float_literal(op.literal, type == IrType::kF16    ? 16
                                                                      : type == IrType::kBF16 ? -16
                                                                      : type == IrType::kF64  ? 64
                                                                                              : 32);
  if (!v.error.empty()) fail(lineno_, v.error);
  op.has_value = true;
  op.int_value = v.integer;
  op.float_value = v.real;
}

void TileIrProgramBuilder::iter_values(std::string_view text, const std::vector<IrType>& types, IrOp& op,
                                       std::vector<int>& arguments) {
  auto iter = text.find("iter_values(");
  if (iter == std::string_view::npos) return;
  std::size_t end = find_top(text, ")", iter + 12);
  std::size_t k = 0;
  for (auto pair : split_top(text.substr(iter + 12, end - iter - 12), ',')) {
    auto eq = pair.find('=');
    if (eq == std::string_view::npos) continue;
    std::string_view init = trim_view(pair.substr(eq + 1));
    op.operands.push_back(use(init.substr(0, name_end(init, 0))));
    IrType t = k < types.size() ? types[k] : IrType::kOther;
    arguments.push_back(define(std::string(trim_view(pair.substr(0, eq))), t, -1, false));
    ++k;
  }
}

void TileIrProgramBuilder::entry(std::string_view line, int lineno) {
  lineno_ = lineno;
  auto at = line.find('@');
  auto open = line.find('(', at);
  p_.entry = std::string(line.substr(at + 1, open - at - 1));
  auto close = find_top(line, ")", open + 1);
  std::vector<int> args;
  if (open != std::string_view::npos && close != std::string_view::npos) {
    for (auto a : split_top(line.substr(open + 1, close - open - 1), ',')) {
      auto colon = a.find(':');
      if (a.empty() || a[0] != '%' || colon == std::string_view::npos) continue;
      args.push_back(new_value(std::string(trim_view(a.substr(0, colon))), ir_type(a.substr(colon + 1)), -1, false));
    }
  }
  open_region(-1, args);
}

std::string_view TileIrProgramBuilder::for_header(std::string_view rest, IrOp& op, std::vector<IrType>& types,
                                                  std::vector<int>& region_arguments) {
  // for %iv in (%lb to %ub, step %s) [unsigned] : tile<i32> [iter_values(%a = %x, ...)] [-> (types)]
  std::size_t iv_end = rest.find(' ');
  std::string iv(trim_view(rest.substr(0, iv_end)));
  std::size_t open = rest.find('('), close = find_top(rest, ")", open + 1);
  std::string_view range = open != std::string_view::npos && close != std::string_view::npos
                               ? rest.substr(open + 1, close - open - 1)
                               : std::string_view();
  for (std::size_t at = range.find('%'); at != std::string_view::npos; at = range.find('%', name_end(range, at))) {
    op.operands.push_back(use(range.substr(at, name_end(range, at) - at)));
  }
  std::string_view after = close != std::string_view::npos ? rest.substr(close + 1) : std::string_view();
  op.unsigned_compare = after.find("unsigned") != std::string_view::npos;
  std::size_t colon = after.find(": ");
  std::string_view iv_type = colon == std::string_view::npos ? "" : after.substr(colon + 2);
  iv_type = iv_type.substr(0, iv_type.find(' '));
  types = result_types(after.substr(
      std::min(after.size(), after.find("->") == std::string_view::npos ? after.size() : after.find("->"))));
  region_arguments.push_back(define(iv, ir_type(iv_type), -1, false));
  iter_values(after, types, op, region_arguments);
  return {};
}

std::string_view TileIrProgramBuilder::signature(std::string_view rest, IrOp& op, std::vector<IrType>& types) {
  std::string_view operands_text = rest;
  std::size_t colon = find_top(rest, " : ");
  if (colon == std::string_view::npos && rest.rfind(": ", 0) == 0) colon = 0;  // "make_token : token"
  std::string_view signature;
  if (colon != std::string_view::npos) {
    operands_text = rest.substr(0, colon);
    signature = rest.substr(colon + (colon == 0 ? 2 : 3));
  }
  if (op.name == "if") {
    std::size_t arrow = find_top(rest, "->");
    if (arrow != std::string_view::npos) {
      types = result_types(rest.substr(arrow));
      operands_text = rest.substr(0, arrow);
    }
  } else {
    types = result_types(signature);
  }
  if (op.name == "make_partition_view") partition_shape(signature, op);
  if (op.name == "constant") {
    std::size_t open = operands_text.find('<');
    if (open != std::string_view::npos) {
      std::size_t close = operands_text.rfind('>');
      op.literal = std::string(
          operands_text.substr(open, close == std::string_view::npos ? std::string_view::npos : close - open + 1));
    }
    operands_text = {};
    if (types.size() == 1) read_constant(types[0], op);
  }
  return operands_text;
}

std::string_view TileIrProgramBuilder::tensor_view_dims(std::string_view operands_text, IrOp& op) {
  // make_tensor_view %ptr, shape = [%a, 64], strides = [%s, 1]
  auto list = [&](std::string_view key, std::vector<IrDim>& into) {
    auto at = operands_text.find(key);
    if (at == std::string_view::npos) return;
    auto open = operands_text.find('[', at), close = operands_text.find(']', at);
    if (open == std::string_view::npos || close == std::string_view::npos) return;
    for (auto d : split_top(operands_text.substr(open + 1, close - open - 1), ',')) {
      if (d.empty()) continue;
      IrDim dim;
      if (d[0] == '%') {
        dim.value = use(d.substr(0, name_end(d, 0)));
      } else if (auto n = integer_literal(d)) {
        dim.constant = *n;
      }
      into.push_back(dim);
    }
  };
  list("shape", op.shape);
  list("strides", op.strides);
  return operands_text.substr(0, operands_text.find(','));
}

void TileIrProgramBuilder::operands(std::string_view operands_text, IrOp& op) {
  std::string words;
  for (std::size_t i = 0; i < operands_text.size();) {
    if (operands_text[i] == '%') {
      std::size_t end = name_end(operands_text, i);
      op.operands.push_back(use(operands_text.substr(i, end - i)));
      i = end;
      continue;
    }
    words += operands_text[i];
    ++i;
  }
  op.attributes = std::string(trim_view(words));
}

int TileIrProgramBuilder::operation(std::string_view results, std::string_view name, std::string_view rest, int lineno,
                                    const std::string& loc, bool opens) {
  lineno_ = lineno;
  if (p_.ops.size() >= kMaxTileIrOperations) {
    fail(lineno, fmt::format("more than {} operations in one listing", kMaxTileIrOperations));
  }
  int index = static_cast<int>(p_.ops.size());
  p_.ops.emplace_back();
  IrOp op;
  op.name = std::string(name);
  op.listing_line = lineno;
  rest = trim_view(rest);
  if (opens && !rest.empty() && rest.back() == '{') rest = trim_view(rest.substr(0, rest.size() - 1));
  std::vector<int> region_arguments;
  std::vector<IrType> types;
  std::string_view operands_text;
  if (op.name == "for") {
    operands_text = for_header(rest, op, types, region_arguments);
  } else if (op.name == "loop") {
    // loop [iter_values(%a = %x, ...) : types -> types]
    types = result_types(rest);
    iter_values(rest, types, op, region_arguments);
  } else {
    operands_text = signature(rest, op, types);
  }
  if (op.name == "make_tensor_view") operands_text = tensor_view_dims(operands_text, op);
  operands(operands_text, op);  // the operands, and the words between them
  op.results = define_results(results, types, index);
  p_.ops[static_cast<std::size_t>(index)] = std::move(op);
  if (!open_.empty()) open_.back().region.ops.push_back(index);
  if (!loc.empty()) op_locs_.emplace_back(index, loc);
  last_op_ = index;
  if (opens) open_region(index, region_arguments);
  return index;
}

void TileIrProgramBuilder::block_arguments(std::string_view line) {
  std::vector<int> args;
  std::string_view inner = line.substr(1, line.rfind(')') - 1);
  for (auto a : split_top(inner, ',')) {
    auto colon = a.find(':');
    if (a.empty() || a[0] != '%' || colon == std::string_view::npos) continue;
    args.push_back(new_value(std::string(trim_view(a.substr(0, colon))), ir_type(a.substr(colon + 1)), -1, false));
  }
  open_region(last_op_, args);
}

void TileIrProgramBuilder::else_region() {
  if (open_.empty()) return;
  Open done = close_region();
  if (done.op >= 0) p_.ops[static_cast<std::size_t>(done.op)].regions.push_back(std::move(done.region));
  open_region(done.op, {});
}

void TileIrProgramBuilder::close(const std::string& loc) {
  if (open_.empty()) return;
  Open done = close_region();
  if (done.op < 0) {
    if (p_.body.ops.empty()) p_.body = std::move(done.region);  // the first entry's
    return;
  }
  p_.ops[static_cast<std::size_t>(done.op)].regions.push_back(std::move(done.region));
  if (!loc.empty()) op_locs_.emplace_back(done.op, loc);
}

void TileIrProgramBuilder::location_definition(const std::string& name, const std::string& text, int lineno) {
  loc_defs_.emplace(name, LocationDefinition{text, lineno});  // the first definition of a name holds
}

namespace {

// loc("file":line:col)
IrLocation file_location(const std::string& d) {
  auto close = d.find("\":", 5);
  if (close == std::string::npos) return {};
  IrLocation out;
  out.file = d.substr(5, close - 5);
  auto parts = split(d.substr(close + 2, d.find(')', close) - close - 2), ':');
  if (!parts.empty()) out.line = static_cast<int>(parse_count(parts[0], 1 << 30).value_or(0));
  if (parts.size() > 1) out.column = static_cast<int>(parse_count(parts[1], 1 << 30).value_or(0));
  return out;
}

// The first "#locN" named in `d` from `from`, or "".
std::string first_ref(const std::string& d, std::size_t from) {
  auto at = d.find("#loc", from);
  if (at == std::string::npos) return "";
  std::size_t end = at + 1;
  while (end < d.size() && is_name_char(d[end]) && d[end] != '.' && d[end] != '-') ++end;
  return d.substr(at, end - at);
}

}  // namespace

// A location name resolved to a file, line and the call sites it was
// inlined through; each name once (a name that refers to itself, or a
// chain deeper than kMaxTileIrNesting names, is an error at its line).
IrLocation TileIrProgramBuilder::resolve(const std::string& ref, int depth) {
  auto it = loc_defs_.find(ref);
  if (it == loc_defs_.end()) return {};
  if (auto done = resolved_.find(ref); done != resolved_.end()) return done->second;
  const std::string& d = it->second.text;
  if (depth > kMaxTileIrNesting) {
    fail(it->second.lineno,
         fmt::format("location {} refers to locations nested deeper than {} (or to itself)", ref, kMaxTileIrNesting));
  }
  IrLocation out;
  if (d.rfind("loc(\"", 0) == 0) {
    out = file_location(d);
  } else if (d.rfind("loc(callsite(", 0) == 0) {  // loc(callsite(#callee at #caller))
    auto at = d.find(" at ");
    out = resolve(first_ref(d, 0), depth + 1);
    if (at != std::string::npos) {
      IrLocation caller = resolve(first_ref(d, at), depth + 1);
      if (caller.known()) out.calls.emplace_back(caller.file, caller.line);
      out.calls.insert(out.calls.end(), caller.calls.begin(), caller.calls.end());
    }
    if (out.calls.size() > kMaxTileIrCallSites) {
      fail(it->second.lineno,
           fmt::format("location {} is inlined through more than {} call sites", ref, kMaxTileIrCallSites));
    }
  } else if (std::string first = first_ref(d, 0); !first.empty()) {
    out = resolve(first, depth + 1);  // di_loc<#locN in ...>, loc(fused[...]): the first location named inside
  }
  resolved_.emplace(ref, out);
  return out;
}

TileIrProgram TileIrProgramBuilder::finish() {
  while (!open_.empty()) close("");
  std::unordered_map<std::string, int> index;  // location name -> p_.locations (-1: unknown)
  for (const auto& [op, ref] : op_locs_) {
    auto [it, fresh] = index.emplace(ref, -1);
    if (fresh) {
      IrLocation l = resolve(ref, 0);
      if (l.known()) {
        it->second = static_cast<int>(p_.locations.size());
        p_.locations.push_back(std::move(l));
      }
    }
    p_.ops[static_cast<std::size_t>(op)].location = it->second;
  }
  return std::move(p_);
}

}  // namespace tileperf
