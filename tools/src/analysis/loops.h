// Loop-level schedule metrics and the static cost estimate of a kernel.
//
// Every function of a listing gets a control-flow graph (cfg.h). Each
// natural loop is measured over its *body*: its blocks outside nested loops
// and outside the cold retry paths of barrier waits. The main loop is a
// documented, deterministic choice: among the loops that are not retry
// loops (of a barrier wait or of a register allocation), the one that does
// the most work in a launch of one block: the cost of its body times how
// often the body runs (its trips, those of the loops around it and the calls
// of its subroutine) times the warps that run it (warps.h); ties go to the
// deeper loop, then to the larger body, then to the lower address.
//
// The cost estimate weights every instruction by the cost model
// (cost_model.h) and by how often it runs per block: the product of the
// trip counts of the loops around it (declared by the configuration's
// Problem, else kAssumedTrips each), times the calls of its subroutine.
// Cold retry paths run zero times.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/cfg.h"
#include "analysis/cost_model.h"
#include "readers/line_table.h"
#include "readers/sass.h"
#include "analysis/warps.h"

namespace tileperf {

// A trip count for the `for` loops at `lines` of `file`: one the
// configuration declares (its problem's `trips`), or one the scalar
// evaluator computed from the kernel's TileIR (skeleton.h).
struct TripDeclaration {
  std::string key;  // as written: "k", "j#2", "helper.j@2"; a computed count: "computed"
  std::string file;
  std::vector<int> lines;
  double trips = 0;  // per execution of the loop (a mean over executions for a computed count)
  // Only where the loop's function is inlined at one of these call sites
  // (file, line); every call site when empty.
  std::vector<std::pair<std::string, int>> calls;
  bool override = false;  // declared to replace the computed count
  // A computed count: the loops of one location (file, line, call sites)
  // share a group, numbered in program order, so that the compiled loops
  // of a location take their counts in address order.
  int group = -1, ordinal = 0;
  int source = -1;         // the computed loop (Skeleton::loops) it comes from
  double executions = 0;   // ... and how often that loop runs in the launch
  int parent_source = -1;  // the computed loop around that loop, -1: none
  // The places of the operations of that loop's body (SkeletonLoop::places):
  // the lines a compiled loop of it is made of.
  std::vector<SourceLine> places;
};

// One flattened parameter of the kernel's entry (an array is its pointer,
// then its shape, then its strides; a list its pointer and length): the
// value the launch passes, when it is a number.
struct LaunchArgument {
  bool known = false;
  bool is_float = false;
  std::int64_t integer = 0;
  double real = 0;
};

// The launch a configuration stands for (the dump record's "problem").
struct Problem {
  std::vector<std::int64_t> grid;
  std::int64_t blocks = 0;
  std::vector<TripDeclaration> trips;
  // The bytes of the arrays the launch passes (each read or written once:
  // the floor on its memory traffic), 0 when not known, and why not.
  std::int64_t floor_bytes = 0;
  std::string floor_unknown;
  // The entry's arguments as the launch passes them (empty when the dump
  // step recorded none, and why not), for the scalar evaluator.
  std::vector<LaunchArgument> arguments;
  std::string no_arguments;
  // Where the configuration declares the problem: its errors' place.
  std::string declared_file;
  int declared_line = 0;
};

struct LineRange {
  std::string file;
  int first = 0, last = 0;
};

// How a compiled loop's trips follow from those of the TileIR loop it runs
// (loop_matching.h): that loop's trips per execution, less the iterations
// peeled off before the compiled loop, over the unroll factor of its
// unrolled copy (which takes the whole trips; a remainder copy takes what
// they leave), over the copies that share them alike.
struct TripShare {
  double peeled = 0;
  double unroll = 1;
  bool remainder = false;
  double divide = 1;
  std::string text;  // how, for a reader: "" for a loop that runs every iteration
};

struct LoopInfo {
  std::string function;
  std::uint64_t begin = 0, end = 0;  // header address, last address of its hot (not cold) blocks
  int parent = -1;                   // index in LoopAnalysis::loops
  int depth = 1;
  bool spin = false;               // retry loop: of a barrier wait, or of a register allocation
  bool allocation_retry = false;   // ... of a register allocation (runs once, not cold)
  double trips = 0;                // per execution of the loop (a mean over executions and blocks)
  std::string trips_from;          // "computed", the declaration's key, or "assumed"
  int trips_group = -1;            // the computed count's group (TripDeclaration::group)
  std::vector<int> trips_sources;  // the computed loops it takes its count from (Skeleton::loops)
  TripShare share;                 // ... and its share of their trips
  bool elect = false;              // an elect loop (cfg.h): the compiler's own, runs once
  WarpMask warps = 0;              // the warps of a block that run its body
  double runs = 0;                 // iterations of the body per block: trips times what runs it
  double work = 0;                 // cost x runs x warps: what the main loop is chosen by
  // The body: blocks outside nested loops and cold paths.
  std::int64_t instructions = 0;
  std::int64_t stall_cycles = 0;  // sum of the compiler's stall counts: loop.*.ii
  std::int64_t waits = 0;         // instructions that wait on a scoreboard
  std::int64_t mma = 0, mufu = 0, loads = 0, stores = 0, async_copies = 0, fp64 = 0;
  double cost = 0;  // cost model cycles of one iteration of the body
  std::map<std::string, std::int64_t> opcodes;
  std::optional<LineRange> lines;  // source lines of the body, in the kernel's file
};

// The loops of one listing, analysed (report/loops_text renders it for
// `tileperf loops`; a check keeps its main loop for the message).
struct LoopAnalysis {
  std::string arch;
  std::vector<LoopInfo> loops;    // by function, then address
  int main = -1;                  // index of the main loop, -1: no loop
  double block_cost = 0;          // cost model cycles per block (every function)
  std::int64_t unclassified = 0;  // instructions the cost model knows no class of
  std::int64_t backward_non_loop_edges = 0;
  std::int64_t unknown_branches = 0;  // blocks ending in an indirect branch
  std::vector<std::string> notes;     // declared trips that matched no loop, ...
};

struct LoopOptions {
  const LineTable* lines = nullptr;   // source lines, when the cubin has them
  const Problem* problem = nullptr;   // declared trips and grid
  std::int64_t tensor_macs_hint = 0;  // see CostModel
  int warps = 0;                      // warps per block (threads / 32), 0 when not known
  // The counts the scalar evaluator computed (skeleton.h), which the
  // loops take instead of the problem's declarations when given.
  const std::vector<TripDeclaration>* computed = nullptr;
};

// What the launch model needs of each function: its graph, how often each
// block runs in a launch of one block (0 on cold paths and where no warp
// goes) and which warps run it.
struct FunctionFlow {
  FunctionGraph graph;
  std::vector<double> runs;
  std::vector<WarpMask> warps;
  std::size_t first_loop = 0;  // its loops' first index in LoopAnalysis::loops
  // What the runs are made of: each block's routine (the entry block that
  // reaches it first, -1 where none does), the calls that run a routine
  // (block, entry block), each block's own cost in cycles, and the blocks'
  // runs times their cost (what LoopAnalysis::block_cost sums).
  std::vector<int> routine_of;
  std::vector<std::pair<std::size_t, std::size_t>> calls;
  std::vector<double> own_cost;
  double block_cost = 0;
};

// The runs of each block of `flow` again, from the trips of `analysis`'s loops
// (a class of blocks with counts of its own), and its block cost.
void reweigh(const LoopAnalysis& analysis, FunctionFlow& flow);

// With `flows`, also hands over each function's flow (the graphs point
// into `listing`).
LoopAnalysis analyze_loops(const SassListing& listing, const LoopOptions& options,
                           std::vector<FunctionFlow>* flows = nullptr);

// The loop drawn beside the main loop: the one with the most copies
// issued by warps that do not run the main loop (the producer of a
// warp-specialised pipeline); -1 when there is none.
int producer_loop(const LoopAnalysis& r);

// A trip count as a reader wants it: "31", or "31.03" for a mean.
std::string trips_text(double trips);

// "0x0b10-0x0f60": a loop by its addresses.
std::string loop_name(const LoopInfo& l);

// "matmul.py:35-38" (the file name without its folder).
std::string format_lines(const LineRange& lines);

}  // namespace tileperf
