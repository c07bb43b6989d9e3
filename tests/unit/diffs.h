// A metric's diff made by hand, for the tests of what shows or judges it.
#pragma once

#include <cstdint>
#include <string>

#include "gate/compare.h"

namespace tileperf::testing {

// `name` from `base` to `cur` under `dir`, judged `v`; its change follows
// from the values (0 on one side: new or removed).
inline MetricDiff metric_diff(const std::string& name, std::int64_t base, std::int64_t cur, Direction dir, Verdict v,
                              double limit = 0) {
  MetricDiff d;
  d.name = name;
  d.baseline = base;
  d.current = cur;
  d.direction = dir;
  d.verdict = v;
  d.limit = limit;
  d.change = base == 0 ? Change::kNew : cur == 0 ? Change::kRemoved : Change::kChanged;
  return d;
}

}  // namespace tileperf::testing
