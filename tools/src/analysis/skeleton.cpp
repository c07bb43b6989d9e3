#include "analysis/skeleton.h"

#include <algorithm>
#include <bitset>
#include <cmath>
#include <cstring>
#include <limits>
#include <unordered_map>

#include <fmt/format.h>

#include "analysis/control_dependences.h"
#include "analysis/cost_model.h"
#include "analysis/scalar_ops.h"
#include "support/error.h"
#include "support/text.h"

namespace tileperf {

namespace {

using Index = std::size_t;

// A control decision that cannot be taken from the values at hand, inside a
// loop being iterated: the loop's count is not computed.
struct UnknownControl {
  Val why;
};

struct StepLimit {};

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
  Evaluator(const ControlDependences& a, const SkeletonInputs& in, std::vector<SkeletonLoop>& loops,
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
    // count (see Doubt; run_for and run_loop use it).
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

  // The end of a loop run iteration by iteration: the loop around it runs on.
  void end_iterations(const Doubt& outer) {
    running_.pop_back();
    doubt_ = outer;
  }

  Leave run_for(const IrOp& op, int index, double mult) {
    int l = a_.loop_of(index);
    if (op.regions.empty() || op.operands.size() < 3) return Leave::kNormal;
    const IrRegion& body = op.regions[0];
    const TripDeclaration* d = declaration(l);
    const Val &lb = operand(op, 0), &ub = operand(op, 1), &st = operand(op, 2);
    if (d && d->override) return uncounted(op, l, mult, unknown(Why::kNone, index));
    for (const Val* v : {&lb, &ub, &st}) {
      if (v->kind != Val::kInt)
        return uncounted(op, l, mult, v->kind == Val::kUnknown ? *v : unknown(Why::kUnsupported, index));
    }
    if (st.i <= 0) return uncounted(op, l, mult, unknown(Why::kUnsupported, index));
    IrType t = p_.values[static_cast<Index>(body.arguments[0])].type;
    int bits = integer_bits(t);
    Int128 lo = op.unsigned_compare ? static_cast<Int128>(as_unsigned(lb.i, bits)) : as_signed(lb.i, bits);
    Int128 hi = op.unsigned_compare ? static_cast<Int128>(as_unsigned(ub.i, bits)) : as_signed(ub.i, bits);
    Int128 span = hi - lo;
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
          end_iterations(outer);
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
      end_iterations(outer);
      *counts_ = std::move(saved);
      return uncounted(op, l, mult, u.why);
    }
    end_iterations(outer);
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
          end_iterations(outer);
          record(l, mult, trips);
          return f;
        }
        break;  // break, or a body without a terminator
      }
    } catch (const UnknownControl& u) {
      end_iterations(outer);
      *counts_ = std::move(saved);
      return uncounted(op, l, mult, u.why);
    }
    end_iterations(outer);
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
    ScalarOperation x{op, type, operand_type(op, 0)};
    for (std::size_t k = 0; k < 3 && k < op.operands.size(); ++k) x.args[k] = &operand(op, k);
    if (op.operands.size() > 3) {
      set_results(op, unknown(Why::kUnsupported, index));
      return;
    }
    bool divided_by_zero = false;
    std::optional<Val> v = scalar_result(x, divided_by_zero);
    at(op.results[0]) = v ? *v : unknown(divided_by_zero ? Why::kDivision : Why::kUnsupported, index);
  }

  void new_view(const IrOp& op, View v) {
    Val r;
    r.kind = Val::kView;
    r.why = Why::kNone;
    r.i = static_cast<std::int64_t>(views_.size());
    views_.push_back(std::move(v));
    set_results(op, r);
  }

  const ControlDependences& a_;
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
};

bool loop_declared_by(const TripDeclaration& d, const SkeletonLoop& l) {
  return l.where.known() && declares(d, l.where.file, l.where.line, l.where.calls);
}

}  // namespace

std::string_view count_source_name(CountSource s) {
  switch (s) {
    case CountSource::kComputed:
      return "computed";
    case CountSource::kDeclared:
      return "declared";
    case CountSource::kOverride:
      return "override";
    case CountSource::kAssumed:
      return "assumed";
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
    d.key = loop.source == CountSource::kComputed  ? "computed"
            : loop.source == CountSource::kAssumed ? "assumed"
                                                   : loop.declared_key;
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
  ControlDependences analysis(p);
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
    bool varies =
        std::find(out.varying_dims.begin(), out.varying_dims.end(), static_cast<int>(d)) != out.varying_dims.end();
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
      std::string key(reinterpret_cast<const char*>(counts.executions.data()),
                      counts.executions.size() * sizeof(double));
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
                                 ? fmt::format("{} in every execution", trips_text(loop.min_trips))
                                 : fmt::format("from {} to {} (mean {})", trips_text(loop.min_trips),
                                               trips_text(loop.max_trips), trips_text(loop.trips()));
      std::string file = in.problem && !in.problem->declared_file.empty() ? in.problem->declared_file : p.file;
      int line = in.problem ? in.problem->declared_line : 0;
      throw InputError(file, line,
                       fmt::format("stale trip count: trips['{}'] = {} declares the loop at {}, which the kernel "
                                   "runs {} (computed from its TileIR); remove the declaration, or write "
                                   "override({}) to replace the computed count",
                                   d->key, trips_text(d->trips), loop.name(), computed, trips_text(d->trips)));
    }
  }
  for (const auto& loop : out.loops) {
    if (loop.source == CountSource::kAssumed) {
      out.notes.push_back(
          fmt::format("the trips of the loop at {} are neither computed nor declared ({}): taken "
                      "as {}; declare them in the problem's trips",
                      loop.name(), loop.unknown, kAssumedTrips));
    }
  }
  return out;
}

}  // namespace tileperf
