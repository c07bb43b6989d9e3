#include "analysis/skeleton.h"

#include <algorithm>
#include <bitset>
#include <cmath>
#include <cstring>
#include <limits>
#include <unordered_map>

#include <fmt/format.h>

#include "analysis/cost_model.h"
#include "support/error.h"
#include "support/text.h"

namespace tileperf {

namespace {

using Index = std::size_t;

// Dependences of a value: the grid dimensions (bits 0-2) and the loops
// (bit 3 + loop) whose variables it is computed from.
constexpr std::size_t kMaxTrackedLoops = 253;
using Deps = std::bitset<kMaxTrackedLoops + 3>;

enum class Why : std::uint8_t {
  kNone, kMemory, kTile, kArgument, kUnsupported, kInvariant, kUndefined, kDivision, kDeclared,
};

struct Val {
  enum Kind : std::uint8_t { kUnknown, kInt, kFloat, kView } kind = kUnknown;
  Why why = Why::kUndefined;
  int origin = -1;  // the operation (or for kArgument, the argument's position) the unknown comes from
  std::int64_t i = 0;
  double f = 0;
};

Val unknown(Why why, int origin) {
  Val v;
  v.why = why;
  v.origin = origin;
  return v;
}

Val integer(std::int64_t i) {
  Val v;
  v.kind = Val::kInt;
  v.why = Why::kNone;
  v.i = i;
  return v;
}

Val real(double f) {
  Val v;
  v.kind = Val::kFloat;
  v.why = Why::kNone;
  v.f = f;
  return v;
}

// The value `v` wrapped to `bits` bits, sign-extended (i1 is 0 or 1).
std::int64_t wrap(std::int64_t v, int bits) {
  if (bits <= 0 || bits >= 64) return v;
  if (bits == 1) return v & 1;
  std::uint64_t mask = (std::uint64_t(1) << bits) - 1;
  std::uint64_t u = static_cast<std::uint64_t>(v) & mask;
  if (u >> (bits - 1)) u |= ~mask;
  return static_cast<std::int64_t>(u);
}

std::uint64_t as_unsigned(std::int64_t v, int bits) {
  if (bits <= 0 || bits >= 64) return static_cast<std::uint64_t>(v);
  return static_cast<std::uint64_t>(v) & ((std::uint64_t(1) << bits) - 1);
}

// i1 seen as a signed number is 0 or -1.
std::int64_t as_signed(std::int64_t v, int bits) { return bits == 1 ? -(v & 1) : wrap(v, bits); }

// Round to the precision of a float type.
double round_to(double x, IrType t) {
  if (t == IrType::kF32) return static_cast<double>(static_cast<float>(x));
  if (t == IrType::kF16 || t == IrType::kBF16) {
    if (!std::isfinite(x) || x == 0) return x;
    int exponent = 0;
    std::frexp(x, &exponent);
    int mantissa = t == IrType::kF16 ? 11 : 8;
    int min_exponent = t == IrType::kF16 ? -13 : -125;  // below it, subnormal steps
    double quantum = std::ldexp(1.0, std::max(exponent, min_exponent) - mantissa);
    double r = std::nearbyint(x / quantum) * quantum;
    double max = t == IrType::kF16 ? 65504.0 : 3.3895313892515355e38;
    return std::fabs(r) > max ? std::copysign(INFINITY, r) : r;
  }
  return x;
}

bool has_word(const std::string& words, std::string_view w) {
  for (std::size_t at = words.find(w); at != std::string::npos; at = words.find(w, at + 1)) {
    bool start = at == 0 || !(std::isalnum(static_cast<unsigned char>(words[at - 1])) || words[at - 1] == '_');
    std::size_t end = at + w.size();
    bool stop = end >= words.size() || !(std::isalnum(static_cast<unsigned char>(words[end])) || words[end] == '_');
    if (start && stop) return true;
  }
  return false;
}

std::string first_word(const std::string& words) {
  std::size_t end = 0;
  while (end < words.size() && (std::isalnum(static_cast<unsigned char>(words[end])) || words[end] == '_')) ++end;
  return words.substr(0, end);
}

// "<i32: 5>", "<i1: false>", "<f32: 2.000000e+00>", "<f32: 0xFF800000>".
std::optional<Val> constant_value(const std::string& literal, IrType type) {
  auto colon = literal.find(": ");
  if (colon == std::string::npos || literal.size() < colon + 3) return std::nullopt;
  std::string text = trim(literal.substr(colon + 2, literal.size() - colon - 3));
  if (is_integer(type)) {
    if (text == "true") return integer(1);
    if (text == "false") return integer(0);
    char* end = nullptr;
    long long n = std::strtoll(text.c_str(), &end, 0);
    if (end == text.c_str() || *end) return std::nullopt;
    return integer(wrap(n, integer_bits(type)));
  }
  if (is_float(type)) {
    if (text.rfind("0x", 0) == 0) {  // the bits of the value
      unsigned long long bits = std::strtoull(text.c_str(), nullptr, 16);
      if (type == IrType::kF32) {
        auto b = static_cast<std::uint32_t>(bits);
        float f;
        std::memcpy(&f, &b, sizeof f);
        return real(f);
      }
      if (type == IrType::kF64) {
        double d;
        std::memcpy(&d, &bits, sizeof d);
        return real(d);
      }
      return std::nullopt;
    }
    char* end = nullptr;
    double d = std::strtod(text.c_str(), &end);
    if (end == text.c_str()) return std::nullopt;
    return real(round_to(d, type));
  }
  return std::nullopt;
}

bool is_loop(const IrOp& op) { return op.name == "for" || op.name == "loop"; }
bool is_memory(const IrOp& op) { return op.memory >= 0; }
bool is_terminator(const IrOp& op) {
  return op.name == "yield" || op.name == "continue" || op.name == "break" || op.name == "return";
}

// A control decision that cannot be taken from the values at hand, inside a
// loop being iterated: the loop's count is not computed.
struct UnknownControl {
  Val why;
};

struct StepLimit {};

class Analysis {
 public:
  explicit Analysis(const TileIrProgram& p) : p_(p) {
    loop_of_op_.assign(p.ops.size(), -1);
    content_.assign(p.ops.size(), false);
    collect(p.body, -1);
    deps_.assign(p.values.size(), Deps());
    for (int round = 0; round < 64; ++round) {
      changed_ = false;
      propagate(p.body);
      if (!changed_) break;
    }
    control(p.body);
  }

  const TileIrProgram& program() const { return p_; }
  const std::vector<SkeletonLoop>& loops() const { return loops_; }
  int loop_of(int op) const { return loop_of_op_[static_cast<Index>(op)]; }
  // Whether the `for` at loop index `l` must be iterated (a decision reads its variables).
  bool iterated(int l) const {
    return l >= static_cast<int>(kMaxTrackedLoops) || decisions_.test(3 + static_cast<Index>(l));
  }
  // Whether an `if` or a loop holds what the counts depend on (a loop, a
  // memory operation, a terminator that leaves it, a scalar it yields).
  bool has_content(int op) const { return content_[static_cast<Index>(op)]; }
  std::vector<int> varying_dims() const {
    std::vector<int> out;
    for (int d = 0; d < 3; ++d) {
      if (decisions_.test(static_cast<Index>(d))) out.push_back(d);
    }
    return out;
  }

 private:
  // The loops of the program in order, with parents; and which operations
  // have content.
  bool collect(const IrRegion& r, int parent) {
    bool any = false;
    for (int index : r.ops) {
      const IrOp& op = p_.ops[static_cast<Index>(index)];
      int self = parent;
      if (is_loop(op)) {
        SkeletonLoop l;
        l.op = index;
        l.kind = op.name;
        if (const IrLocation* where = p_.location_of(op)) l.where = *where;
        l.parent = parent;
        self = static_cast<int>(loops_.size());
        loop_of_op_[static_cast<Index>(index)] = self;
        loops_.push_back(std::move(l));
      }
      bool content = is_loop(op) || is_memory(op) || op.name == "continue" || op.name == "break" ||
                     op.name == "return";
      if (op.name == "yield") {
        for (int v : op.operands) content = content || p_.values[static_cast<Index>(v)].type != IrType::kOther;
      }
      for (const auto& region : op.regions) content = collect(region, self) || content;
      content_[static_cast<Index>(index)] = content;
      any = any || content;
    }
    return any;
  }

  void add(int value, const Deps& d) {
    if (value < 0) return;
    Deps& mine = deps_[static_cast<Index>(value)];
    Deps before = mine;
    mine |= d;
    if (mine != before) changed_ = true;
  }

  Deps of(int value) const { return value < 0 ? Deps() : deps_[static_cast<Index>(value)]; }

  Deps loop_bit(int l) const {
    Deps d;
    if (l >= 0 && l < static_cast<int>(kMaxTrackedLoops)) d.set(3 + static_cast<Index>(l));
    return d;
  }

  // The values a region's terminators hand on, by kind, and the conditions
  // of the `if`s they are nested in.
  void terminators(const IrRegion& r, const std::string& kind, std::vector<Deps>& values, Deps& conditions,
                   bool nested_loop) const {
    for (int index : r.ops) {
      const IrOp& op = p_.ops[static_cast<Index>(index)];
      if (!nested_loop && op.name == kind) {
        for (std::size_t k = 0; k < op.operands.size(); ++k) {
          if (values.size() <= k) values.resize(k + 1);
          values[k] |= of(op.operands[k]);
        }
      }
      if (op.name == "if" && !op.operands.empty()) {
        std::vector<Deps> inner(values.size());
        Deps c;
        for (const auto& region : op.regions) terminators(region, kind, inner, c, nested_loop);
        bool any = c.any();
        for (const auto& d : inner) any = any || d.any();
        if (any || !inner.empty()) {
          // Values handed on from inside the `if` depend on its condition.
          conditions |= c;
          bool hands_on = false;
          for (std::size_t k = 0; k < inner.size(); ++k) {
            if (values.size() <= k) values.resize(k + 1);
            values[k] |= inner[k];
            hands_on = hands_on || inner[k].any();
          }
          if (hands_on || c.any()) conditions |= of(op.operands[0]);
        }
        continue;
      }
      // `continue` and `break` leave the innermost loop: a nested loop's are its own.
      for (const auto& region : op.regions) {
        if (op.name != "if") terminators(region, kind, values, conditions, nested_loop || is_loop(op));
      }
    }
  }

  void propagate(const IrRegion& r) {
    for (int index : r.ops) {
      const IrOp& op = p_.ops[static_cast<Index>(index)];
      if (op.name == "get_tile_block_id") {
        for (std::size_t k = 0; k < op.results.size() && k < 3; ++k) {
          Deps d;
          d.set(k);
          add(op.results[k], d);
        }
        continue;
      }
      if (op.name == "for" || op.name == "loop") {
        int l = loop_of(index);
        Deps bounds;
        std::size_t first_init = op.name == "for" ? 3 : 0;
        for (std::size_t k = 0; k < first_init && k < op.operands.size(); ++k) bounds |= of(op.operands[k]);
        const IrRegion* body = op.regions.empty() ? nullptr : &op.regions[0];
        std::vector<Deps> next, exit;
        Deps conditions;
        if (body) {
          terminators(*body, "continue", next, conditions, false);
          terminators(*body, "break", exit, conditions, false);
        }
        Deps common = bounds | loop_bit(l) | conditions;
        if (body) {
          std::size_t args_first = op.name == "for" ? 1 : 0;
          if (op.name == "for" && !body->arguments.empty()) add(body->arguments[0], common);
          for (std::size_t k = 0; k + args_first < body->arguments.size(); ++k) {
            Deps d = common | (first_init + k < op.operands.size() ? of(op.operands[first_init + k]) : Deps());
            if (k < next.size()) d |= next[k];
            add(body->arguments[args_first + k], d);
          }
          propagate(*body);
          for (std::size_t k = 0; k < op.results.size(); ++k) {
            Deps d = common;
            if (k + args_first < body->arguments.size()) d |= of(body->arguments[args_first + k]);
            if (k < exit.size()) d |= exit[k];
            add(op.results[k], d);
          }
        }
        continue;
      }
      if (op.name == "if") {
        Deps d = op.operands.empty() ? Deps() : of(op.operands[0]);
        std::vector<Deps> yielded;
        Deps conditions;
        for (const auto& region : op.regions) {
          propagate(region);
          terminators(region, "yield", yielded, conditions, false);
        }
        for (std::size_t k = 0; k < op.results.size(); ++k) {
          add(op.results[k], d | conditions | (k < yielded.size() ? yielded[k] : Deps()));
        }
        continue;
      }
      Deps d;
      for (int v : op.operands) d |= of(v);
      for (const auto& dim : op.shape) d |= of(dim.value);
      for (const auto& dim : op.strides) d |= of(dim.value);
      for (int v : op.results) add(v, d);
      for (const auto& region : op.regions) propagate(region);
    }
  }

  // The dependences of the decisions that change counts.
  void control(const IrRegion& r) {
    for (int index : r.ops) {
      const IrOp& op = p_.ops[static_cast<Index>(index)];
      if (op.name == "for") {
        for (std::size_t k = 0; k < 3 && k < op.operands.size(); ++k) decisions_ |= of(op.operands[k]);
      }
      if (op.name == "loop") decisions_ |= loop_bit(loop_of(index));
      if (op.name == "if" && !op.operands.empty() && has_content(index)) decisions_ |= of(op.operands[0]);
      for (const auto& region : op.regions) control(region);
    }
  }

  const TileIrProgram& p_;
  std::vector<SkeletonLoop> loops_;
  std::vector<int> loop_of_op_;
  std::vector<bool> content_;
  std::vector<Deps> deps_;
  Deps decisions_;
  bool changed_ = false;
};

struct View {
  std::vector<Val> shape;  // of the tensor; of the index space for a partition view
  std::vector<Val> tensor_shape;
};

// The counts of one block.
struct Counts {
  std::vector<double> executions, iterations, memory;
  void reset(std::size_t loops, std::size_t memory_ops) {
    executions.assign(loops, 0);
    iterations.assign(loops, 0);
    memory.assign(memory_ops, 0);
  }
};

enum class Leave { kNormal, kYield, kContinue, kBreak, kReturn };

// What an iteration of the loop being run may have done on a decision that
// was not computed: left the loop, or skipped to its next iteration.
struct Doubt {
  bool may_break = false, may_continue = false;
  Val why = unknown(Why::kNone, -1);
};

class Evaluator {
 public:
  Evaluator(const Analysis& a, const SkeletonInputs& in, std::vector<SkeletonLoop>& loops,
            const std::vector<const TripDeclaration*>& declared)
      : a_(a), p_(a.program()), in_(in), loops_(loops), declared_(declared) {
    env_.assign(p_.values.size(), Val());
    std::size_t k = 0;
    for (int arg : p_.body.arguments) {
      Val v = unknown(Why::kArgument, static_cast<int>(k));
      if (k < in.arguments.size() && in.arguments[k].known) {
        const LaunchArgument& la = in.arguments[k];
        IrType t = p_.values[static_cast<Index>(arg)].type;
        if (is_integer(t) && !la.is_float) v = integer(wrap(la.integer, integer_bits(t)));
        if (is_float(t)) v = real(round_to(la.is_float ? la.real : static_cast<double>(la.integer), t));
      }
      env_[static_cast<Index>(arg)] = v;
      ++k;
    }
  }

  std::int64_t steps() const { return steps_; }
  int innermost_running() const { return running_.empty() ? -1 : running_.back(); }

  void run_block(const std::int64_t id[3], Counts& out) {
    for (int d = 0; d < 3; ++d) block_[d] = id[d];
    counts_ = &out;
    views_.clear();
    running_.clear();
    run_region(p_.body, 1.0);
  }

 private:
  Val& at(int value) { return env_[static_cast<Index>(value)]; }
  const Val& operand(const IrOp& op, std::size_t k) {
    static const Val missing = unknown(Why::kUndefined, -1);
    return k < op.operands.size() ? env_[static_cast<Index>(op.operands[k])] : missing;
  }
  IrType result_type(const IrOp& op, std::size_t k = 0) const {
    return k < op.results.size() ? p_.values[static_cast<Index>(op.results[k])].type : IrType::kOther;
  }
  IrType operand_type(const IrOp& op, std::size_t k = 0) const {
    return k < op.operands.size() ? p_.values[static_cast<Index>(op.operands[k])].type : IrType::kOther;
  }
  void set_results(const IrOp& op, const Val& v) {
    for (int r : op.results) at(r) = v;
  }

  void step() {
    if (++steps_ > in_.max_steps) throw StepLimit{};
  }

  // The first unknown operand, or nothing.
  const Val* first_unknown(const IrOp& op) {
    for (std::size_t k = 0; k < op.operands.size(); ++k) {
      const Val& v = operand(op, k);
      if (v.kind == Val::kUnknown) return &v;
    }
    return nullptr;
  }

  Leave run_region(const IrRegion& r, double mult) {
    for (int index : r.ops) {
      step();
      const IrOp& op = p_.ops[static_cast<Index>(index)];
      if (op.memory >= 0) counts_->memory[static_cast<Index>(op.memory)] += mult;
      if (op.name == "for") {
        if (run_for(op, index, mult) == Leave::kReturn) return Leave::kReturn;
        continue;
      }
      if (op.name == "loop") {
        if (run_loop(op, index, mult) == Leave::kReturn) return Leave::kReturn;
        continue;
      }
      if (op.name == "if") {
        Leave f = run_if(op, index, mult);
        if (f != Leave::kNormal) return f;
        continue;
      }
      if (is_terminator(op)) {
        exit_.clear();
        for (std::size_t k = 0; k < op.operands.size(); ++k) exit_.push_back(operand(op, k));
        if (op.name == "yield") return Leave::kYield;
        if (op.name == "continue") return Leave::kContinue;
        if (op.name == "break") return Leave::kBreak;
        return Leave::kReturn;
      }
      compute(op, index);
    }
    return Leave::kNormal;
  }

  Leave run_if(const IrOp& op, int index, double mult) {
    const Val& c = operand(op, 0);
    if (c.kind == Val::kInt) {
      std::size_t branch = (c.i & 1) ? 0 : 1;
      if (branch >= op.regions.size()) {
        if (!op.results.empty()) set_results(op, unknown(Why::kUnsupported, index));
        return Leave::kNormal;
      }
      Leave f = run_region(op.regions[branch], mult);
      if (f == Leave::kYield) {
        for (std::size_t k = 0; k < op.results.size(); ++k) {
          at(op.results[k]) = k < exit_.size() ? exit_[k] : unknown(Why::kUnsupported, index);
        }
        return Leave::kNormal;
      }
      return f;
    }
    // A decision from values not computed: what it holds is counted on both
    // sides (as the SASS's blocks are), and the code after it as if neither
    // side left the loop or the kernel. A side that may leave the loop is
    // remembered: the loop being iterated decides what that means for its
    // count (loop_doubt()).
    Val why = c.kind == Val::kUnknown ? c : unknown(Why::kUnsupported, index);
    if (a_.has_content(index)) {
      for (const auto& region : op.regions) {
        Leave f = run_region(region, mult);
        if (f == Leave::kBreak) doubt_.may_break = true;
        if (f == Leave::kContinue) doubt_.may_continue = true;
        if ((f == Leave::kBreak || f == Leave::kContinue) && doubt_.why.why == Why::kNone) doubt_.why = why;
      }
    }
    set_results(op, why);
    return Leave::kNormal;
  }

  void record(int l, double mult, double trips) {
    counts_->executions[static_cast<Index>(l)] += mult;
    counts_->iterations[static_cast<Index>(l)] += mult * trips;
    SkeletonLoop& loop = loops_[static_cast<Index>(l)];
    if (mult > 0) {
      loop.min_trips = std::min(loop.min_trips, trips);
      loop.max_trips = std::max(loop.max_trips, trips);
    }
  }

  // The declared count of a loop whose count is not computed, or an override.
  const TripDeclaration* declaration(int l) const { return declared_[static_cast<Index>(l)]; }

  void not_computed(int l, const Val& why) {
    SkeletonLoop& loop = loops_[static_cast<Index>(l)];
    if (!loop.unknown.empty()) return;
    loop.data_dependent = why.why == Why::kMemory;
    loop.unknown = describe(why);
  }

  std::string describe(const Val& v) const {
    auto op_at = [&](int i) -> const IrOp& { return p_.ops[static_cast<Index>(i)]; };
    switch (v.why) {
      case Why::kMemory:
        return fmt::format("data-dependent: it comes from memory ({} at {})", op_at(v.origin).name,
                           p_.where(op_at(v.origin)));
      case Why::kTile:
        return fmt::format("it comes from a tile value ({} at {})", op_at(v.origin).name, p_.where(op_at(v.origin)));
      case Why::kArgument:
        return in_.arguments.empty()
                   ? fmt::format("it comes from the kernel's arguments, and the dump record has none ({})",
                                 in_.no_arguments.empty() ? "no case or launch to record them from" : in_.no_arguments)
                   : fmt::format("it comes from argument {} of the entry, which is not a number the launch recorded",
                                 v.origin);
      case Why::kDivision:
        return fmt::format("a division by zero ({} at {})", op_at(v.origin).name, p_.where(op_at(v.origin)));
      case Why::kUnsupported:
        return v.origin >= 0 ? fmt::format("the evaluator does not compute {} (at {})", op_at(v.origin).name,
                                           p_.where(op_at(v.origin)))
                             : "the evaluator does not compute it";
      default:
        return "it is not computed";
    }
  }

  // Runs a loop's body once for `trips` iterations (its variables unknown).
  Leave once(const IrOp& op, double mult, double trips, const Val& vars) {
    const IrRegion& body = op.regions[0];
    for (int arg : body.arguments) at(arg) = vars;
    if (trips > 0) {
      Doubt outer = doubt_;  // what the body skips is its own loop's
      Leave f = run_region(body, mult * trips);
      doubt_ = outer;
      if (f == Leave::kReturn) return f;
    }
    set_results(op, vars);
    return Leave::kNormal;
  }

  // A loop whose count is not computed: declared, or assumed.
  Leave uncounted(const IrOp& op, int l, double mult, const Val& why) {
    if (why.why != Why::kNone) not_computed(l, why);
    SkeletonLoop& loop = loops_[static_cast<Index>(l)];
    double trips = static_cast<double>(kAssumedTrips);
    if (const TripDeclaration* d = declaration(l)) {
      trips = d->trips;
      loop.source = d->override ? CountSource::kOverride : CountSource::kDeclared;
      loop.declared_key = d->key;
      loop.declared = d->trips;
    } else {
      loop.source = CountSource::kAssumed;
    }
    record(l, mult, trips);
    return once(op, mult, trips, why.why == Why::kNone ? unknown(Why::kDeclared, op.results.empty() ? -1 : 0) : why);
  }

  Leave run_for(const IrOp& op, int index, double mult) {
    int l = a_.loop_of(index);
    if (op.regions.empty() || op.operands.size() < 3) return Leave::kNormal;
    const IrRegion& body = op.regions[0];
    const TripDeclaration* d = declaration(l);
    const Val &lb = operand(op, 0), &ub = operand(op, 1), &st = operand(op, 2);
    if (d && d->override) return uncounted(op, l, mult, unknown(Why::kNone, index));
    for (const Val* v : {&lb, &ub, &st}) {
      if (v->kind != Val::kInt) return uncounted(op, l, mult, v->kind == Val::kUnknown ? *v : unknown(Why::kUnsupported, index));
    }
    if (st.i <= 0) return uncounted(op, l, mult, unknown(Why::kUnsupported, index));
    IrType t = p_.values[static_cast<Index>(body.arguments[0])].type;
    int bits = integer_bits(t);
    __int128 lo = op.unsigned_compare ? static_cast<__int128>(as_unsigned(lb.i, bits)) : as_signed(lb.i, bits);
    __int128 hi = op.unsigned_compare ? static_cast<__int128>(as_unsigned(ub.i, bits)) : as_signed(ub.i, bits);
    __int128 span = hi - lo;
    double trips = span <= 0 ? 0 : static_cast<double>((span + st.i - 1) / st.i);
    SkeletonLoop& loop = loops_[static_cast<Index>(l)];
    if (d) {  // a declaration of a loop whose count is computed: held to it afterwards
      loop.declared_key = d->key;
      loop.declared = d->trips;
    }
    if (!a_.iterated(l)) {
      record(l, mult, trips);
      return once(op, mult, trips, unknown(Why::kInvariant, index));
    }
    loop.iterated = true;
    Counts saved = *counts_;
    running_.push_back(l);
    std::vector<Val> carried;
    for (std::size_t k = 3; k < op.operands.size(); ++k) carried.push_back(operand(op, k));
    Doubt outer = doubt_;
    try {
      for (std::int64_t k = 0; static_cast<double>(k) < trips; ++k) {
        at(body.arguments[0]) = integer(wrap(lb.i + k * st.i, bits));
        for (std::size_t a = 0; a + 1 < body.arguments.size(); ++a) {
          at(body.arguments[a + 1]) = a < carried.size() ? carried[a] : unknown(Why::kUndefined, index);
        }
        doubt_ = Doubt();
        Leave f = run_region(body, mult);
        if (f == Leave::kReturn) {
          running_.pop_back();
          doubt_ = outer;
          record(l, mult, static_cast<double>(k + 1));
          return f;
        }
        if (f == Leave::kContinue) carried = exit_;
        // A `for` runs its trips whatever its body skips; what it carries
        // is not known after a skip that was not computed.
        if (doubt_.may_continue || doubt_.may_break) {
          for (auto& v : carried) v = doubt_.why;
        }
      }
    } catch (const UnknownControl& u) {
      running_.pop_back();
      doubt_ = outer;
      *counts_ = std::move(saved);
      return uncounted(op, l, mult, u.why);
    }
    running_.pop_back();
    doubt_ = outer;
    record(l, mult, trips);
    for (std::size_t k = 0; k < op.results.size(); ++k) {
      at(op.results[k]) = k < carried.size() ? carried[k] : unknown(Why::kUndefined, index);
    }
    return Leave::kNormal;
  }

  Leave run_loop(const IrOp& op, int index, double mult) {
    int l = a_.loop_of(index);
    if (op.regions.empty()) return Leave::kNormal;
    const IrRegion& body = op.regions[0];
    const TripDeclaration* d = declaration(l);
    if (d && d->override) return uncounted(op, l, mult, unknown(Why::kNone, index));
    loops_[static_cast<Index>(l)].iterated = true;
    Counts saved = *counts_;
    running_.push_back(l);
    std::vector<Val> carried;
    for (std::size_t k = 0; k < op.operands.size(); ++k) carried.push_back(operand(op, k));
    double trips = 0;
    Doubt outer = doubt_;
    try {
      for (;;) {
        for (std::size_t a = 0; a < body.arguments.size(); ++a) {
          at(body.arguments[a]) = a < carried.size() ? carried[a] : unknown(Why::kUndefined, index);
        }
        trips += 1;
        doubt_ = Doubt();
        Leave f = run_region(body, mult);
        // An iteration that ends the loop anyway is its last whatever an
        // uncomputed decision did (an early return, as cuTile lowers it, is
        // such a loop); one that goes on may have ended, or skipped to the
        // next iteration with other values.
        if (f == Leave::kContinue) {
          if (doubt_.may_break) throw UnknownControl{doubt_.why};
          carried = exit_;
          if (doubt_.may_continue) {
            for (auto& v : carried) v = doubt_.why;
          }
          continue;
        }
        if (f == Leave::kBreak && doubt_.may_continue) throw UnknownControl{doubt_.why};
        if (f == Leave::kBreak) carried = exit_;
        if (f == Leave::kReturn) {
          running_.pop_back();
          doubt_ = outer;
          record(l, mult, trips);
          return f;
        }
        break;  // break, or a body without a terminator
      }
    } catch (const UnknownControl& u) {
      running_.pop_back();
      doubt_ = outer;
      *counts_ = std::move(saved);
      return uncounted(op, l, mult, u.why);
    }
    running_.pop_back();
    doubt_ = outer;
    record(l, mult, trips);
    for (std::size_t k = 0; k < op.results.size(); ++k) {
      at(op.results[k]) = k < carried.size() ? carried[k] : unknown(Why::kUndefined, index);
    }
    return Leave::kNormal;
  }

  // The scalar operations; anything else gives unknown results.
  void compute(const IrOp& op, int index) {
    const std::string& n = op.name;
    if (op.results.empty()) return;
    if (is_memory(op) || n.rfind("load_", 0) == 0 || n.rfind("atomic", 0) == 0) {
      set_results(op, unknown(Why::kMemory, index));
      return;
    }
    if (n == "constant") {
      auto v = constant_value(op.literal, result_type(op));
      set_results(op, v ? *v : unknown(Why::kTile, index));
      return;
    }
    if (n == "get_tile_block_id" || n == "get_num_tile_blocks") {
      for (std::size_t k = 0; k < op.results.size(); ++k) {
        std::int64_t g = k < in_.grid.size() ? in_.grid[k] : 1;
        at(op.results[k]) = integer(n == "get_num_tile_blocks" ? g : (k < 3 ? block_[k] : 0));
      }
      return;
    }
    if (n == "assume") {  // assume <predicate>, %x: the value itself
      set_results(op, op.operands.empty() ? unknown(Why::kUndefined, index) : operand(op, op.operands.size() - 1));
      return;
    }
    if (n == "make_tensor_view") {
      View v;
      for (const auto& d : op.shape) v.shape.push_back(d.value >= 0 ? at(d.value) : integer(d.constant));
      v.tensor_shape = v.shape;
      new_view(op, std::move(v));
      return;
    }
    if (n == "make_partition_view") {
      const Val& src = operand(op, 0);
      if (src.kind != Val::kView) {
        set_results(op, src.kind == Val::kUnknown ? src : unknown(Why::kUnsupported, index));
        return;
      }
      View t = views_[static_cast<Index>(src.i)];
      View v;
      v.tensor_shape = t.tensor_shape;
      for (std::size_t k = 0; k < op.tile.size(); ++k) {
        std::size_t dim = k < op.dim_map.size() && op.dim_map[k] >= 0 ? static_cast<std::size_t>(op.dim_map[k]) : k;
        const Val s = dim < t.shape.size() ? t.shape[dim] : unknown(Why::kUnsupported, index);
        std::int64_t tile = op.tile[k];
        if (s.kind == Val::kInt && tile > 0) {
          v.shape.push_back(integer(s.i <= 0 ? 0 : (s.i + tile - 1) / tile));
        } else {
          v.shape.push_back(s.kind == Val::kUnknown ? s : unknown(Why::kUnsupported, index));
        }
      }
      new_view(op, std::move(v));
      return;
    }
    if (n == "get_index_space_shape" || n == "get_tensor_shape") {
      const Val& src = operand(op, 0);
      if (src.kind != Val::kView) {
        set_results(op, src.kind == Val::kUnknown ? src : unknown(Why::kUnsupported, index));
        return;
      }
      const View& v = views_[static_cast<Index>(src.i)];
      const auto& shape = n == "get_tensor_shape" ? v.tensor_shape : v.shape;
      for (std::size_t k = 0; k < op.results.size(); ++k) {
        Val s = k < shape.size() ? shape[k] : unknown(Why::kUnsupported, index);
        if (s.kind == Val::kInt) s.i = wrap(s.i, integer_bits(result_type(op, k)));
        at(op.results[k]) = s;
      }
      return;
    }
    IrType type = result_type(op);
    if (type == IrType::kOther || op.results.size() != 1) {
      // A tile, a token or a pointer: never a decision's input as such.
      const Val* from = first_unknown(op);
      set_results(op, from && from->why == Why::kMemory ? *from : unknown(Why::kTile, index));
      return;
    }
    if (n == "select" && op.operands.size() == 3 && operand(op, 0).kind == Val::kInt) {
      // The value chosen, whatever the other one is (both are computed: a
      // division by zero on the side not taken does not matter).
      Val v = operand(op, (operand(op, 0).i & 1) ? 1 : 2);
      if (v.kind == Val::kInt) v.i = wrap(v.i, integer_bits(type));
      if (v.kind == Val::kFloat) v.f = round_to(v.f, type);
      at(op.results[0]) = v;
      return;
    }
    if (const Val* from = first_unknown(op)) {
      set_results(op, *from);
      return;
    }
    for (std::size_t k = 0; k < op.operands.size(); ++k) {
      if (operand(op, k).kind == Val::kView) {
        set_results(op, unknown(Why::kUnsupported, index));
        return;
      }
      // A scalar computed from a tile (a reduction, say) is not known.
      if (operand_type(op, k) == IrType::kOther && n != "select") {
        set_results(op, unknown(Why::kTile, index));
        return;
      }
    }
    divided_by_zero_ = false;
    std::optional<Val> v = is_float(type) || n == "cmpf" || n == "ftoi" ? float_op(op, type) : integer_op(op, type);
    at(op.results[0]) = v ? *v : unknown(divided_by_zero_ ? Why::kDivision : Why::kUnsupported, index);
  }

  void new_view(const IrOp& op, View v) {
    Val r;
    r.kind = Val::kView;
    r.why = Why::kNone;
    r.i = static_cast<std::int64_t>(views_.size());
    views_.push_back(std::move(v));
    set_results(op, r);
  }

  std::optional<Val> integer_op(const IrOp& op, IrType type) {
    const std::string& n = op.name;
    int bits = integer_bits(type);
    int in_bits = integer_bits(operand_type(op, 0));
    if (in_bits == 0) in_bits = bits;
    bool is_unsigned = has_word(op.attributes, "unsigned");
    auto s = [&](std::size_t k) { return as_signed(operand(op, k).i, in_bits); };
    auto u = [&](std::size_t k) { return as_unsigned(operand(op, k).i, in_bits); };
    auto out = [&](std::int64_t v) { return integer(wrap(v, bits)); };
    auto out_u = [&](std::uint64_t v) { return integer(wrap(static_cast<std::int64_t>(v), bits)); };
    std::size_t arity = op.operands.size();
    if (n == "addi" && arity == 2) return out_u(u(0) + u(1));
    if (n == "subi" && arity == 2) return out_u(u(0) - u(1));
    if (n == "muli" && arity == 2) return out_u(u(0) * u(1));
    if (n == "negi" && arity == 1) return out_u(0 - u(0));
    if (n == "absi" && arity == 1) return out(s(0) < 0 ? -s(0) : s(0));
    if ((n == "andi" || n == "ori" || n == "xori") && arity == 2) {
      std::uint64_t a = u(0), b = u(1);
      return out_u(n == "andi" ? (a & b) : n == "ori" ? (a | b) : (a ^ b));
    }
    if ((n == "mini" || n == "maxi") && arity == 2) {
      bool first = is_unsigned ? (u(0) < u(1)) : (s(0) < s(1));
      if (n == "maxi") first = !first;
      return integer(wrap(operand(op, first ? 0 : 1).i, bits));
    }
    if ((n == "shli" || n == "shri") && arity == 2) {
      std::uint64_t amount = u(1);
      if (amount >= static_cast<std::uint64_t>(in_bits)) {
        if (n == "shli" || is_unsigned || s(0) >= 0) return integer(0);
        return out(-1);
      }
      if (n == "shli") return out_u(u(0) << amount);
      return is_unsigned ? out_u(u(0) >> amount) : out(s(0) >> amount);
    }
    if ((n == "divi" || n == "remi") && arity == 2) {
      if (u(1) == 0) {
        divided_by_zero_ = true;
        return std::nullopt;
      }
      if (is_unsigned) return out_u(n == "divi" ? u(0) / u(1) : u(0) % u(1));
      __int128 a = s(0), b = s(1);
      __int128 q = a / b, r = a % b;
      if (n == "remi") return out(static_cast<std::int64_t>(r));
      if (r != 0 && op.attributes.find("rounding<negative_inf>") != std::string::npos && ((r < 0) != (b < 0))) --q;
      if (r != 0 && op.attributes.find("rounding<positive_inf>") != std::string::npos && ((r < 0) == (b < 0))) ++q;
      return out(static_cast<std::int64_t>(q));
    }
    if (n == "mulhii" && arity == 2) {
      if (is_unsigned) {
        unsigned __int128 p = static_cast<unsigned __int128>(u(0)) * u(1);
        return out_u(static_cast<std::uint64_t>(p >> in_bits));
      }
      __int128 p = static_cast<__int128>(s(0)) * s(1);
      return out(static_cast<std::int64_t>(p >> in_bits));
    }
    if (n == "cmpi" && arity == 2) {
      std::string pred = first_word(op.attributes);
      bool lt, eq;
      if (is_unsigned) {
        lt = u(0) < u(1);
        eq = u(0) == u(1);
      } else {
        lt = s(0) < s(1);
        eq = s(0) == s(1);
      }
      std::optional<bool> r;
      if (pred == "equal") r = eq;
      if (pred == "not_equal") r = !eq;
      if (pred == "less_than") r = lt;
      if (pred == "less_than_or_equal") r = lt || eq;
      if (pred == "greater_than") r = !lt && !eq;
      if (pred == "greater_than_or_equal") r = !lt;
      if (!r) return std::nullopt;
      return integer(*r ? 1 : 0);
    }
    if (n == "select" && arity == 3) return integer(wrap((operand(op, 0).i & 1) ? operand(op, 1).i : operand(op, 2).i, bits));
    if (n == "exti" && arity == 1) return is_unsigned ? out_u(u(0)) : out(s(0));
    if (n == "trunci" && arity == 1) return out(operand(op, 0).i);
    if (n == "bitcast" && arity == 1 && is_integer(operand_type(op, 0))) return out(operand(op, 0).i);
    return std::nullopt;
  }

  std::optional<Val> float_op(const IrOp& op, IrType type) {
    const std::string& n = op.name;
    std::size_t arity = op.operands.size();
    auto f = [&](std::size_t k) {
      const Val& v = operand(op, k);
      return v.kind == Val::kFloat ? v.f : static_cast<double>(v.i);
    };
    auto out = [&](double x) { return real(round_to(x, type)); };
    if (n == "itof" && arity == 1) {
      int bits = integer_bits(operand_type(op, 0));
      std::int64_t i = operand(op, 0).i;
      return out(has_word(op.attributes, "unsigned") ? static_cast<double>(as_unsigned(i, bits))
                                                      : static_cast<double>(as_signed(i, bits)));
    }
    if (n == "ftoi" && arity == 1) {
      double x = std::trunc(f(0));
      int bits = integer_bits(type);
      if (!std::isfinite(x) || bits == 0 || std::fabs(x) > 9.2e18) return std::nullopt;
      return integer(wrap(static_cast<std::int64_t>(x), bits));
    }
    if (n == "cmpf" && arity == 2) {
      double a = f(0), b = f(1);
      std::string pred = first_word(op.attributes);
      bool unordered = std::isnan(a) || std::isnan(b);
      bool ordered_flag = !has_word(op.attributes, "unordered");
      std::optional<bool> r;
      if (pred == "equal") r = a == b;
      if (pred == "not_equal") r = a != b;
      if (pred == "less_than") r = a < b;
      if (pred == "less_than_or_equal") r = a <= b;
      if (pred == "greater_than") r = a > b;
      if (pred == "greater_than_or_equal") r = a >= b;
      if (!r) return std::nullopt;
      if (unordered) r = !ordered_flag;
      return integer(*r ? 1 : 0);
    }
    if (!is_float(type)) return std::nullopt;
    if (n == "ftof" && arity == 1) return out(f(0));
    if (n == "addf" && arity == 2) return out(f(0) + f(1));
    if (n == "subf" && arity == 2) return out(f(0) - f(1));
    if (n == "mulf" && arity == 2) return out(f(0) * f(1));
    if (n == "divf" && arity == 2) return out(f(0) / f(1));
    if (n == "remf" && arity == 2) return out(std::fmod(f(0), f(1)));
    if (n == "negf" && arity == 1) return out(-f(0));
    if (n == "absf" && arity == 1) return out(std::fabs(f(0)));
    if (n == "maxf" && arity == 2) return out(std::fmax(f(0), f(1)));
    if (n == "minf" && arity == 2) return out(std::fmin(f(0), f(1)));
    if (n == "fma" && arity == 3) return out(f(0) * f(1) + f(2));
    if (n == "floor" && arity == 1) return out(std::floor(f(0)));
    if (n == "ceil" && arity == 1) return out(std::ceil(f(0)));
    if (n == "sqrt" && arity == 1) return out(std::sqrt(f(0)));
    if (n == "select" && arity == 3) return out((operand(op, 0).i & 1) ? f(1) : f(2));
    return std::nullopt;
  }

  const Analysis& a_;
  const TileIrProgram& p_;
  const SkeletonInputs& in_;
  std::vector<SkeletonLoop>& loops_;
  const std::vector<const TripDeclaration*>& declared_;
  std::vector<Val> env_;
  std::vector<View> views_;
  std::vector<Val> exit_;
  std::vector<int> running_;  // loops being iterated, innermost last
  Doubt doubt_;               // of the innermost loop's current iteration
  std::int64_t block_[3] = {0, 0, 0};
  Counts* counts_ = nullptr;
  std::int64_t steps_ = 0;
  bool divided_by_zero_ = false;
};

std::string format_trips(double t) {
  if (std::fabs(t - std::round(t)) < 1e-9) return fmt::format("{}", static_cast<std::int64_t>(std::llround(t)));
  return fmt::format("{:.2f}", t);
}

bool loop_declared_by(const TripDeclaration& d, const SkeletonLoop& l) {
  return l.where.known() && declares(d, l.where.file, l.where.line, l.where.calls);
}

}  // namespace

std::string_view count_source_name(CountSource s) {
  switch (s) {
    case CountSource::kComputed: return "computed";
    case CountSource::kDeclared: return "declared";
    case CountSource::kOverride: return "override";
    case CountSource::kAssumed: return "assumed";
  }
  return "";
}

std::string SkeletonLoop::name() const {
  if (!where.known()) return kind + " (no location)";
  std::string out = fmt::format("{}:{}", file_name(where.file), where.line);
  for (const auto& [file, line] : where.calls) out += fmt::format("@{}:{}", file_name(file), line);
  return out;
}

std::int64_t Skeleton::blocks() const {
  std::int64_t n = 1;
  for (auto g : grid) n *= g;
  return n;
}

int Skeleton::class_of(std::int64_t block) const {
  if (classes.size() <= 1 || class_table.empty()) return 0;
  std::int64_t coords[3] = {0, 0, 0};
  for (std::size_t d = 0; d < grid.size() && d < 3; ++d) {
    coords[d] = block % grid[d];
    block /= grid[d];
  }
  std::int64_t at = 0, scale = 1;
  for (int d : varying_dims) {
    at += coords[d] * scale;
    scale *= grid[static_cast<std::size_t>(d)];
  }
  return class_table[static_cast<std::size_t>(at)];
}

std::vector<TripDeclaration> Skeleton::trips(int cls) const {
  std::vector<TripDeclaration> out;
  for (std::size_t l = 0; l < loops.size(); ++l) {
    const SkeletonLoop& loop = loops[l];
    if (!loop.where.known()) continue;
    TripDeclaration d;
    d.key = loop.source == CountSource::kComputed ? "computed"
            : loop.source == CountSource::kAssumed ? "assumed" : loop.declared_key;
    d.file = loop.where.file;
    d.lines = {loop.where.line};
    d.calls = loop.where.calls;
    d.group = loop.group;
    d.ordinal = loop.ordinal;
    d.source = static_cast<int>(l);
    d.trips = cls < 0 ? loop.trips() : classes[static_cast<std::size_t>(cls)].trips(l);
    d.executions = cls < 0 ? loop.executions : classes[static_cast<std::size_t>(cls)].executions[l];
    out.push_back(std::move(d));
  }
  return out;
}

Skeleton evaluate_skeleton(const SkeletonInputs& in) {
  Skeleton out;
  out.grid = in.grid.empty() ? std::vector<std::int64_t>{1} : in.grid;
  const TileIrProgram& p = *in.program;
  Analysis analysis(p);
  out.loops = analysis.loops();
  std::size_t memory_ops = in.stats ? in.stats->memory.size() : 0;
  // Groups: the loops of one location.
  std::map<std::tuple<std::string, int, std::vector<std::pair<std::string, int>>>, int> groups;
  std::map<int, int> next_ordinal;
  for (auto& l : out.loops) {
    auto [it, fresh] = groups.emplace(std::make_tuple(file_name(l.where.file), l.where.line, l.where.calls),
                                      static_cast<int>(groups.size()));
    l.group = it->second;
    l.ordinal = next_ordinal[l.group]++;
  }
  // The declaration of each loop (the first that names it).
  std::vector<const TripDeclaration*> declared(out.loops.size(), nullptr);
  std::vector<bool> used(in.problem ? in.problem->trips.size() : 0, false);
  if (in.problem) {
    for (std::size_t l = 0; l < out.loops.size(); ++l) {
      for (std::size_t k = 0; k < in.problem->trips.size(); ++k) {
        if (loop_declared_by(in.problem->trips[k], out.loops[l])) {
          declared[l] = &in.problem->trips[k];
          used[k] = true;
          break;
        }
      }
    }
    for (std::size_t k = 0; k < used.size(); ++k) {
      if (!used[k]) {
        const auto& d = in.problem->trips[k];
        out.notes.push_back(fmt::format("declared trips of loop '{}' ({} line {}) name no loop of the kernel's TileIR",
                                        d.key, file_name(d.file), fmt::join(d.lines, ",")));
      }
    }
  }
  out.varying_dims = analysis.varying_dims();
  std::vector<std::int64_t> extent;  // of each varying dimension
  std::int64_t points = 1, weight = 1;
  for (std::size_t d = 0; d < out.grid.size(); ++d) {
    bool varies = std::find(out.varying_dims.begin(), out.varying_dims.end(), static_cast<int>(d)) != out.varying_dims.end();
    if (varies) {
      extent.push_back(out.grid[d]);
      points *= out.grid[d];
    } else {
      weight *= out.grid[d];
    }
  }
  // Dimensions past the grid's rank do not vary (their id is 0).
  std::vector<int> varying;
  for (int d : out.varying_dims) {
    if (d < static_cast<int>(out.grid.size())) varying.push_back(d);
  }
  out.varying_dims = varying;
  for (auto& l : out.loops) {
    l.min_trips = std::numeric_limits<double>::infinity();
    l.max_trips = -std::numeric_limits<double>::infinity();
  }
  Evaluator eval(analysis, in, out.loops, declared);
  std::unordered_map<std::string, int> class_ids;
  Counts counts;
  out.class_table.assign(static_cast<std::size_t>(points), 0);
  try {
    for (std::int64_t point = 0; point < points; ++point) {
      std::int64_t id[3] = {0, 0, 0};
      std::int64_t rest = point;
      std::int64_t linear = 0, scale = 1;
      for (std::size_t k = 0; k < out.varying_dims.size(); ++k) {
        int d = out.varying_dims[k];
        id[d] = rest % extent[k];
        rest /= extent[k];
      }
      for (std::size_t d = 0; d < out.grid.size(); ++d) {
        linear += id[d] * scale;
        scale *= out.grid[d];
      }
      counts.reset(out.loops.size(), memory_ops);
      eval.run_block(id, counts);
      ++out.evaluated_blocks;
      std::string key(reinterpret_cast<const char*>(counts.executions.data()), counts.executions.size() * sizeof(double));
      key.append(reinterpret_cast<const char*>(counts.iterations.data()), counts.iterations.size() * sizeof(double));
      key.append(reinterpret_cast<const char*>(counts.memory.data()), counts.memory.size() * sizeof(double));
      auto [it, fresh] = class_ids.emplace(std::move(key), static_cast<int>(out.classes.size()));
      if (fresh) {
        BlockClass c;
        c.executions = counts.executions;
        c.iterations = counts.iterations;
        c.memory = counts.memory;
        c.first_block = linear;
        out.classes.push_back(std::move(c));
      }
      out.classes[static_cast<std::size_t>(it->second)].blocks += weight;
      out.class_table[static_cast<std::size_t>(point)] = it->second;
    }
  } catch (const StepLimit&) {
    int l = eval.innermost_running();
    std::string where = l >= 0 ? out.loops[static_cast<std::size_t>(l)].name() : "the kernel";
    const IrLocation* at = l >= 0 ? &out.loops[static_cast<std::size_t>(l)].where : nullptr;
    throw InputError(at && at->known() ? at->file : p.file, at && at->known() ? at->line : 0,
                     fmt::format("the scalar evaluator stopped after {} operations in the loop at {} (block {} of "
                                 "{}): a count this large is not evaluated; declare the loop's trips",
                                 in.max_steps, where, out.evaluated_blocks, points * weight));
  }
  out.steps = eval.steps();
  out.evaluated = true;
  if (points <= 1) out.class_table.clear();
  for (std::size_t i = 0; i < out.loops.size(); ++i) {
    SkeletonLoop& l = out.loops[i];
    for (const auto& c : out.classes) {
      l.executions += c.executions[i] * static_cast<double>(c.blocks);
      l.iterations += c.iterations[i] * static_cast<double>(c.blocks);
    }
    if (l.executions == 0) l.min_trips = l.max_trips = 0;
  }
  // A declaration of a computed loop must agree with it.
  for (std::size_t l = 0; l < out.loops.size(); ++l) {
    const SkeletonLoop& loop = out.loops[l];
    const TripDeclaration* d = declared[l];
    if (!d || d->override || loop.source != CountSource::kComputed || loop.executions == 0) continue;
    if (d->trips + 1e-9 < loop.min_trips || d->trips - 1e-9 > loop.max_trips) {
      std::string computed = loop.min_trips == loop.max_trips
                                 ? fmt::format("{} in every execution", format_trips(loop.min_trips))
                                 : fmt::format("from {} to {} (mean {})", format_trips(loop.min_trips),
                                               format_trips(loop.max_trips), format_trips(loop.trips()));
      std::string file = in.problem && !in.problem->declared_file.empty() ? in.problem->declared_file : p.file;
      int line = in.problem ? in.problem->declared_line : 0;
      throw InputError(file, line,
                       fmt::format("stale trip count: trips['{}'] = {} declares the loop at {}, which the kernel "
                                   "runs {} (computed from its TileIR); remove the declaration, or write "
                                   "override({}) to replace the computed count",
                                   d->key, format_trips(d->trips), loop.name(), computed, format_trips(d->trips)));
    }
  }
  for (const auto& loop : out.loops) {
    if (loop.source == CountSource::kAssumed) {
      out.notes.push_back(fmt::format("the trips of the loop at {} are neither computed nor declared ({}): taken "
                                      "as {}; declare them in the problem's trips",
                                      loop.name(), loop.unknown, kAssumedTrips));
    }
  }
  return out;
}

}  // namespace tileperf
