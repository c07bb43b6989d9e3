#include "model/control_dependences.h"

namespace tileperf {

namespace {

using Index = std::size_t;

// Adds `at` to the places of loop `l` unless it is there.
void add_place(SkeletonLoop& l, const IrLocation& at) {
  for (const auto& p : l.places) {
    if (p.line == at.line && p.file == at.file && p.calls == at.calls) return;
  }
  l.places.push_back(at);
}

}  // namespace

bool is_loop(const IrOp& op) { return op.name == "for" || op.name == "loop"; }
bool is_memory(const IrOp& op) { return op.memory >= 0; }
bool is_terminator(const IrOp& op) {
  return op.name == "yield" || op.name == "continue" || op.name == "break" || op.name == "return";
}

ControlDependences::ControlDependences(const TileIrProgram& p) : p_(p) {
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

bool ControlDependences::collect(const IrRegion& r, int parent) {
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
    if (const IrLocation* at = p_.location_of(op); at && at->known()) {
      if (parent >= 0) add_place(loops_[static_cast<Index>(parent)], *at);
      if (self != parent) add_place(loops_[static_cast<Index>(self)], *at);
    }
    bool content = is_loop(op) || is_memory(op) || op.name == "continue" || op.name == "break" || op.name == "return";
    if (op.name == "yield") {
      for (int v : op.operands) content = content || p_.values[static_cast<Index>(v)].type != IrType::kOther;
    }
    for (const auto& region : op.regions) content = collect(region, self) || content;
    content_[static_cast<Index>(index)] = content;
    any = any || content;
  }
  return any;
}

void ControlDependences::add(int value, const Deps& d) {
  if (value < 0) return;
  Deps& mine = deps_[static_cast<Index>(value)];
  Deps before = mine;
  mine |= d;
  if (mine != before) changed_ = true;
}

Deps ControlDependences::loop_bit(int l) const {
  Deps d;
  if (l >= 0 && l < static_cast<int>(kMaxTrackedLoops)) d.set(3 + static_cast<Index>(l));
  return d;
}

void ControlDependences::terminators(const IrRegion& r, const std::string& kind, std::vector<Deps>& values,
                                     Deps& conditions, bool nested_loop) const {
  for (int index : r.ops) {
    const IrOp& op = p_.ops[static_cast<std::size_t>(index)];
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
    // `continue` and `break` leave the innermost loop: a nested loop's are
    // its own, and nothing in it is walked (once, by its own loop).
    if (is_loop(op)) continue;
    for (const auto& region : op.regions) {
      if (op.name != "if") terminators(region, kind, values, conditions, nested_loop);
    }
  }
}

void ControlDependences::propagate(const IrRegion& r) {
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

void ControlDependences::control(const IrRegion& r) {
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

}  // namespace tileperf
