// The static part of the scalar evaluator (skeleton.h): the loops of a
// TileIR program with their parents, and which values each control
// decision (an `if`'s condition, a `for`'s bounds, a `loop`'s exits) is
// computed from: the grid's block ids and the loops' induction variables and
// loop-carried values, to a fixed point over the loops. From it: the `for`
// loops whose bodies decide from their own variables (iterated one by one;
// the others run their body once for all their trips). Which grid
// dimensions blocks differ along the evaluation finds itself (groups of
// blocks, skeleton_evaluator.h).
#pragma once

#include <bitset>
#include <vector>

#include "model/skeleton.h"
#include "readers/tileir_program.h"

namespace tileperf {

// Dependences of a value: the grid dimensions (bits 0-2) and the loops
// (bit 3 + loop) whose variables it is computed from.
inline constexpr std::size_t kMaxTrackedLoops = 253;
using Deps = std::bitset<kMaxTrackedLoops + 3>;

bool is_loop(const IrOp& op);
bool is_memory(const IrOp& op);
bool is_terminator(const IrOp& op);

class ControlDependences {
 public:
  explicit ControlDependences(const TileIrProgram& p);

  const TileIrProgram& program() const { return p_; }
  const std::vector<SkeletonLoop>& loops() const { return loops_; }
  int loop_of(int op) const { return loop_of_op_[static_cast<std::size_t>(op)]; }
  // Whether the `for` at loop index `l` must be iterated (a decision reads its variables).
  bool iterated(int l) const {
    return l >= static_cast<int>(kMaxTrackedLoops) || decisions_.test(3 + static_cast<std::size_t>(l));
  }
  // Whether an `if` or a loop holds what the counts depend on (a loop, a
  // memory operation, a terminator that leaves it, a scalar it yields).
  bool has_content(int op) const { return content_[static_cast<std::size_t>(op)]; }

 private:
  // The loops of the program in order, with parents; and which operations
  // have content.
  bool collect(const IrRegion& r, int parent);

  void add(int value, const Deps& d);

  Deps of(int value) const { return value < 0 ? Deps() : deps_[static_cast<std::size_t>(value)]; }

  Deps loop_bit(int l) const;

  // The values a region's terminators hand on, by kind, and the conditions
  // of the `if`s they are nested in.
  void terminators(const IrRegion& r, const std::string& kind, std::vector<Deps>& values, Deps& conditions,
                   bool nested_loop) const;

  void propagate(const IrRegion& r);

  // The dependences of the decisions that change counts.
  void control(const IrRegion& r);

  const TileIrProgram& p_;
  std::vector<SkeletonLoop> loops_;
  std::vector<int> loop_of_op_;
  std::vector<bool> content_;
  std::vector<Deps> deps_;
  Deps decisions_;
  bool changed_ = false;
};

}  // namespace tileperf
