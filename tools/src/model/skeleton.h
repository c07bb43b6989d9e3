// The control skeleton of a kernel, evaluated: the scalar part of its
// TileIR (integer and scalar float arithmetic with cuTile's semantics,
// comparisons, selects, min/max, casts, block ids and the grid, the shapes of
// tensor and partition views) run for concrete launch arguments, with its
// structured control flow (`for` with loop-carried scalars, `if`, `loop` with
// break and continue), for every block of the launch's grid. Tile-valued and
// memory operations are not computed: a memory operation is counted where it
// runs, its result is unknown.
//
// What comes out is, per block, how often each loop runs and iterates and
// how often each tile load and store runs. Blocks with the same counts form
// a class; the launch model takes each class's counts (launch_model.h).
//
// Exact aggregation over any grid: the blocks are evaluated in groups, a
// box of block ids at once (skeleton_evaluator.h): a block id is a range
// over the box, and a decision that is not the same for every block of the
// box halves it along a dimension the decision reads. A box evaluated to
// its end holds blocks with the same counts, counted for all of them: a
// grid along which no decision differs costs one evaluation, one whose
// blocks differ at a few places costs a few per place (per dimension, per
// class), and one whose blocks need more than kMaxEvaluations groups is an
// error located at the decision, not a walk. A `for` whose body makes no
// decision from its induction variable or its loop-carried values (and
// whose results decide nothing) runs its body once, counted `trips` times.
// Everything else is evaluated iteration by iteration, up to `max_steps`
// operations in all, past which the evaluation stops with an error located
// at the loop that was running.
//
// A loop whose bound is not computable is named with the reason: data-
// dependent when the bound comes from memory (the load's file:line), or a
// tile value, an argument without a recorded value. Only such a loop takes
// a declared count (a `trips=` entry of the configuration's problem, per
// execution); an explicit override replaces a computed count; a declared
// count outside the computed range is a stale declaration (an InputError of
// the configuration). A loop neither computed nor declared is assumed to
// run kAssumedTrips times, and says so in `notes`.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/loops.h"
#include "readers/tileir.h"

namespace tileperf {

// Bounds of an evaluation (docs/design/hostile-inputs.md), each an error
// located where it is passed: the loops of a program, the groups of blocks
// evaluated apart, the classes of blocks and their counts (a class keeps
// two per loop and one per memory operation).
inline constexpr std::size_t kMaxSkeletonLoops = std::size_t(1) << 14;
inline constexpr std::int64_t kMaxEvaluations = std::int64_t(1) << 16;
inline constexpr std::size_t kMaxClassCounts = std::size_t(1) << 23;

struct SkeletonInputs {
  const TileIrProgram* program = nullptr;
  const TileIrStats* stats = nullptr;     // the program's memory operations
  std::vector<std::int64_t> grid;         // 1 to 3 dimensions, each from 1 to 2^31 - 1
  std::vector<LaunchArgument> arguments;  // in the entry's order; empty when none were recorded
  std::string no_arguments;               // why none were recorded
  const Problem* problem = nullptr;       // declared trips and where the problem is declared
  std::int64_t max_steps = std::int64_t(1) << 26;
};

enum class CountSource { kComputed, kDeclared, kOverride, kAssumed };
// "computed", "declared", "override", "assumed".
std::string_view count_source_name(CountSource s);

struct SkeletonLoop {
  int op = -1;       // in the program
  std::string kind;  // "for" or "loop"
  IrLocation where;
  int parent = -1;  // the enclosing loop, index in Skeleton::loops
  // The places (file, line, call sites) of the operations of its body
  // outside nested loops, and of those loops themselves: where the compiled
  // loop's instructions come from (loops.h).
  std::vector<IrLocation> places;
  int group = 0;    // loops of one location (file, line, call sites) share a group
  int ordinal = 0;  // ... and are numbered in program order
  CountSource source = CountSource::kComputed;
  std::string declared_key;  // the declaration that gave or overrode the count
  double declared = 0;
  std::string unknown;  // why the count is not computed ("" when it is)
  bool data_dependent = false;
  bool iterated = false;  // evaluated iteration by iteration (its body decides from its variables)
  // Over the launch: executions and iterations summed over blocks, and the
  // fewest and most iterations of one execution.
  double executions = 0, iterations = 0;
  double min_trips = 0, max_trips = 0;
  double trips() const { return executions > 0 ? iterations / executions : 0; }
  std::string name() const;  // "attention.py:70" (with "@attention.py:73" for an inlined loop)
};

// One class of blocks: their per-block counts, and how many blocks.
struct BlockClass {
  std::vector<double> executions, iterations;  // per loop
  std::vector<double> memory;                  // per TileIrStats::memory operation
  std::int64_t blocks = 0;
  std::int64_t first_block = 0;  // the first block of the class in dispatch order
  double trips(std::size_t loop) const { return executions[loop] > 0 ? iterations[loop] / executions[loop] : 0; }
};

// The groups of blocks the evaluation halved the grid into: a node is
// halved along `dim` at `split` (ids below it `low`, the others `high`),
// or is a group of one class.
struct ClassNode {
  int dim = -1;
  std::int64_t split = 0;
  int low = -1, high = -1;
  int cls = 0;
};

struct Skeleton {
  std::vector<SkeletonLoop> loops;
  std::vector<BlockClass> classes;  // at least one, in the order of their first block
  std::vector<std::int64_t> grid;
  std::vector<int> varying_dims;      // grid dimensions whose blocks differ (0 = x)
  std::vector<ClassNode> class_tree;  // the root first
  std::int64_t evaluated_blocks = 0;  // groups of blocks evaluated, each at once
  std::int64_t steps = 0;
  bool evaluated = false;  // false: no program to run (every loop assumed)
  std::vector<std::string> notes;

  std::int64_t blocks() const;
  // The class of block `block` in dispatch order (x fastest, then y, then z).
  int class_of(std::int64_t block) const;
  // The per-execution trips of every loop as trip declarations, for the
  // loops of the SASS (loops.h): of one class, or of the whole launch
  // (`cls` < 0: iterations over executions summed over blocks).
  std::vector<TripDeclaration> trips(int cls) const;
};

// Throws InputError for a stale declaration (at the problem's declaration),
// for an evaluation past `max_steps` (at the loop that was running) and
// past the bounds above (where they were passed).
Skeleton evaluate_skeleton(const SkeletonInputs& in);

}  // namespace tileperf
