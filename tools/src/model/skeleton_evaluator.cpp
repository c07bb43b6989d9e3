#include "model/skeleton_evaluator.h"

#include <algorithm>

#include <fmt/format.h>

#include "analysis/cost_model.h"
#include "model/scalar_ranges.h"
#include "support/error.h"

namespace tileperf {

namespace {

using Index = std::size_t;

}  // namespace

RunCounts::RunCounts(std::size_t loops, std::size_t memory_ops)
    : loops_(loops), values_(2 * loops + memory_ops, 0.0), stamp_(values_.size(), 0) {}

void RunCounts::clear() {
  for (std::size_t k : touched_) values_[k] = 0;
  touched_.clear();
  log_.clear();
  marks_.clear();
}

void RunCounts::add(std::size_t k, double v) {
  if (!marks_.empty() && stamp_[k] < marks_.back().id) {
    log_.push_back({k, values_[k], stamp_[k]});
    stamp_[k] = marks_.back().id;
    most_saved_ = std::max(most_saved_, log_.size());
  }
  if (values_[k] == 0 && v != 0) touched_.push_back(k);
  values_[k] += v;
}

std::vector<std::pair<std::size_t, double>> RunCounts::nonzero() const {
  std::vector<std::size_t> order = touched_;
  std::sort(order.begin(), order.end());
  order.erase(std::unique(order.begin(), order.end()), order.end());
  std::vector<std::pair<std::size_t, double>> out;
  for (std::size_t k : order) {
    if (values_[k] != 0) out.emplace_back(k, values_[k]);
  }
  return out;
}

void RunCounts::begin() { marks_.push_back({++next_mark_, log_.size()}); }

// The loop's saved counts become its parent's, but for those the parent
// saved already (the parent's copy is older).
void RunCounts::commit() {
  Mark done = marks_.back();
  marks_.pop_back();
  if (marks_.empty()) {
    log_.resize(done.at);
    return;
  }
  std::size_t kept = done.at;
  for (std::size_t i = done.at; i < log_.size(); ++i) {
    if (log_[i].stamp < marks_.back().id) log_[kept++] = log_[i];
  }
  log_.resize(kept);
}

void RunCounts::rollback() {
  Mark done = marks_.back();
  marks_.pop_back();
  while (log_.size() > done.at) {
    const Saved& s = log_.back();
    values_[s.k] = s.value;
    stamp_[s.k] = s.stamp;
    log_.pop_back();
  }
}

Evaluator::Evaluator(const ControlDependences& a, const SkeletonInputs& in, std::vector<SkeletonLoop>& loops,
                     const std::vector<const TripDeclaration*>& declared)
    : a_(a), p_(a.program()), in_(in), loops_(loops), declared_(declared) {
  for (const auto& op : p_.ops) {
    const std::string& n = op.name;
    kinds_.push_back(n == "for"        ? Kind::kFor
                     : n == "loop"     ? Kind::kLoop
                     : n == "if"       ? Kind::kIf
                     : n == "yield"    ? Kind::kYield
                     : n == "continue" ? Kind::kContinue
                     : n == "break"    ? Kind::kBreak
                     : n == "return"   ? Kind::kReturn
                                       : Kind::kOther);
  }
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

void Evaluator::run(const BlockBox& box, RunCounts& out) {
  box_ = box;
  counts_ = &out;
  out.clear();
  views_.clear();
  running_.clear();
  doubt_ = Doubt();
  run_region(p_.body, 1.0);
}

const Val& Evaluator::operand(const IrOp& op, std::size_t k) const {
  static const Val missing = unknown(Why::kUndefined, -1);
  return k < op.operands.size() ? env_[static_cast<Index>(op.operands[k])] : missing;
}

IrType Evaluator::result_type(const IrOp& op, std::size_t k) const {
  return k < op.results.size() ? p_.values[static_cast<Index>(op.results[k])].type : IrType::kOther;
}

IrType Evaluator::operand_type(const IrOp& op, std::size_t k) const {
  return k < op.operands.size() ? p_.values[static_cast<Index>(op.operands[k])].type : IrType::kOther;
}

void Evaluator::set_results(const IrOp& op, const Val& v) {
  for (int r : op.results) at(r) = v;
}

void Evaluator::step() {
  if (++steps_ > in_.max_steps) throw StepLimit{};
}

const Val* Evaluator::first_unknown(const IrOp& op) const {
  for (std::size_t k = 0; k < op.operands.size(); ++k) {
    const Val& v = operand(op, k);
    if (v.kind == Val::kUnknown) return &v;
  }
  return nullptr;
}

const Val& Evaluator::decide(const Val& v, int index) const {
  // A group of one block has no range: a value that differs is one a
  // malformed listing used where no operation of this run defined it.
  static const Val stale = unknown(Why::kUndefined, -1);
  if (v.differs() && box_.blocks() == 1) return stale;
  if (v.differs()) throw Split{index, v.dims};
  return v;
}

Evaluator::Leave Evaluator::run_region(const IrRegion& r, double mult) {
  for (int index : r.ops) {
    step();
    const IrOp& op = p_.ops[static_cast<Index>(index)];
    if (op.memory >= 0) counts_->add(counts_->memory(op.memory), mult);
    switch (kinds_[static_cast<Index>(index)]) {
      case Kind::kFor:
        if (run_for(op, index, mult) == Leave::kReturn) return Leave::kReturn;
        continue;
      case Kind::kLoop:
        if (run_loop(op, index, mult) == Leave::kReturn) return Leave::kReturn;
        continue;
      case Kind::kIf:
        if (Leave f = run_if(op, index, mult); f != Leave::kNormal) return f;
        continue;
      case Kind::kOther:
        compute(op, index);
        continue;
      default:
        break;
    }
    exit_.clear();
    for (std::size_t k = 0; k < op.operands.size(); ++k) exit_.push_back(operand(op, k));
    Kind kind = kinds_[static_cast<Index>(index)];
    return kind == Kind::kYield      ? Leave::kYield
           : kind == Kind::kContinue ? Leave::kContinue
           : kind == Kind::kBreak    ? Leave::kBreak
                                     : Leave::kReturn;
  }
  return Leave::kNormal;
}

Evaluator::Leave Evaluator::run_if(const IrOp& op, int index, double mult) {
  const Val& c = decide(operand(op, 0), index);
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
    if (f == Leave::kNormal) set_results(op, unknown(Why::kUnsupported, index));  // a side that yields nothing
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

void Evaluator::record(int l, double mult, double trips) {
  counts_->add(counts_->execution(l), mult);
  counts_->add(counts_->iteration(l), mult * trips);
  SkeletonLoop& loop = loops_[static_cast<Index>(l)];
  if (mult > 0) {
    loop.min_trips = std::min(loop.min_trips, trips);
    loop.max_trips = std::max(loop.max_trips, trips);
  }
}

void Evaluator::not_computed(int l, const Val& why) {
  SkeletonLoop& loop = loops_[static_cast<Index>(l)];
  if (!loop.unknown.empty()) return;
  loop.data_dependent = why.why == Why::kMemory;
  loop.unknown = describe(why);
}

std::string Evaluator::describe(const Val& v) const {
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
Evaluator::Leave Evaluator::once(const IrOp& op, double mult, double trips, const Val& vars) {
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
Evaluator::Leave Evaluator::uncounted(const IrOp& op, int l, double mult, const Val& why) {
  if (why.why != Why::kNone) not_computed(l, why);
  SkeletonLoop& loop = loops_[static_cast<Index>(l)];
  double trips = static_cast<double>(kAssumedTrips);
  if (const TripDeclaration* d = declared_[static_cast<Index>(l)]) {
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
void Evaluator::end_iterations(const Doubt& outer) {
  running_.pop_back();
  doubt_ = outer;
}

// ... with its counts and the values it carried out;
Evaluator::Leave Evaluator::counted(const IrOp& op, int index, int l, double mult, double trips,
                                    const std::vector<Val>& carried, const Doubt& outer) {
  end_iterations(outer);
  counts_->commit();
  record(l, mult, trips);
  for (std::size_t k = 0; k < op.results.size(); ++k) {
    at(op.results[k]) = k < carried.size() ? carried[k] : unknown(Why::kUndefined, index);
  }
  return Leave::kNormal;
}

// ... or, its control not computed, taken back and run once for its
// declared or assumed trips.
Evaluator::Leave Evaluator::taken_back(const IrOp& op, int l, double mult, const Val& why, const Doubt& outer) {
  end_iterations(outer);
  counts_->rollback();
  return uncounted(op, l, mult, why);
}

Evaluator::Leave Evaluator::run_for(const IrOp& op, int index, double mult) {
  int l = a_.loop_of(index);
  if (op.regions.empty() || op.operands.size() < 3) {  // no body or no bounds: nothing runs
    set_results(op, unknown(Why::kUnsupported, index));
    return Leave::kNormal;
  }
  const TripDeclaration* d = declared_[static_cast<Index>(l)];
  if (d && d->override) return uncounted(op, l, mult, unknown(Why::kNone, index));
  const Val &lb = operand(op, 0), &ub = operand(op, 1), &st = operand(op, 2);
  // A bound not computed leaves the count so for every block (the first in
  // order says why); one that differs between the blocks splits them.
  for (const Val* v : {&lb, &ub, &st}) {
    if (v->kind != Val::kInt && !v->differs())
      return uncounted(op, l, mult, v->kind == Val::kUnknown ? *v : unknown(Why::kUnsupported, index));
  }
  for (const Val* v : {&lb, &ub, &st}) {
    if (decide(*v, index).kind != Val::kInt) return uncounted(op, l, mult, unknown(Why::kUndefined, index));
  }
  const IrRegion& body = op.regions[0];
  // A step that is not positive, or a region without its induction variable.
  if (st.i <= 0 || body.arguments.empty()) return uncounted(op, l, mult, unknown(Why::kUnsupported, index));
  int bits = integer_bits(p_.values[static_cast<Index>(body.arguments[0])].type);
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
  return iterate_for(op, index, l, mult, trips, lb.i, st.i);
}

Evaluator::Leave Evaluator::iterate_for(const IrOp& op, int index, int l, double mult, double trips, std::int64_t first,
                                        std::int64_t step) {
  const IrRegion& body = op.regions[0];
  int bits = integer_bits(p_.values[static_cast<Index>(body.arguments[0])].type);
  loops_[static_cast<Index>(l)].iterated = true;
  counts_->begin();
  running_.push_back(l);
  std::vector<Val> carried;
  for (std::size_t k = 3; k < op.operands.size(); ++k) carried.push_back(operand(op, k));
  Doubt outer = doubt_;
  try {
    for (std::int64_t k = 0; static_cast<double>(k) < trips; ++k) {
      // The induction variable wraps to its type as the kernel's does.
      std::uint64_t iv =
          static_cast<std::uint64_t>(first) + static_cast<std::uint64_t>(k) * static_cast<std::uint64_t>(step);
      at(body.arguments[0]) = integer(wrap(static_cast<std::int64_t>(iv), bits));
      for (std::size_t a = 0; a + 1 < body.arguments.size(); ++a) {
        at(body.arguments[a + 1]) = a < carried.size() ? carried[a] : unknown(Why::kUndefined, index);
      }
      doubt_ = Doubt();
      Leave f = run_region(body, mult);
      if (f == Leave::kReturn) {
        end_iterations(outer);
        counts_->commit();
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
    return taken_back(op, l, mult, u.why, outer);
  }
  return counted(op, index, l, mult, trips, carried, outer);
}

Evaluator::Leave Evaluator::run_loop(const IrOp& op, int index, double mult) {
  int l = a_.loop_of(index);
  if (op.regions.empty()) {
    set_results(op, unknown(Why::kUnsupported, index));
    return Leave::kNormal;
  }
  const IrRegion& body = op.regions[0];
  const TripDeclaration* d = declared_[static_cast<Index>(l)];
  if (d && d->override) return uncounted(op, l, mult, unknown(Why::kNone, index));
  loops_[static_cast<Index>(l)].iterated = true;
  counts_->begin();
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
        counts_->commit();
        record(l, mult, trips);
        return f;
      }
      break;  // break, or a body without a terminator
    }
  } catch (const UnknownControl& u) {
    return taken_back(op, l, mult, u.why, outer);
  }
  return counted(op, index, l, mult, trips, carried, outer);
}

// The scalar operations; anything else gives unknown results.
void Evaluator::compute(const IrOp& op, int index) {
  std::string_view n = op.name;
  if (op.results.empty()) return;
  if (is_memory(op) || n.rfind("load_", 0) == 0 || n.rfind("atomic", 0) == 0) {
    set_results(op, unknown(Why::kMemory, index));
    return;
  }
  if (n == "constant") {
    IrType t = result_type(op);
    if (!op.has_value || op.results.size() != 1) return set_results(op, unknown(Why::kTile, index));
    return set_results(
        op, is_integer(t) ? integer(wrap(op.int_value, integer_bits(t))) : real(round_to(op.float_value, t)));
  }
  if (n == "get_tile_block_id" || n == "get_num_tile_blocks") {
    for (std::size_t k = 0; k < op.results.size(); ++k) {
      std::int64_t g = k < in_.grid.size() ? in_.grid[k] : 1;
      at(op.results[k]) = n == "get_num_tile_blocks" ? integer(g)
                          : k < 3                    ? block_range(box_.lo[k], box_.hi[k], static_cast<int>(k))
                                                     : integer(0);
    }
    return;
  }
  if (n == "assume") {  // assume <predicate>, %x: the value itself
    set_results(op, op.operands.empty() ? unknown(Why::kUndefined, index) : operand(op, op.operands.size() - 1));
    return;
  }
  if (n == "make_tensor_view" || n == "make_partition_view" || n == "get_index_space_shape" ||
      n == "get_tensor_shape") {
    return compute_view(op, index);
  }
  IrType type = result_type(op);
  if (type == IrType::kOther || op.results.size() != 1) {
    // A tile, a token or a pointer: never a decision's input as such.
    const Val* from = first_unknown(op);
    set_results(op, from && from->why == Why::kMemory ? *from : unknown(Why::kTile, index));
    return;
  }
  compute_scalar(op, index, type);
}

// Views and their shapes (a view's dimension may differ between blocks).
void Evaluator::compute_view(const IrOp& op, int index) {
  std::string_view n = op.name;
  if (n == "make_tensor_view") {
    View v;
    for (const auto& d : op.shape) v.shape.push_back(d.value >= 0 ? at(d.value) : integer(d.constant));
    v.tensor_shape = v.shape;
    return new_view(op, std::move(v));
  }
  const Val& src = operand(op, 0);
  // A view of another run (a malformed listing's use before definition) is none of this one's.
  if (src.kind != Val::kView || static_cast<std::size_t>(src.i) >= views_.size()) {
    return set_results(op, src.kind == Val::kUnknown ? src : unknown(Why::kUnsupported, index));
  }
  if (n == "make_partition_view") {
    View t = views_[static_cast<Index>(src.i)];
    View v;
    v.tensor_shape = t.tensor_shape;
    for (std::size_t k = 0; k < op.tile.size(); ++k) {
      std::size_t dim = k < op.dim_map.size() && op.dim_map[k] >= 0 ? static_cast<std::size_t>(op.dim_map[k]) : k;
      const Val s = dim < t.shape.size() ? t.shape[dim] : unknown(Why::kUnsupported, index);
      std::int64_t tile = op.tile[k];
      // Tiles along the dimension: ceil(s / tile), 0 for none (rising with s).
      auto tiles = [&](std::int64_t x) { return x <= 0 ? Int128(0) : (Int128(x) + tile - 1) / tile; };
      if ((s.kind == Val::kInt || s.kind == Val::kRange) && tile > 0) {
        v.shape.push_back(fitted(tiles(s.i), tiles(s.kind == Val::kRange ? s.hi : s.i), 64, s.dims));
      } else {
        v.shape.push_back(s.kind == Val::kUnknown || s.kind == Val::kVaries ? s : unknown(Why::kUnsupported, index));
      }
    }
    return new_view(op, std::move(v));
  }
  const View& v = views_[static_cast<Index>(src.i)];
  const auto& shape = n == "get_tensor_shape" ? v.tensor_shape : v.shape;
  for (std::size_t k = 0; k < op.results.size(); ++k) {
    Val s = k < shape.size() ? shape[k] : unknown(Why::kUnsupported, index);
    int bits = integer_bits(result_type(op, k));
    if (s.kind == Val::kInt) s.i = wrap(s.i, bits);
    if (s.kind == Val::kRange) s = fitted(s.i, s.hi, bits, s.dims);
    at(op.results[k]) = s;
  }
}

// An integer or float scalar; for values that differ between the blocks,
// their range (scalar_ranges.h).
void Evaluator::compute_scalar(const IrOp& op, int index, IrType type) {
  std::string_view n = op.name;
  if (n == "select" && op.operands.size() == 3 && operand(op, 0).differs()) {
    const Val &a = operand(op, 1), &b = operand(op, 2);
    std::uint8_t dims = operand(op, 0).dims | a.dims | b.dims;
    bool spans = (a.kind == Val::kInt || a.kind == Val::kRange) && (b.kind == Val::kInt || b.kind == Val::kRange);
    int bits = integer_bits(type);
    if (!spans || bits <= 1) return set_results(op, varies(dims));
    Int128 lo = std::min(as_signed(a.i, bits), as_signed(b.i, bits));
    Int128 hi = std::max(a.kind == Val::kRange ? a.hi : as_signed(a.i, bits),
                         b.kind == Val::kRange ? b.hi : as_signed(b.i, bits));
    return set_results(op, fitted(lo, hi, bits, dims));
  }
  if (n == "select" && op.operands.size() == 3 && operand(op, 0).kind == Val::kInt) {
    // The value chosen, whatever the other one is (both are computed: a
    // division by zero on the side not taken does not matter).
    Val v = operand(op, (operand(op, 0).i & 1) ? 1 : 2);
    if (v.kind == Val::kInt) v.i = wrap(v.i, integer_bits(type));
    if (v.kind == Val::kFloat) v.f = round_to(v.f, type);
    return set_results(op, v);
  }
  if (const Val* from = first_unknown(op)) return set_results(op, *from);
  bool differs = false;
  for (std::size_t k = 0; k < op.operands.size(); ++k) {
    const Val& v = operand(op, k);
    if (v.kind == Val::kView) return set_results(op, unknown(Why::kUnsupported, index));
    // A scalar computed from a tile (a reduction, say) is not known.
    if (operand_type(op, k) == IrType::kOther && n != "select") return set_results(op, unknown(Why::kTile, index));
    differs = differs || v.differs();
  }
  if (op.operands.size() > 3) return set_results(op, unknown(Why::kUnsupported, index));
  ScalarOperation x{op, type, operand_type(op, 0)};
  for (std::size_t k = 0; k < op.operands.size(); ++k) x.args[k] = &operand(op, k);
  bool divided_by_zero = false;
  if (differs) {
    // An operation the evaluator does not compute for any value stays not
    // computed for every block; one it computes gives the range.
    Val probe[3];
    ScalarOperation p{op, type, operand_type(op, 0)};
    for (std::size_t k = 0; k < op.operands.size(); ++k) {
      probe[k] = x.arg(k).differs() ? (is_float(operand_type(op, k)) ? real(1) : integer(1)) : x.arg(k);
      p.args[k] = &probe[k];
    }
    if (!scalar_result(p, divided_by_zero) && !divided_by_zero)
      return set_results(op, unknown(Why::kUnsupported, index));
    return set_results(op, range_result(x));
  }
  std::optional<Val> v = scalar_result(x, divided_by_zero);
  at(op.results[0]) = v ? *v : unknown(divided_by_zero ? Why::kDivision : Why::kUnsupported, index);
}

void Evaluator::new_view(const IrOp& op, View v) {
  Val r;
  r.kind = Val::kView;
  r.why = Why::kNone;
  r.i = static_cast<std::int64_t>(views_.size());
  views_.push_back(std::move(v));
  set_results(op, r);
}

}  // namespace tileperf
