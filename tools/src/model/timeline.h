// When each instruction of a warp issues: a replay of the schedule the
// compiler wrote into the control bits, with the latencies it leaves to the
// hardware.
//
// A warp issues its instructions in order. After each it stalls for the
// stall count of its control bits (at least one cycle). An instruction that
// waits on scoreboards issues once the instructions that set them are done:
// a variable-latency result (global, shared or constant load, MUFU, SHFL,
// S2R, ...) after that class's latency. Asynchronous work runs beside the
// warp: a TMA load completes after the copy engine's latency for its bytes
// and signals the mbarrier of its stage; a warpgroup MMA (HGMMA) occupies
// the tensor cores for its multiply-accumulates and its group's results are
// usable after a fixed latency more; TMA stores and cp.async copies complete
// on the SB0 queue. A wait on an mbarrier (SYNCS.PHASECHK) waits for the
// signal of the stage it consumes, a WARPGROUP.DEPBAR for the MMA groups
// beyond the number it allows, a DEPBAR.LE SB0 for the copies beyond its
// count, and BAR.SYNC costs the measured barrier time.
//
// Each warp role (the warps that run the same blocks, warps.h) is replayed
// on its own: a loop body three times in a row with its state carried, the
// third iteration's length being the loop's time per iteration (with nested
// loops as one step each of their whole length); code outside loops once.
// Outside loops a role's mbarrier waits are matched with the signals other
// roles made (the consumer waits for the producer's copies), in three
// rounds; inside loops only with its own (a pipeline's other stages are
// taken to run ahead: the bandwidth and throughput terms of the launch model
// bound those loops instead).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "readers/line_table.h"
#include "analysis/loops.h"
#include "readers/sass.h"
#include "readers/tileir.h"
#include "analysis/warps.h"

namespace tileperf {

// Cycles of the operations a warp waits on (launch_model.cpp has the
// measured values and their sources).
struct Latencies {
  double global_load = 0, shared = 0, constant = 0, special_register = 0, mufu = 0, shuffle = 0;
  double local = 0;               // LDL: L1 when the spills fit it, else L2 (the launch model decides)
  double convert = 0, other = 0;  // other: any other instruction that sets a scoreboard
  double operand_read = 0;        // release of a read scoreboard (a store's operands)
  double barrier = 0;             // BAR.SYNC of the block
  double tma_load = 0, tma_load_per_kib = 0, tma_store = 0, tma_store_per_kib = 0;
  double mma_macs_per_cycle = 0;  // one warpgroup's dependent MMA chain
  double mma_result = 0;          // from the end of an MMA group to its results in registers
  double register_mma = 0;        // HMMA, IMMA, DMMA (register to register)
};

// The latencies by name ("global_load", "mma_result", ...), and setting
// one by name (false for an unknown name).
std::vector<std::pair<std::string, double*>> latency_fields(Latencies& l);
bool set_latency(Latencies& l, const std::string& name, double value);

// One instruction's issue in the replay, for the picture of a loop
// (report/launch_picture.h draws it).
struct IssueEvent {
  std::size_t instruction = 0;  // index in its function
  std::uint64_t address = 0;
  std::string opcode;
  double issue = 0;       // cycle of issue
  double done = 0;        // when its result or copy is complete (== issue when immediate)
  double waited = 0;      // cycles it waited for a scoreboard, barrier or MMA before issuing
  int iteration = 0;      // 0, 1, 2: which replay of a loop body
  std::string waits_for;  // what it waited for ("SB2", "mbarrier 0x30000", "MMA groups", ...)
  // The instruction whose result or copy the wait was for, when the replay
  // knows it (address, and the iteration it ran in; -1 outside the loop).
  std::uint64_t waited_on = 0;
  int waited_on_iteration = -1;
  bool waited_for_memory = false;  // the wait was for a global load or a copy
};

struct RoleTime {
  WarpMask warps = 0;
  double cycles = 0;  // the role's whole run in one block
};

struct LoopTimeline {
  std::size_t loop = 0;  // index in LoopAnalysis::loops
  double cycles_per_iteration = 0;
  std::vector<IssueEvent> events;  // three iterations, in issue order
};

struct BlockTimeline {
  std::vector<RoleTime> roles;                // per warp role
  double cycles = 0;                          // the longest role: one block's latency on an idle SM
  std::map<std::size_t, LoopTimeline> loops;  // per loop (LoopAnalysis index), of its first role
};

struct TimelineInputs {
  const SassListing* listing = nullptr;
  const std::vector<FunctionFlow>* flows = nullptr;
  const LoopAnalysis* loops = nullptr;
  const LineTable* lines = nullptr;
  const TileIrStats* tileir = nullptr;  // tile bytes per source line, for the TMA copies' sizes
  Latencies latency;
  std::int64_t tensor_macs_hint = 0;  // MACs of a tensor instruction without a shape
  bool keep_events = false;           // record each loop's replay (the picture)
};

BlockTimeline replay_block(const TimelineInputs& in);

// The bytes one TMA copy instruction at each source line moves: the tile
// bytes of the TileIR operations at that line over the copies there.
std::map<std::string, double> copy_bytes_by_line(const SassListing& listing, const LineTable& lines,
                                                 const TileIrStats& tileir);

}  // namespace tileperf
