// The diff of two builds shown (build_diff_text.h).
#include "report/build_diff_text.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/sass_diff.h"
#include "analysis/source_lines.h"
#include "gate/compare.h"
#include "report/comparison_text.h"
#include "report/view.h"
#include "results/result.h"
#include "support/error.h"
#include "support/text.h"

namespace tileperf {

namespace {

constexpr const char* kDiffFormat = "tileperf-diff/1";

// Why a span has no line diff, and the opcodes that moved instead.
std::string no_script_summary(const SpanDiff& d, const DiffOptions& o) {
  std::string ops;
  for (std::size_t i = 0; i < d.moved.size() && i < kTopMoved; ++i) {
    ops +=
        fmt::format("{}{} {}", i ? ", " : "", d.moved[i].first, format_signed(static_cast<double>(d.moved[i].second)));
  }
  if (d.moved.size() > kTopMoved) ops += fmt::format(" (and {} more)", d.moved.size() - kTopMoved);
  return fmt::format("more than {} lines differ, too many for a line diff{}; {}", kMaxEdits,
                     o.ignore_registers ? "" : " (--ignore-registers may bring it under)",
                     ops.empty() ? "the same opcodes in another order" : "opcodes: " + ops);
}

// --- terminal text ---

std::string metric_table(const Comparison& c) {
  std::vector<DiffRow> rows = shown_rows(c.diffs);
  std::string out;
  if (!rows.empty()) {
    std::size_t w = 6;
    for (const auto& r : rows) w = std::max(w, r.metric.size() + r.marker.size());
    out += fmt::format("  {:<{}}  {:>10}  {:>10}  {:>9}  {:>8}  {:>8}  {}\n", "metric", w, "base", "head", "delta", "%",
                       "limit", "verdict");
    for (const auto& r : rows) {
      out += fmt::format("  {:<{}}  {:>10}  {:>10}  {:>9}  {:>8}  {:>8}  {}\n", r.metric + r.marker, w, r.baseline,
                         r.current, r.delta_text, r.percent_text, r.limit_text, verdict_word(r.verdict));
    }
  }
  if (auto ops = top_moved(c.diffs, kOpcodePrefix); !ops.empty())
    out += "  opcodes that moved most: " + ops.text() + "\n";
  if (auto ops = top_moved(c.diffs, kLoopOpcodePrefix); !ops.empty()) {
    out += "  opcodes that moved in the main loop: " + ops.text() + "\n";
  }
  DiffTotals t = diff_totals(c.diffs);
  if (t.moved) {
    out += fmt::format(
        "  TOTAL  {} metrics: {} moved ({} regressed, {} improved, {} within limits, {} informational), "
        "{} unchanged\n",
        t.metrics, t.moved, t.regressed, t.improved, t.ok, t.info, t.metrics - t.moved);
  }
  return out;
}

std::string span_text(const SpanDiff& d, const DiffOptions& o) {
  std::string out;
  if (!d.script) {
    return fmt::format("  SASS of {}: {} -> {} instructions, {}\n", d.what, d.base.size(), d.head.size(),
                       no_script_summary(d, o));
  }
  EditCounts c = count_edits(*d.script);
  out += fmt::format("  SASS of {} ({} in base, {} in head): {} -> {} instructions, -{} +{} lines\n", d.what,
                     d.base.addresses(), d.head.addresses(), d.base.size(), d.head.size(), c.deleted, c.inserted);
  return out + format_hunks(d.hunks, d.base_text, d.head_text, o.max_lines, "  ");
}

std::string test_text(const TestDiff& t, const DiffOptions& o) {
  std::string out = fmt::format("{}: {}\n", t.name, t.state);
  if (!t.trade_off.empty()) out += fmt::format("  {}\n", t.trade_off);
  if (!t.toolchain.empty()) out += fmt::format("  toolchain: {}\n", fmt::join(t.toolchain, ", "));
  if (!t.signature.empty()) {
    out += fmt::format("  {}: {}\n", t.tuning ? "tuning change, judged by the launch estimate" : "signature",
                       fmt::join(t.signature, "; "));
  }
  out += format_broken(t.comparison.broken) + metric_table(t.comparison);
  std::vector<LineMove> lines = t.lines;
  if (lines.size() > TestResult::kMaxLines) {
    lines.resize(TestResult::kMaxLines);
  }
  out += format_line_moves(lines);
  if (t.lines.size() > lines.size()) out += fmt::format("    ... {} more lines\n", t.lines.size() - lines.size());
  for (const auto& n : t.code_notes) out += "  SASS: " + n + "\n";
  for (const auto& d : t.code) out += span_text(d, o);
  return out;
}

// --- JSON ---

nlohmann::json metric_json(const MetricDiff& d) {
  double pct = d.percent();
  return {{"metric", d.name},
          {"base", d.baseline},
          {"head", d.current},
          {"delta", d.delta()},
          {"percent", std::isinf(pct) ? nlohmann::json(nullptr) : nlohmann::json(pct)},
          {"limit", d.limit},
          {"direction", direction_name(d.direction)},
          {"verdict", verdict_name(d.verdict)},
          {"change", change_name(d.change)}};
}

nlohmann::json span_json(const SpanDiff& d, const DiffOptions& o) {
  nlohmann::json j = {{"what", d.what},
                      {"function", d.head.function->name},
                      {"base", {{"addresses", d.base.addresses()}, {"instructions", d.base.size()}}},
                      {"head", {{"addresses", d.head.addresses()}, {"instructions", d.head.size()}}}};
  if (!d.script) {
    j["summary"] = no_script_summary(d, o);
    return j;
  }
  nlohmann::json hunks = nlohmann::json::array();
  for (const auto& h : d.hunks) {
    nlohmann::json lines = nlohmann::json::array();
    for (const auto& e : h.edits) {
      bool ins = e.kind == DiffOp::kInsert;
      const DiffSide& side = ins ? d.head_text : d.base_text;
      std::size_t i = ins ? e.head : e.base;
      lines.push_back({{"op", e.kind == DiffOp::kKeep ? " "
                              : ins                   ? "+"
                                                      : "-"},
                       {"text", side.lines[i]},
                       {"source", i < side.notes.size() ? side.notes[i] : ""}});
    }
    hunks.push_back({{"base_begin", h.base_begin + 1},
                     {"base_count", h.base_count},
                     {"head_begin", h.head_begin + 1},
                     {"head_count", h.head_count},
                     {"lines", lines}});
  }
  EditCounts c = count_edits(*d.script);
  j["deleted"] = c.deleted;
  j["inserted"] = c.inserted;
  j["hunks"] = hunks;
  return j;
}

nlohmann::json test_json(const TestDiff& t, const DiffOptions& o) {
  nlohmann::json metrics = nlohmann::json::array(), lines = nlohmann::json::array(), code = nlohmann::json::array(),
                 broken = nlohmann::json::array();
  for (const auto& d : t.comparison.diffs) {
    if (d.delta() != 0 || d.verdict == Verdict::kRegressed) metrics.push_back(metric_json(d));
  }
  for (const auto& m : t.lines) {
    lines.push_back(
        {{"line", m.line}, {"base", m.baseline}, {"head", m.current}, {"delta", m.delta()}, {"text", m.text}});
  }
  for (const auto& b : t.comparison.broken) {
    broken.push_back({{"require", b.invariant->text}, {"origin", b.invariant->origin}, {"found", b.found}});
  }
  for (const auto& d : t.code) code.push_back(span_json(d, o));
  return {{"test", t.name},
          {"state", t.state},
          {"toolchain", t.toolchain},
          {"signature", t.signature},
          {"tuning", t.tuning},
          {"trade_off", t.trade_off},
          {"metrics", metrics},
          {"broken", broken},
          {"lines", lines},
          {"sass", code},
          {"sass_notes", t.code_notes}};
}

}  // namespace

std::string build_diff_text(const BuildDiff& run, const DiffOptions& o) {
  std::string out;
  for (const auto& t : run.diffs) {
    if (t.state != "unchanged") out += test_text(t, o) + "\n";
  }
  for (const auto& name : run.added) out += fmt::format("{}: added (only in head)\n", name);
  for (const auto& name : run.removed) out += fmt::format("{}: removed (only in base)\n", name);
  std::vector<std::string> parts;
  auto counts = run.counts();
  for (const char* s : kDiffStates) {
    if (std::size_t n = counts.at(s)) parts.push_back(fmt::format("{} {}", n, s));
  }
  out += fmt::format("{} test(s) in both: {}; {} added, {} removed (base {}, head {})\n", run.diffs.size(),
                     parts.empty() ? "none" : fmt::format("{}", fmt::join(parts, ", ")), run.added.size(),
                     run.removed.size(), run.base_results, run.head_results);
  if (run.exit_code() != kExitOk && !run.facts.update_command.empty()) {
    out += "if intended, update the head build's baselines with: " + run.facts.update_command + "\n";
  }
  return out;
}

nlohmann::json build_diff_json(const BuildDiff& run, const DiffOptions& o) {
  nlohmann::json tests = nlohmann::json::array();
  for (const auto& t : run.diffs) tests.push_back(test_json(t, o));
  return {
      {"format", kDiffFormat},  {"base", run.base_results}, {"head", run.head_results}, {"checks", run.facts.checks},
      {"counts", run.counts()}, {"added", run.added},       {"removed", run.removed},   {"tests", tests}};
}

}  // namespace tileperf
