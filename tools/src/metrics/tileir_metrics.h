// The metrics of a kernel's TileIR (readers/tileir.h): their names are made
// here, with the other metrics'.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "readers/tileir.h"

namespace tileperf {

// tileir.ops, tileir.op.<name>, tileir.tokens.ordered, tileir.tokens.chained.
std::map<std::string, std::int64_t> tileir_metrics(const TileIrStats& stats);

}  // namespace tileperf
