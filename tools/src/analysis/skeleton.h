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
// Exact aggregation over large grids: a static dependence analysis finds the
// values each control decision (an `if`'s condition, a loop's bounds) is
// computed from. Grid dimensions that no decision reads are not iterated:
// the blocks along them have the same counts, evaluated once and counted for
// all. A `for` whose body makes no decision from its induction variable or
// its loop-carried values (and whose results decide nothing) runs its body
// once, counted `trips` times. Everything else is evaluated block by block
// and iteration by iteration, up to `max_steps` operations in all, past
// which the evaluation stops with an error located at the loop that was
// running.
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

struct SkeletonInputs {
  const TileIrProgram* program = nullptr;
  const TileIrStats* stats = nullptr;     // the program's memory operations
  std::vector<std::int64_t> grid;         // 1 to 3 dimensions
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

struct Skeleton {
  std::vector<SkeletonLoop> loops;
  std::vector<BlockClass> classes;  // at least one
  std::vector<std::int64_t> grid;
  std::vector<int> varying_dims;  // grid dimensions whose blocks differ (0 = x)
  std::vector<int> class_table;   // class of each point of the varying dimensions (x fastest)
  std::int64_t evaluated_blocks = 0, steps = 0;
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

// Throws InputError for a stale declaration (at the problem's declaration)
// and for an evaluation past `max_steps` (at the loop that was running).
Skeleton evaluate_skeleton(const SkeletonInputs& in);

}  // namespace tileperf
