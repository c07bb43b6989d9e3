#include "metrics/tileir_metrics.h"

namespace tileperf {

std::map<std::string, std::int64_t> tileir_metrics(const TileIrStats& stats) {
  std::map<std::string, std::int64_t> m;
  std::int64_t total = 0;
  for (const auto& [op, n] : stats.ops) {
    m["tileir.op." + op] = n;
    total += n;
  }
  m["tileir.ops"] = total;
  m["tileir.tokens.ordered"] = stats.token_ordered;
  m["tileir.tokens.chained"] = stats.token_chained;
  return m;
}

}  // namespace tileperf
