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
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace tileperf {

struct TileIrStats {
  std::map<std::string, std::int64_t> ops;  // op name -> count
  std::int64_t entries = 0;
  std::int64_t token_ordered = 0;  // operations that take a token (`token = %t`)
  std::int64_t token_chained = 0;  // ... whose token comes from another memory operation
};

// Throws InputError naming `filename` and the line for a line that is not an
// operation, and for unbalanced regions (a listing cut short).
TileIrStats parse_tileir(const std::string& text, const std::string& filename);

// tileir.ops, tileir.op.<name>, tileir.tokens.ordered, tileir.tokens.chained.
std::map<std::string, std::int64_t> tileir_metrics(const TileIrStats& stats);

}  // namespace tileperf
