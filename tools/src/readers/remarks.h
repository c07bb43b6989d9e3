// Parser for the optimization remarks tileiras writes with
// --remark-format=yaml: LLVM-style YAML documents, one per remark,
//
//   --- !Passed
//   Pass:            Tensor-core
//   Name:            RemarkTensorCoreMMA
//   DebugLoc:        { File: 'k.py', Line: 13, Column: 14 }
//   Function:        matmul
//   Args:
//     - RemarkId:    2
//     - Remark:      MMA operation successfully optimized to use Tensor Cores
//     - Instruction: Tensor-core SM90
//     - Shape:       '[64, 128, 16]'
//   ...
//
// tileiras 13.4 writes each document twice (13.5 once), both repeat `Reason`
// arguments, and documents come in a different order from run to run; the
// first two are folded here, and nothing computed from remarks depends on
// their order.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace tileperf {

struct Remark {
  std::string kind;  // Passed, Failure, Missed, Analysis (the document's tag)
  std::string pass, name, function;
  std::string file;  // DebugLoc
  int line = 0, column = 0;
  std::vector<std::pair<std::string, std::string>> args;  // in order, repeats folded

  std::string arg(const std::string& key) const;  // "" when absent
  std::string where() const;                      // "k.py:13:14"
};

// Unique remarks in file order. Throws InputError naming `filename` and the
// line for malformed YAML, a document without Name/Function/Args, and a file
// cut off inside a document (tileiras ends every document with "...").
std::vector<Remark> parse_remarks(const std::string& text, const std::string& filename);

// "[64, 128, 16]" -> "64x128x16"; other text is kept as it is.
std::string shape_key(const std::string& text);

// A remark of a failing kind (Failure, Missed).
bool is_failure(const Remark& r);

// An MMA that did not get tensor cores (a failure, or FMA chosen).
bool is_lost_tensor_core(const Remark& r);

// The lost optimizations tileiras 13.5 reports in remarks of their own
// (absent from 13.4's output), each in its failing kinds.
enum class LostOptimization {
  kNone,
  kIndexNarrowing,    // RemarkTensorViewIndexTypeNarrowing: index arithmetic stays 64-bit
  kRegisterPressure,  // RegisterPressure (W0001): the estimate exceeds the register budget
  kRegisterSpill,     // RemarkPerfRegisterSpill
  kLocalMemory,       // RemarkPerfLocalMemoryUsage
};
LostOptimization lost_optimization(const Remark& r);

// One line per remark that points at a lost optimization (MMA on FMA, TMA
// not selected, register pressure, spills, local memory), with its place,
// its id when it is a code (W0001), reason and suggestion, sorted.
std::vector<std::string> remark_diagnostics(const std::vector<Remark>& remarks);

}  // namespace tileperf
