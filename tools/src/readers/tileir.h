// Reader for TileIR text as `tileirdisasm` prints it from bytecode:
//
//   entry @gelu(%arg0: tile<ptr<f16>>, ...) optimization_hints=<...> {
//     %0 = make_token : token
//     %tile, %result_token = load_view_tko weak %pview[%blockId_x] token = %0 : ...
//     %for:3 = for %loopIdx in (...) : tile<i32> iter_values(...) -> (...) {
//       ...
//     }
//     return
//   }
//
// Counts operations by name and the token ordering between memory operations.
// With `tileirdisasm -g` every operation ends in ` loc(#locN)` and the
// locations follow the entries (`#locN = loc("k.py":36:14)`,
// `#locM = #cuda_tile.di_loc<#locN in ...>`, `loc(callsite(#locA at #locB))`):
// the memory operations then carry their source line and the lines of the
// `for` operations around them (a region's location follows its `}`).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "readers/tileir_program.h"

namespace tileperf {

// A tile load or store (load_view_tko, store_ptr_tko, atomic_*, ...).
struct TileMemoryOp {
  std::string name;
  bool store = false;
  std::int64_t bytes = 0;  // the tile it moves: elements times element bits / 8
  std::string file;        // source location, when the listing has them
  int line = 0;
  std::vector<int> loops;        // lines of the enclosing `for` operations, outermost first
  bool in_unknown_loop = false;  // inside a `for` whose location is not known
};

struct TileIrStats {
  std::map<std::string, std::int64_t> ops;  // op name -> count
  std::int64_t entries = 0;
  std::int64_t token_ordered = 0;  // operations that take a token (`token = %t`)
  std::int64_t token_chained = 0;  // ... whose token comes from another memory operation
  std::vector<TileMemoryOp> memory;
  TileIrProgram program;  // the operations as a program: what the scalar evaluator runs
};

// Bytes of a tile type "tile<128x64xf16>" (a 0-d "tile<f32>" is one
// element); 0 for anything else. Element bits from the type's name: f16,
// bf16 16; f32, tf32, i32 32; f8E4M3FN 8; f4E2M1FN 4; i1 8.
std::int64_t tile_type_bytes(std::string_view type);

// Throws InputError naming `filename` and the line for a line that is not an
// operation, and for unbalanced regions (a listing cut short).
TileIrStats parse_tileir(const std::string& text, const std::string& filename);

}  // namespace tileperf
