// Control-flow graph of one SASS function: basic blocks, dominators and
// natural loops with their nesting.
//
// Blocks start at the function's first instruction, at every branch or call
// target and after every branch, return and exit. A predicated branch or
// exit also falls through; an indirect branch (BRX, JMX) has successors
// unknown to a static reader and is marked so. A call falls through; its
// target starts a subroutine of its own. A loop is natural: a back edge is
// an edge whose target dominates its source, and the loop of a header is
// every block that reaches one of its back edges without passing the
// header. A backward branch whose target does not dominate it (the jump
// back from an out-of-line block into the code it was taken from) is not a
// loop. Loops with the same header are one loop; a loop is nested in the
// smallest loop that contains its header.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "readers/sass.h"

namespace tileperf {

struct BasicBlock {
  std::size_t begin = 0, end = 0;  // instruction indices [begin, end) in the function
  std::vector<std::size_t> successors, predecessors;
  bool unknown_successors = false;  // ends in an indirect branch
  bool reachable = false;           // from the function's entry or a call target
};

struct Loop {
  std::size_t header = 0;            // block index
  std::vector<std::size_t> blocks;   // sorted block indices, header included
  std::vector<std::size_t> latches;  // sources of the back edges
  int parent = -1;                   // index in FunctionGraph::loops, -1: outermost
  std::vector<std::size_t> children;
  int depth = 1;  // 1 for an outermost loop
  // A retry loop of a barrier wait: it polls (SYNCS.PHASECHK, NANOSLEEP,
  // YIELD) and does no other work (no arithmetic, memory access but a
  // spilled register's reload or save, or MMA).
  bool spin = false;
  // A retry loop of a register allocation (USETMAXREG.TRY_ALLOC, as warp
  // specialisation under an occupancy hint emits): it is entered in line and
  // runs once when the first try succeeds, so unlike a barrier wait's retry
  // loop it is not cold.
  bool allocation_retry = false;
  // An elect loop: closed by a branch taken while any lane still needs it
  // (`@P0 BRA.U.ANY`) around an ELECT, it runs a uniform operation (a
  // tensor-core MMA or barrier of sm_100) for one elected lane at a time;
  // tileiras enters it with one lane elected, so it runs once.
  bool elect = false;

  bool contains(std::size_t block) const;
};

struct FunctionGraph {
  const SassFunction* function = nullptr;
  std::vector<BasicBlock> blocks;
  std::vector<std::size_t> entries;         // the function's entry and each call target (blocks)
  std::vector<int> idom;                    // immediate dominator per block; -1: entry or unreachable
  std::vector<Loop> loops;                  // sorted by header address
  std::vector<int> innermost_loop;          // per block: innermost loop containing it, -1: none
  std::size_t backward_non_loop_edges = 0;  // retreating edges whose target does not dominate
  // Per block: executed only after a retry loop of a barrier wait failed its
  // first try (inside such a loop, or reached only from such blocks).
  std::vector<bool> cold;

  const SassInstruction& instruction(std::size_t index) const { return function->instructions[index]; }
  std::uint64_t block_address(std::size_t block) const { return instruction(blocks[block].begin).address; }
  std::uint64_t block_end_address(std::size_t block) const {  // address of the last instruction
    return instruction(blocks[block].end - 1).address;
  }
  bool dominates(std::size_t a, std::size_t b) const;
  // Blocks of `loop` outside its child loops.
  std::vector<std::size_t> own_blocks(std::size_t loop) const;
  // The instructions of `blocks`, block by block.
  std::vector<std::size_t> instructions_of(const std::vector<std::size_t>& blocks) const;
};

// Builds the graph of a function's code (padding excluded).
FunctionGraph build_graph(const SassFunction& fn);

}  // namespace tileperf
