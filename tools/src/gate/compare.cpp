#include "gate/compare.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include <fmt/format.h>

namespace tileperf {

namespace {

// How far past its limit a metric moved, in the bad direction (> 0: regressed).
double badness(const MetricDiff& d) {
  switch (d.direction) {
    case Direction::kLower:
      return static_cast<double>(d.delta()) - d.limit;
    case Direction::kHigher:
      return static_cast<double>(-d.delta()) - d.limit;
    case Direction::kExact:
      return d.delta() != 0 ? std::fabs(d.delta()) : -1.0;
    case Direction::kInfo:
      return -1.0;
  }
  return -1.0;
}

Verdict judge(const MetricDiff& d, bool exact) {
  if (d.direction == Direction::kInfo) {
    return exact && d.delta() != 0 ? Verdict::kRegressed : Verdict::kInfo;
  }
  if (exact && d.delta() != 0) return Verdict::kRegressed;
  if (badness(d) > 0) return Verdict::kRegressed;
  double good = d.direction == Direction::kLower ? -d.delta() : d.direction == Direction::kHigher ? d.delta() : 0;
  return good > d.limit ? Verdict::kImproved : Verdict::kOk;
}

int rank(Verdict v) {
  switch (v) {
    case Verdict::kRegressed:
      return 0;
    case Verdict::kImproved:
      return 1;
    case Verdict::kOk:
      return 2;
    case Verdict::kInfo:
      return 3;
  }
  return 4;
}

bool by_impact(const MetricDiff& a, const MetricDiff& b) {
  if (rank(a.verdict) != rank(b.verdict)) return rank(a.verdict) < rank(b.verdict);
  if ((a.delta() != 0) != (b.delta() != 0)) return a.delta() != 0;
  double pa = std::fabs(a.percent()), pb = std::fabs(b.percent());
  if (pa != pb) return pa > pb;
  auto da = std::llabs(a.delta()), db = std::llabs(b.delta());
  if (da != db) return da > db;
  return a.name < b.name;
}

}  // namespace

std::int64_t MetricDiff::delta() const {
  std::int64_t d = 0;
  if (!__builtin_sub_overflow(current, baseline, &d) && d != std::numeric_limits<std::int64_t>::min()) return d;
  return current > baseline ? std::numeric_limits<std::int64_t>::max() : -std::numeric_limits<std::int64_t>::max();
}

double MetricDiff::percent() const {
  if (baseline == 0) {
    return current == 0 ? 0.0 : std::numeric_limits<double>::infinity() * (current > 0 ? 1 : -1);
  }
  long double difference = static_cast<long double>(current) - static_cast<long double>(baseline);
  return static_cast<double>(100.0L * difference / std::fabs(static_cast<long double>(baseline)));
}

std::size_t Comparison::changed() const {
  return std::count_if(diffs.begin(), diffs.end(), [](const auto& d) { return d.delta() != 0; });
}

std::size_t Comparison::changed_gated() const {
  return std::count_if(diffs.begin(), diffs.end(),
                       [](const auto& d) { return d.delta() != 0 && d.direction != Direction::kInfo; });
}

std::vector<const MetricDiff*> Comparison::with_verdict(Verdict v) const {
  std::vector<const MetricDiff*> out;
  for (const auto& d : diffs) {
    if (d.verdict == v) out.push_back(&d);
  }
  return out;
}

Comparison compare_metrics(const Metrics& baseline, const Metrics& current, const Policy& policy, bool exact) {
  std::set<std::string> names;
  for (const auto& [k, v] : baseline.values) names.insert(k);
  for (const auto& [k, v] : current.values) names.insert(k);

  Comparison result;
  for (const auto& name : names) {
    MetricDiff d;
    d.name = name;
    bool in_base = baseline.values.count(name), in_cur = current.values.count(name);
    d.baseline = baseline.get(name);
    d.current = current.get(name);
    d.change = !in_base         ? Change::kNew
               : !in_cur        ? Change::kRemoved
               : d.delta() != 0 ? Change::kChanged
                                : Change::kUnchanged;
    if (const Rule* rule = policy.find(name)) {
      d.direction = rule->direction;
      d.limit = rule->tolerance.limit(d.baseline);
    }
    d.verdict = judge(d, exact);
    result.diffs.push_back(std::move(d));
  }
  std::sort(result.diffs.begin(), result.diffs.end(), by_impact);
  result.broken = check_invariants(policy, current);
  if (!result.with_verdict(Verdict::kRegressed).empty() || !result.broken.empty()) {
    result.state = State::kRegressed;
  } else if (!result.with_verdict(Verdict::kImproved).empty()) {
    result.state = State::kImproved;
  }
  return result;
}

const char* change_name(Change c) {
  switch (c) {
    case Change::kUnchanged:
      return "unchanged";
    case Change::kChanged:
      return "changed";
    case Change::kNew:
      return "new";
    case Change::kRemoved:
      return "removed";
  }
  return "changed";
}

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kOk:
      return "ok";
    case Verdict::kImproved:
      return "improved";
    case Verdict::kRegressed:
      return "regressed";
    case Verdict::kInfo:
      return "info";
  }
  return "info";
}

Change change_from_name(const std::string& name) {
  for (Change c : {Change::kUnchanged, Change::kChanged, Change::kNew, Change::kRemoved}) {
    if (name == change_name(c)) return c;
  }
  return Change::kChanged;
}

Verdict verdict_from_name(const std::string& name) {
  for (Verdict v : {Verdict::kOk, Verdict::kImproved, Verdict::kRegressed, Verdict::kInfo}) {
    if (name == verdict_name(v)) return v;
  }
  return Verdict::kInfo;
}

}  // namespace tileperf
