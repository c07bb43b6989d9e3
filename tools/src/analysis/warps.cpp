#include "analysis/warps.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <map>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "analysis/isa.h"
#include "support/text.h"

namespace tileperf {

namespace {

using Index = std::size_t;

// A register known to hold the thread index shifted right by `shift` bits.
struct ThreadIndex {
  int shift = 0;
  bool operator==(const ThreadIndex&) const = default;
};

enum class Compare { kLt, kLe, kGt, kGe, kEq, kNe };

// A predicate known to hold (thread index >> shift) <compare> value.
struct Condition {
  int shift = 0;
  Compare compare = Compare::kEq;
  std::int64_t value = 0;
  bool operator==(const Condition&) const = default;
};

struct Facts {
  std::map<std::string, ThreadIndex> registers;
  std::map<std::string, Condition> predicates;
  bool operator==(const Facts&) const = default;
};

std::vector<std::string> operand_list(const std::string& operands) {
  std::vector<std::string> out;
  for (auto& part : split(operands, ',')) {
    std::string op = trim(part);
    if (auto dot = op.find(".reuse"); dot != std::string::npos) op.erase(dot);
    out.push_back(op);
  }
  return out;
}

bool is_register(const std::string& op) {
  std::string_view s = op;
  if (s.rfind("UR", 0) == 0)
    s.remove_prefix(2);
  else if (s.rfind("UP", 0) == 0)
    s.remove_prefix(2);
  else if (!s.empty() && (s[0] == 'R' || s[0] == 'P'))
    s.remove_prefix(1);
  else
    return false;
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return is_digit(c); });
}

std::optional<std::int64_t> immediate(const std::string& op) {
  if (op == "RZ" || op == "URZ") return 0;
  if (op.rfind("0x", 0) == 0 && op.size() > 2 && op.size() <= 10) {
    std::int64_t v = 0;
    auto [p, ec] = std::from_chars(op.data() + 2, op.data() + op.size(), v, 16);
    if (ec == std::errc() && p == op.data() + op.size()) return v;
    return std::nullopt;
  }
  return parse_count(op, std::int64_t(1) << 40);
}

std::optional<Compare> compare_of(std::string_view opcode) {
  static const std::pair<const char*, Compare> kCompares[] = {{"LT", Compare::kLt}, {"LE", Compare::kLe},
                                                              {"GT", Compare::kGt}, {"GE", Compare::kGe},
                                                              {"EQ", Compare::kEq}, {"NE", Compare::kNe}};
  for (const auto& [name, c] : kCompares) {
    if (has_modifier(opcode, name)) return c;
  }
  return std::nullopt;
}

Compare negate(Compare c) {
  switch (c) {
    case Compare::kLt:
      return Compare::kGe;
    case Compare::kLe:
      return Compare::kGt;
    case Compare::kGt:
      return Compare::kLe;
    case Compare::kGe:
      return Compare::kLt;
    case Compare::kEq:
      return Compare::kNe;
    case Compare::kNe:
      return Compare::kEq;
  }
  return c;
}

// PLOP3.LUT Pd, PT, a, b, c, lut, 0x0 with one known input and the others
// constant (PT, !PT): Pd is that input or its negation. LUT bit a*4+b*2+c.
std::optional<Condition> predicate_logic(const Facts& f, const std::vector<std::string>& ops) {
  if (ops.size() != 7 || (ops[1] != "PT" && ops[1] != "UPT")) return std::nullopt;
  auto lut = immediate(ops[5]);
  if (!lut) return std::nullopt;
  int known = -1, constants[3] = {0, 0, 0};
  const Condition* condition = nullptr;
  bool negated = false;
  for (int k = 0; k < 3; ++k) {
    std::string op = ops[static_cast<std::size_t>(2 + k)];
    bool neg = !op.empty() && op[0] == '!';
    if (neg) op = op.substr(1);
    if (op == "PT" || op == "UPT") {
      constants[k] = neg ? 0 : 1;
      continue;
    }
    auto it = f.predicates.find(op);
    if (it == f.predicates.end() || known >= 0) return std::nullopt;
    known = k;
    condition = &it->second;
    negated = neg;
  }
  if (known < 0) return std::nullopt;
  auto eval = [&](int x) {
    int in[3] = {constants[0], constants[1], constants[2]};
    in[known] = negated ? 1 - x : x;
    return (*lut >> (in[0] * 4 + in[1] * 2 + in[2])) & 1;
  };
  int if_false = static_cast<int>(eval(0)), if_true = static_cast<int>(eval(1));
  if (if_false == if_true) return std::nullopt;
  Condition out = *condition;
  if (if_true == 0) out.compare = negate(out.compare);
  return out;
}

// The registers an instruction may write: its first operand, and for a
// comparison the second predicate too.
void kill_destinations(Facts& f, const std::vector<std::string>& ops) {
  for (std::size_t i = 0; i < ops.size() && i < 2; ++i) {
    if (!is_register(ops[i])) break;
    f.registers.erase(ops[i]);
    f.predicates.erase(ops[i]);
    if (ops[i][0] == 'R' || (ops[i].rfind("UR", 0) == 0)) break;  // one register destination
  }
}

void transfer(Facts& f, const SassInstruction& insn) {
  auto ops = operand_list(insn.operands);
  std::optional<ThreadIndex> value;
  std::optional<Condition> condition;
  std::string_view base = base_opcode(insn.opcode);
  bool plain = always_executes(insn);
  auto known = [&](const std::string& reg) -> const ThreadIndex* {
    auto it = f.registers.find(reg);
    return it == f.registers.end() ? nullptr : &it->second;
  };
  if (plain && insn.opcode == "S2R" && ops.size() == 2 && ops[1] == "SR_TID.X") {
    value = ThreadIndex{0};
  } else if (plain && insn.opcode == "SHF.R.U32.HI" && ops.size() == 4 && ops[1] == "RZ") {
    auto by = immediate(ops[2]);
    if (const auto* t = known(ops[3]); t && by && *by < 32) value = ThreadIndex{t->shift + static_cast<int>(*by)};
  } else if (plain && ((insn.opcode == "R2UR" || insn.opcode == "MOV") && ops.size() == 2)) {
    if (const auto* t = known(ops[1])) value = *t;
  } else if (plain && insn.opcode == "IMAD.MOV.U32" && ops.size() == 4 && ops[1] == "RZ" && ops[2] == "RZ") {
    if (const auto* t = known(ops[3])) value = *t;
  } else if (plain && (base == "ISETP" || base == "UISETP") && has_modifier(insn.opcode, "AND") && ops.size() == 5 &&
             (ops[1] == "PT" || ops[1] == "UPT") && (ops[4] == "PT" || ops[4] == "UPT")) {
    auto c = compare_of(insn.opcode);
    auto v = immediate(ops[3]);
    if (const auto* t = known(ops[2]); t && c && v) condition = Condition{t->shift, *c, *v};
  } else if (plain && (insn.opcode == "PLOP3.LUT" || insn.opcode == "UPLOP3.LUT")) {
    condition = predicate_logic(f, ops);
  }
  kill_destinations(f, ops);
  if (value && !ops.empty()) f.registers[ops[0]] = *value;
  if (condition && !ops.empty()) f.predicates[ops[0]] = *condition;
}

// Whether some thread of warp `w` can make the condition true (or false).
bool can_be(const Condition& c, int w, bool truth) {
  std::int64_t lo = (std::int64_t(w) * 32) >> c.shift, hi = (std::int64_t(w) * 32 + 31) >> c.shift;
  std::int64_t v = c.value;
  bool t = false, f = false;
  switch (c.compare) {
    case Compare::kLt:
      t = lo < v, f = hi >= v;
      break;
    case Compare::kLe:
      t = lo <= v, f = hi > v;
      break;
    case Compare::kGt:
      t = hi > v, f = lo <= v;
      break;
    case Compare::kGe:
      t = hi >= v, f = lo < v;
      break;
    case Compare::kEq:
      t = lo <= v && v <= hi, f = !(lo == v && hi == v);
      break;
    case Compare::kNe:
      t = !(lo == v && hi == v), f = lo <= v && v <= hi;
      break;
  }
  return truth ? t : f;
}

// The warps of `mask` for which the guard "@P0" / "@!P0" can hold (or
// fail, with `holds` false); every warp when the predicate is not known.
WarpMask guarded(const Facts& f, const std::string& guard, WarpMask mask, bool holds) {
  if (guard.size() < 2 || guard[0] != '@') return holds ? mask : 0;
  bool negated = guard[1] == '!';
  std::string pred = guard.substr(negated ? 2 : 1);
  if (pred == "PT" || pred == "UPT") return (holds != negated) ? mask : 0;
  auto it = f.predicates.find(pred);
  if (it == f.predicates.end()) return mask;
  WarpMask out = 0;
  for (int w = 0; w < kMaxWarps; ++w) {
    if ((mask >> w & 1u) && can_be(it->second, w, holds != negated)) out |= WarpMask(1) << w;
  }
  return out;
}

class WarpFlow {
 public:
  WarpFlow(const FunctionGraph& g, int warps) : g_(g), masks_(g.blocks.size(), 0), facts_(g.blocks.size()) {
    seen_.assign(g.blocks.size(), false);
    for (Index e : g.entries) enter(e, all_warps(warps), Facts{});
  }

  std::vector<WarpMask> run() {
    while (changed_) {
      changed_ = false;
      for (Index b = 0; b < g_.blocks.size(); ++b) {
        if (masks_[b] != 0) propagate(b);
      }
    }
    return masks_;
  }

 private:
  void enter(Index b, WarpMask mask, const Facts& facts) {
    if (mask == 0) return;
    Facts merged = facts;
    if (seen_[b]) {
      merged = Facts{};
      for (const auto& [k, v] : facts_[b].registers) {
        auto it = facts.registers.find(k);
        if (it != facts.registers.end() && it->second == v) merged.registers[k] = v;
      }
      for (const auto& [k, v] : facts_[b].predicates) {
        auto it = facts.predicates.find(k);
        if (it != facts.predicates.end() && it->second == v) merged.predicates[k] = v;
      }
    }
    WarpMask grown = masks_[b] | mask;
    if (!seen_[b] || grown != masks_[b] || !(merged == facts_[b])) changed_ = true;
    seen_[b] = true;
    masks_[b] = grown;
    facts_[b] = std::move(merged);
  }

  void propagate(Index b) {
    const BasicBlock& block = g_.blocks[b];
    Facts f = facts_[b];
    WarpMask mask = masks_[b];
    for (Index i = block.begin; i + 1 < block.end; ++i) transfer(f, g_.instruction(i));
    const SassInstruction& last = g_.instruction(block.end - 1);
    Flow kind = flow(last);
    std::optional<std::uint64_t> target = kind == Flow::kBranch ? branch_target(last) : std::nullopt;
    // A guard (@P0 BRA) splits the warps; a predicate operand (BRA.U !UP0,
    // @P0 BRA P1, ...) may send any warp either way on top of it.
    bool guard = !always_executes(last);
    bool operand = predicate_operand(last);
    WarpMask taken = guard ? guarded(f, last.predicate, mask, true) : mask;
    WarpMask falls = guard && !operand ? guarded(f, last.predicate, mask, false) : mask;
    if (kind == Flow::kExit) falls = guarded(f, last.predicate, mask, false);
    transfer(f, last);
    for (Index s : block.successors) {
      bool is_target = target && g_.block_address(s) == *target;
      bool is_next = s == b + 1;
      WarpMask edge = 0;
      if (is_target) edge |= taken;
      if (is_next) edge |= falls;
      if (!is_target && !is_next) edge = mask;
      enter(s, edge, f);
    }
  }

  static bool predicate_operand(const SassInstruction& insn) {
    auto ops = operand_list(insn.operands);
    if (ops.size() < 2 || ops[0].empty()) return false;
    std::string first = ops[0][0] == '!' ? ops[0].substr(1) : ops[0];
    return is_register(first) && (first[0] == 'P' || first.rfind("UP", 0) == 0) && first != "PT" && first != "UPT";
  }

  const FunctionGraph& g_;
  std::vector<WarpMask> masks_;
  std::vector<Facts> facts_;
  std::vector<bool> seen_;
  bool changed_ = true;
};

}  // namespace

WarpMask all_warps(int warps) {
  if (warps >= kMaxWarps) return ~WarpMask(0);
  if (warps <= 0) return 1;
  return (WarpMask(1) << warps) - 1;
}

int warp_count(WarpMask mask) { return std::popcount(mask); }

// "warps 0-3", "warp 4", "warps 0-1, 4".
std::string format_warps(WarpMask mask) {
  std::vector<std::string> parts;
  for (int w = 0; w < kMaxWarps;) {
    if (!(mask >> w & 1u)) {
      ++w;
      continue;
    }
    int end = w;
    while (end + 1 < kMaxWarps && (mask >> (end + 1) & 1u)) ++end;
    parts.push_back(end == w ? std::to_string(w) : fmt::format("{}-{}", w, end));
    w = end + 1;
  }
  if (parts.empty()) return "no warp";
  return fmt::format("{} {}", warp_count(mask) == 1 ? "warp" : "warps", fmt::join(parts, ", "));
}

std::vector<WarpMask> warp_masks(const FunctionGraph& g, int warps) { return WarpFlow(g, warps).run(); }

}  // namespace tileperf
