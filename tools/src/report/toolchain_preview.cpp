#include "report/toolchain_preview.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>

#include "report/view.h"
#include "support/error.h"

namespace tileperf {

namespace {

// How far a metric moved in its bad direction, in percent (> 0: worse).
double bad_percent(const MetricDiff& d) {
  switch (d.direction) {
    case Direction::kLower:
      return d.percent();
    case Direction::kHigher:
      return -d.percent();
    case Direction::kExact:
      return std::fabs(d.percent());
    case Direction::kInfo:
      return 0;
  }
  return 0;
}

// The three groups of the preview, in order: what would fail, improve, pass.
enum class Group { kRegress, kImprove, kWithin };

Group group_of(State s) {
  if (s == State::kImproved || s == State::kStale) return Group::kImprove;
  return state_info(s).exit_code == kExitOk ? Group::kWithin : Group::kRegress;
}

int state_order(State s) { return static_cast<int>(group_of(s)); }

std::string would(State s) {
  switch (group_of(s)) {
    case Group::kImprove:
      return "would improve";
    case Group::kWithin:
      return "within limits";
    case Group::kRegress:
      break;
  }
  return s == State::kRegressed ? "would regress" : fmt::format("would regress ({})", state_name(s));
}

std::string move_text(std::int64_t from, std::int64_t to, double percent) {
  return fmt::format("{} -> {} ({})", from, to, format_percent(percent));
}

void add_test(ToolchainPreview& p, const TestResult& r, std::map<std::string, PreviewMetric>& metrics) {
  PreviewTest t{&r, preview_state(r), 0};
  for (const auto& d : r.diff) {
    // Informational, unmoved, or not judged (a metric the old baseline could not hold).
    if (d.direction == Direction::kInfo || d.verdict == Verdict::kInfo ||
        (d.delta() == 0 && d.verdict != Verdict::kRegressed)) {
      continue;
    }
    auto& m = metrics[d.name];
    m.metric = d.name;
    m.total_delta += d.delta();
    if (d.verdict == Verdict::kRegressed) {
      ++m.regressed;
      t.worst = std::max(t.worst, bad_percent(d));
      if (m.worst_test.empty() || bad_percent(d) > m.worst_percent) {
        m.worst_percent = bad_percent(d);
        m.worst_test = r.id.name();
        m.worst_text = move_text(d.baseline, d.current, d.percent());
      }
    } else if (d.verdict == Verdict::kImproved) {
      ++m.improved;
    } else {
      ++m.ok;
    }
  }
  for (const auto& b : r.broken) {
    auto& m = metrics["invariant: " + b.require];
    m.metric = "invariant: " + b.require;
    ++m.regressed;
    if (m.worst_test.empty()) {
      m.worst_test = r.id.name();
      m.worst_text = "found " + b.found;
    }
  }
  Group g = group_of(t.state);
  ++(g == Group::kRegress ? p.regressed : g == Group::kImprove ? p.improved : p.pass);
  p.tests.push_back(t);
}

// "sass.mufu 9 -> 17 (+88.9%), regs 27 -> 40 (+48.1%) and 5 more": the
// metrics that decide the test's preview, regressions first.
std::string headline(const PreviewTest& t, std::size_t n = 3) {
  std::vector<const MetricDiff*> shown;
  for (Verdict v : {Verdict::kRegressed, Verdict::kImproved}) {
    for (const auto& d : t.result->diff) {
      if (d.verdict == v) shown.push_back(&d);
    }
  }
  std::string out;
  for (std::size_t i = 0; i < shown.size() && i < n; ++i) {
    out += fmt::format("{}{} {}", i ? ", " : "", shown[i]->name,
                       move_text(shown[i]->baseline, shown[i]->current, shown[i]->percent()));
  }
  if (shown.size() > n) out += fmt::format(" and {} more", shown.size() - n);
  if (!t.result->broken.empty()) {
    out += fmt::format("{}{} invariant(s) broken", out.empty() ? "" : "; ", t.result->broken.size());
  }
  return out.empty() ? "no gated metric past its limit" : out;
}

std::string signed_total(std::int64_t v) { return format_signed(static_cast<double>(v)); }

std::string worst_text(const PreviewMetric& m) {
  return m.worst_test.empty() ? "" : fmt::format("{} {}", m.worst_test, m.worst_text);
}

std::string markdown_header(const ToolchainPreview& p, const std::string& update_command) {
  std::string out = "### tileperf: toolchain preview\n\n";
  out += fmt::format(
      "{} test(s) were compared with baselines of another toolchain ({}) under the usual "
      "policies; nothing was written.\n\n",
      p.tests.size(), fmt::join(p.changes, ", "));
  out += fmt::format("**{}**", preview_counts_text(p));
  if (p.other) out += fmt::format(" ({} other test(s) of the run are in another state)", p.other);
  out += fmt::format(".\n\nAccept them all with: `{}`\n\n", update_command);
  out += "#### Gated metrics that moved, largest regressions first\n\n";
  out +=
      "| metric | regressed | improved | within limits | total delta | worst regression |\n"
      "| --- | ---: | ---: | ---: | ---: | --- |\n";
  for (const auto& m : p.metrics) {
    out += fmt::format("| `{}` | {} | {} | {} | {} | {} |\n", m.metric, m.regressed, m.improved, m.ok,
                       signed_total(m.total_delta), worst_text(m));
  }
  return out + "\n#### Tests, largest regressions first\n\n";
}

std::string markdown_detail(const PreviewTest& t) {
  const TestResult& r = *t.result;
  std::string out =
      fmt::format("<details><summary><b>{}</b>: {}: {}</summary>\n\n", r.id.name(), would(t.state), headline(t));
  auto rows = shown_rows(r.diff);
  if (!rows.empty()) {
    out +=
        "| metric | baseline | current | delta | % | limit | verdict |\n"
        "| --- | ---: | ---: | ---: | ---: | ---: | --- |\n";
    for (const auto& row : rows) {
      out += fmt::format("| `{}`{} | {} | {} | {} | {} | {} | {} |\n", row.metric, row.marker, row.baseline,
                         row.current, row.delta_text, row.percent_text, row.limit_text, verdict_name(row.verdict));
    }
    out += "\n";
  }
  for (const auto& b : r.broken) out += fmt::format("- invariant broken: `{}`; found {}\n", b.require, b.found);
  if (auto ops = top_moved(r.diff, kOpcodePrefix); !ops.empty()) out += "- opcodes: " + ops.text() + "\n";
  for (const auto& n : r.notes) out += "- note: " + n + "\n";
  return out + "\n</details>\n";
}

std::string markdown_line(const PreviewTest& t) {
  return fmt::format("- **{}**: {}: {}\n", t.result->id.name(), would(t.state), headline(t));
}

}  // namespace

State preview_state(const TestResult& r) { return r.compared.value_or(r.state); }

ToolchainPreview make_toolchain_preview(const std::vector<const TestResult*>& results) {
  ToolchainPreview p;
  std::map<std::string, PreviewMetric> metrics;
  std::set<std::string> changes;
  for (const TestResult* r : results) {
    if (r->state != State::kToolchainChanged) {
      ++p.other;
      continue;
    }
    changes.insert(r->toolchain_change.begin(), r->toolchain_change.end());
    add_test(p, *r, metrics);
  }
  p.changes.assign(changes.begin(), changes.end());
  std::stable_sort(p.tests.begin(), p.tests.end(), [](const PreviewTest& a, const PreviewTest& b) {
    if (state_order(a.state) != state_order(b.state)) return state_order(a.state) < state_order(b.state);
    if (a.worst != b.worst) return a.worst > b.worst;
    return a.result->id.name() < b.result->id.name();
  });
  for (auto& [name, m] : metrics) p.metrics.push_back(std::move(m));
  std::stable_sort(p.metrics.begin(), p.metrics.end(), [](const PreviewMetric& a, const PreviewMetric& b) {
    if (a.regressed != b.regressed) return a.regressed > b.regressed;
    if (a.worst_percent != b.worst_percent) return a.worst_percent > b.worst_percent;
    if (a.improved != b.improved) return a.improved > b.improved;
    return a.metric < b.metric;
  });
  return p;
}

std::string preview_counts_text(const ToolchainPreview& p) {
  return fmt::format("{} would regress, {} would improve, {} within limits", p.regressed, p.improved, p.pass);
}

std::string preview_text(const ToolchainPreview& p, const std::string& update_command, std::size_t max_metrics,
                         const std::string& preview_command) {
  std::string out = fmt::format(
      "toolchain changed in {} test(s) ({}); compared under the usual policies, "
      "nothing written: {}\n",
      p.tests.size(), fmt::join(p.changes, ", "), preview_counts_text(p));
  if (max_metrics && !p.metrics.empty()) {
    out += fmt::format("  {:<32} {:>9} {:>9} {:>7} {:>12}  {}\n", "metric", "regressed", "improved", "ok",
                       "total delta", "worst regression");
    for (std::size_t i = 0; i < p.metrics.size() && i < max_metrics; ++i) {
      const auto& m = p.metrics[i];
      out += fmt::format("  {:<32} {:>9} {:>9} {:>7} {:>12}  {}\n", m.metric, m.regressed, m.improved, m.ok,
                         signed_total(m.total_delta), worst_text(m));
    }
    if (p.metrics.size() > max_metrics) {
      out += fmt::format("  (and {} more metrics)\n", p.metrics.size() - max_metrics);
    }
  }
  if (!preview_command.empty()) out += "  per metric and per test: " + preview_command + "\n";
  return out + fmt::format("  accept them all with: {}\n", update_command);
}

std::string preview_markdown(const ToolchainPreview& p, const std::string& update_command, std::size_t max_chars) {
  std::string out = markdown_header(p, update_command);
  std::vector<std::string> details, lines;
  std::size_t all_details = 0, all_lines = 0;
  for (const auto& t : p.tests) {
    details.push_back(markdown_detail(t));
    lines.push_back(markdown_line(t));
    all_details += details.back().size();
    all_lines += lines.back().size();
  }
  if (max_chars == 0 || out.size() + all_details <= max_chars) {
    for (const auto& d : details) out += d;
    return out;
  }
  // Too long for a comment: full detail for the tests first in line (the
  // largest regressions) while the one-line entries of the rest still fit,
  // then as many one-line entries as fit, and a count of what was left out.
  const std::string cut_note =
      "\n_{} more test(s) left out to stay under {} characters: "
      "`tileperf preview ... --max-chars 0` writes them all._\n";
  const std::size_t budget = max_chars > cut_note.size() + 40 ? max_chars - cut_note.size() - 40 : 0;
  std::size_t rest = all_lines, i = 0;
  for (; i < p.tests.size(); ++i) {
    rest -= lines[i].size();
    if (out.size() + details[i].size() + rest > budget) {
      rest += lines[i].size();
      break;
    }
    out += details[i];
  }
  for (; i < p.tests.size(); ++i) {
    if (out.size() + lines[i].size() > budget) {
      return out + fmt::format(fmt::runtime(cut_note), p.tests.size() - i, max_chars);
    }
    out += lines[i];
  }
  return out;
}

}  // namespace tileperf
