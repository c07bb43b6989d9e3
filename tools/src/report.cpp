#include "report.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace tileperf {

namespace {

constexpr std::size_t kTopOpcodes = 6;
const std::string kOpcodePrefix = "sass.opcode.";
const std::string kLoopOpcodePrefix = "loop.main.opcode.";

const char* verdict_word(Verdict v) {
  switch (v) {
    case Verdict::kRegressed: return "REGRESSED";
    case Verdict::kImproved: return "improved";
    case Verdict::kOk: return "ok";
    case Verdict::kInfo: return "info";
  }
  return "?";
}

const char* change_marker(Change c) {
  switch (c) {
    case Change::kNew: return " [new]";
    case Change::kRemoved: return " [removed]";
    default: return "";
  }
}

std::string format_limit(const MetricDiff& d) {
  switch (d.direction) {
    case Direction::kLower: return fmt::format("+{:g}", d.limit);
    case Direction::kHigher: return fmt::format("-{:g}", d.limit);
    case Direction::kExact: return "=";
    case Direction::kInfo: return "-";
  }
  return "?";
}

// "FFMA +48, MUFU.EX2 +8 (and 4 more)": the metrics under `prefix` that
// moved most.
std::string top_opcodes(const Comparison& c, const std::string& prefix) {
  std::vector<const MetricDiff*> moved;
  for (const auto& d : c.diffs) {
    if (d.delta() != 0 && d.name.rfind(prefix, 0) == 0) moved.push_back(&d);
  }
  std::stable_sort(moved.begin(), moved.end(), [](auto* a, auto* b) {
    return std::llabs(a->delta()) > std::llabs(b->delta());
  });
  std::string out;
  for (std::size_t i = 0; i < moved.size() && i < kTopOpcodes; ++i) {
    out += fmt::format("{}{} {}", i ? ", " : "", moved[i]->name.substr(prefix.size()),
                       format_signed(static_cast<double>(moved[i]->delta())));
  }
  if (moved.size() > kTopOpcodes) out += fmt::format(" (and {} more)", moved.size() - kTopOpcodes);
  return out;
}

// "TOTAL  64 metrics: 9 moved (7 regressed, 1 improved, 1 within limits;
// 1 new, 1 removed), 55 unchanged", the bottom line of the table.
std::string total_line(const Comparison& c) {
  std::size_t moved = 0, regressed = 0, improved = 0, ok = 0, info = 0, added = 0, removed = 0;
  for (const auto& d : c.diffs) {
    if (d.change == Change::kNew) ++added;
    if (d.change == Change::kRemoved) ++removed;
    if (d.delta() == 0) continue;
    ++moved;
    switch (d.verdict) {
      case Verdict::kRegressed: ++regressed; break;
      case Verdict::kImproved: ++improved; break;
      case Verdict::kOk: ++ok; break;
      case Verdict::kInfo: ++info; break;
    }
  }
  return fmt::format("  TOTAL  {} metrics: {} moved ({} regressed, {} improved, {} within limits, "
                     "{} informational; {} new, {} removed), {} unchanged\n",
                     c.diffs.size(), moved, regressed, improved, ok, info, added, removed,
                     c.diffs.size() - moved);
}

}  // namespace

std::string format_signed(double v) {
  if (std::fabs(v) < 1e15 && v == std::floor(v)) return fmt::format("{:+}", static_cast<long long>(v));
  return fmt::format("{:+g}", v);
}

std::string format_percent(double pct) {
  if (std::isinf(pct)) return pct > 0 ? "+inf%" : "-inf%";
  return fmt::format("{:+.1f}%", pct);
}

std::string format_diff_table(const Comparison& c, bool verbose) {
  std::vector<const MetricDiff*> rows;
  for (const auto& d : c.diffs) {
    bool gated = d.direction != Direction::kInfo;
    if (d.verdict == Verdict::kRegressed || (d.delta() != 0 && (gated || verbose))) {
      rows.push_back(&d);
    }
  }
  std::string out;
  if (!rows.empty()) {
    std::size_t w = 6;
    for (auto* d : rows) w = std::max(w, d->name.size() + std::string(change_marker(d->change)).size());
    out += fmt::format("  {:<{}}  {:>10}  {:>10}  {:>9}  {:>8}  {:>8}  {}\n", "metric", w,
                       "baseline", "current", "delta", "%", "limit", "verdict");
    for (auto* d : rows) {
      out += fmt::format("  {:<{}}  {:>10}  {:>10}  {:>9}  {:>8}  {:>8}  {}\n",
                         d->name + change_marker(d->change), w, d->baseline, d->current,
                         format_signed(static_cast<double>(d->delta())),
                         format_percent(d->percent()), format_limit(*d), verdict_word(d->verdict));
    }
  }
  std::string ops = top_opcodes(c, kOpcodePrefix);
  if (!ops.empty()) out += "  opcodes that moved most: " + ops + "\n";
  std::string loop_ops = top_opcodes(c, kLoopOpcodePrefix);
  if (!loop_ops.empty()) out += "  opcodes that moved in the main loop: " + loop_ops + "\n";
  if (out.empty()) return "  no metric moved\n";
  return out + total_line(c);
}

std::string format_main_loop(const LoopReport& loops) {
  if (loops.main < 0) return "  main loop: none (the kernel has no loop outside barrier-wait retries)\n";
  const LoopInfo& l = loops.loops[static_cast<std::size_t>(loops.main)];
  return fmt::format("  main loop: {:#06x}-{:#06x} of {}{}, depth {}, {} trips ({}): {} instructions, "
                     "ii {}, {} waits, {} MMA, cost {:.1f} per iteration\n",
                     l.begin, l.end, l.function, l.lines ? " (" + format_lines(*l.lines) + ")" : "",
                     l.depth, l.trips, l.trips_from, l.instructions, l.stall_cycles, l.waits, l.mma,
                     l.cost);
}

std::string format_measurements(const Metrics& m, const Policy& policy) {
  std::string out;
  for (const auto& [name, value] : m.values) {
    const Rule* rule = policy.find(name);
    if (rule && rule->direction == Direction::kInfo) continue;
    out += fmt::format("<CTestMeasurement type=\"numeric/double\" name=\"{}\">{}</CTestMeasurement>\n",
                       name, value);
  }
  return out;
}

std::string format_broken(const std::vector<BrokenInvariant>& broken) {
  std::string out;
  for (const auto& b : broken) {
    const Invariant& inv = *b.invariant;
    out += fmt::format("  check broken: {} requires {}{}; found {}\n", inv.origin, inv.text,
                       inv.why.empty() ? "" : " (" + inv.why + ")", b.found);
  }
  return out;
}

std::string format_key_metrics(const std::map<std::string, std::int64_t>& key_metrics) {
  std::string out;
  for (const auto& [k, v] : key_metrics) out += fmt::format(" {}={}", k, v);
  return out;
}

}  // namespace tileperf
