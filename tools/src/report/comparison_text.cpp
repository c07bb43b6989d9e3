#include "report/comparison_text.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace tileperf {

const char* verdict_word(Verdict v) { return v == Verdict::kRegressed ? "REGRESSED" : verdict_name(v); }

namespace {

// "TOTAL  64 metrics: 9 moved (7 regressed, 1 improved, 1 within limits;
// 1 new, 1 removed), 55 unchanged", the bottom line of the table.
std::string total_line(const DiffTotals& t) {
  return fmt::format(
      "  TOTAL  {} metrics: {} moved ({} regressed, {} improved, {} within limits, "
      "{} informational; {} new, {} removed), {} unchanged\n",
      t.metrics, t.moved, t.regressed, t.improved, t.ok, t.info, t.added, t.removed, t.metrics - t.moved);
}

}  // namespace

std::string format_diff_table(const std::vector<MetricDiff>& diffs, bool verbose) {
  std::vector<DiffRow> rows = shown_rows(diffs, verbose);
  std::string out;
  if (!rows.empty()) {
    std::size_t w = 6;
    for (const auto& r : rows) w = std::max(w, r.metric.size() + r.marker.size());
    out += fmt::format("  {:<{}}  {:>10}  {:>10}  {:>9}  {:>8}  {:>8}  {}\n", "metric", w, "baseline", "current",
                       "delta", "%", "limit", "verdict");
    for (const auto& r : rows) {
      out += fmt::format("  {:<{}}  {:>10}  {:>10}  {:>9}  {:>8}  {:>8}  {}\n", r.metric + r.marker, w, r.baseline,
                         r.current, r.delta_text, r.percent_text, r.limit_text, verdict_word(r.verdict));
    }
  }
  if (auto ops = top_moved(diffs, kOpcodePrefix); !ops.empty()) {
    out += "  opcodes that moved most: " + ops.text() + "\n";
  }
  if (auto ops = top_moved(diffs, kLoopOpcodePrefix); !ops.empty()) {
    out += "  opcodes that moved in the main loop: " + ops.text() + "\n";
  }
  if (out.empty()) return "  no metric moved\n";
  return out + total_line(diff_totals(diffs));
}

std::string format_main_loop(const LoopAnalysis& loops) {
  if (loops.main < 0) return "  main loop: none (the kernel has no loop outside barrier-wait retries)\n";
  const LoopInfo& l = loops.loops[static_cast<std::size_t>(loops.main)];
  return fmt::format(
      "  main loop: {:#06x}-{:#06x} of {}{}, depth {}, {} trips ({}): {} instructions, "
      "ii {}, {} waits, {} MMA, cost {:.1f} per iteration\n",
      l.begin, l.end, l.function, l.lines ? " (" + format_lines(*l.lines) + ")" : "", l.depth, trips_text(l.trips),
      l.trips_from, l.instructions, l.stall_cycles, l.waits, l.mma, l.cost);
}

std::string format_line_moves(const std::vector<LineMove>& moves, const std::string& estimate_term) {
  if (moves.empty()) return "";
  std::size_t w = 0;
  for (const auto& m : moves) w = std::max(w, m.line.size());
  bool timed = std::any_of(moves.begin(), moves.end(), [](const LineMove& m) { return m.share >= 0; });
  std::string out = timed ? fmt::format(
                                "  source lines that moved (instructions; the line's share of the estimate "
                                "now, of {}):\n",
                                estimate_term.empty() ? "its limiting term" : estimate_term)
                          : "  source lines that moved (instructions):\n";
  for (const auto& m : moves) {
    std::string estimate;
    if (timed) {
      estimate = m.share >= 0 ? fmt::format("{:>5.1f}% {:>9}", 100 * m.share, format_time_ns(m.ns))
                              : fmt::format("{:>5} {:>9}", "-", "");
    }
    out += fmt::format("    {:<{}}  {:>5} -> {:<5} {:>6}  {}{}{}\n", m.line, w, m.baseline, m.current,
                       format_signed(static_cast<double>(m.delta())), estimate, timed ? "  " : "", m.text);
  }
  return out;
}

std::string format_measurements(const Metrics& m, const Policy& policy) {
  std::string out;
  for (const auto& [name, value] : m.values) {
    const Rule* rule = policy.find(name);
    if (rule && rule->direction == Direction::kInfo) continue;
    out += fmt::format("<CTestMeasurement type=\"numeric/double\" name=\"{}\">{}</CTestMeasurement>\n", name, value);
  }
  return out;
}

std::string format_broken(const std::vector<BrokenInvariant>& broken) {
  std::string out;
  for (const auto& b : broken) {
    const Invariant& inv = *b.invariant;
    out += fmt::format("  invariant broken: {} requires {}{}; found {}\n", inv.origin, inv.text,
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
