#include "report/view.h"

#include "report/investigation_text.h"
#include "report/timeline_record.h"

#include "support/text.h"

#include <filesystem>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "inspect/merge_review.h"
#include "support/work_paths.h"

namespace tileperf {

namespace {

const char* marker_of(Change c) {
  switch (c) {
    case Change::kNew:
      return " [new]";
    case Change::kRemoved:
      return " [removed]";
    default:
      return "";
  }
}

std::string limit_of(const MetricDiff& d) {
  switch (d.direction) {
    case Direction::kLower:
      return fmt::format("+{:g}", d.limit);
    case Direction::kHigher:
      return fmt::format("-{:g}", d.limit);
    case Direction::kExact:
      return "=";
    case Direction::kInfo:
      return "-";
  }
  return "?";
}

bool shown(const MetricDiff& d, bool verbose) {
  bool gated = d.direction != Direction::kInfo;
  return d.verdict == Verdict::kRegressed || (d.delta() != 0 && (gated || verbose));
}

}  // namespace

std::string format_signed(double v) {
  if (std::fabs(v) < 1e15 && v == std::floor(v)) return fmt::format("{:+}", static_cast<long long>(v));
  return fmt::format("{:+g}", v);
}

std::string format_time_ns(double ns) {
  if (ns < 1e3) return fmt::format("{:.0f} ns", ns);
  if (ns < 1e6) return fmt::format("{:.1f} us", ns / 1e3);
  return fmt::format("{:.2f} ms", ns / 1e6);
}

std::string format_percent(double pct) {
  if (std::isinf(pct)) return pct > 0 ? "+inf%" : "-inf%";
  return fmt::format("{:+.1f}%", pct);
}

DiffRow diff_row(const MetricDiff& d) {
  DiffRow r;
  r.metric = d.name;
  r.change = d.change;
  r.direction = d.direction;
  r.verdict = d.verdict;
  r.baseline = d.baseline;
  r.current = d.current;
  r.delta = d.delta();
  r.percent = d.percent();
  r.delta_text = format_signed(static_cast<double>(r.delta));
  r.percent_text = format_percent(r.percent);
  r.limit_text = limit_of(d);
  r.marker = marker_of(d.change);
  return r;
}

std::vector<DiffRow> shown_rows(const std::vector<MetricDiff>& diffs, bool verbose) {
  std::vector<DiffRow> rows;
  for (const auto& d : diffs) {
    if (shown(d, verbose)) rows.push_back(diff_row(d));
  }
  return rows;
}

std::string TopMoved::text() const {
  std::string out;
  for (std::size_t i = 0; i < top.size(); ++i) {
    out += fmt::format("{}{} {}", i ? ", " : "", top[i].name, format_signed(static_cast<double>(top[i].delta)));
  }
  if (more) out += fmt::format(" (and {} more)", more);
  return out;
}

TopMoved top_moved(const std::vector<MetricDiff>& diffs, std::string_view prefix, std::size_t n) {
  std::vector<Moved> moved;
  for (const auto& d : diffs) {
    if (d.delta() != 0 && d.name.starts_with(prefix)) moved.push_back({d.name.substr(prefix.size()), d.delta()});
  }
  std::stable_sort(moved.begin(), moved.end(),
                   [](const Moved& a, const Moved& b) { return std::llabs(a.delta) > std::llabs(b.delta); });
  TopMoved out;
  out.more = moved.size() > n ? moved.size() - n : 0;
  moved.resize(std::min(moved.size(), n));
  out.top = std::move(moved);
  return out;
}

DiffTotals diff_totals(const std::vector<MetricDiff>& diffs) {
  DiffTotals t;
  t.metrics = diffs.size();
  for (const auto& d : diffs) {
    if (d.change == Change::kNew) ++t.added;
    if (d.change == Change::kRemoved) ++t.removed;
    if (d.delta() == 0) continue;
    ++t.moved;
    switch (d.verdict) {
      case Verdict::kRegressed:
        ++t.regressed;
        break;
      case Verdict::kImproved:
        ++t.improved;
        break;
      case Verdict::kOk:
        ++t.ok;
        break;
      case Verdict::kInfo:
        ++t.info;
        break;
    }
  }
  return t;
}

std::vector<DiffRow> TestView::regressed() const {
  std::vector<DiffRow> out;
  for (const auto& r : rows) {
    if (r.verdict == Verdict::kRegressed) out.push_back(r);
  }
  return out;
}

std::string TestView::headline(std::size_t n) const {
  auto bad = regressed();
  std::string out;
  for (std::size_t i = 0; i < bad.size() && i < n; ++i) {
    out += fmt::format("{}{} {} -> {} ({})", i ? ", " : "", bad[i].metric, bad[i].baseline, bad[i].current,
                       bad[i].percent_text);
  }
  if (bad.size() > n) out += fmt::format(" and {} more", bad.size() - n);
  if (!result->broken.empty()) {
    out += fmt::format("{}{} invariant(s) broken", out.empty() ? "" : "; ", result->broken.size());
  }
  return out;
}

std::string counts_text(const std::vector<StateCount>& counts) {
  std::string out;
  for (const auto& c : counts) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", c.n, c.name);
  return out.empty() ? "no tests" : out;
}

std::string ReportView::counts_text() const { return tileperf::counts_text(counts); }

std::string ReportView::missing_text() const {
  if (expected == 0 || tests.size() >= expected) return "";
  return fmt::format(
      "incomplete: {} of {} expected results found ({} missing): a shard uploaded nothing, or "
      "tests did not run",
      tests.size(), expected, expected - tests.size());
}

std::vector<std::pair<std::string, std::string>> ReportView::drift_lines() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& t : tests) {
    auto it = drifts.find(t.name);
    if (it == drifts.end()) continue;
    for (const auto& note : it->second) out.emplace_back(t.name, note);
  }
  return out;
}

std::string ReportView::runs_text() const {
  if (earlier_left_out) {
    return fmt::format(
        "{} result(s) of earlier runs left out: those tests did not run this time "
        "(rerun them, or pass --all-runs to include them)",
        earlier_left_out);
  }
  if (earlier_included) {
    return fmt::format("{} result(s) are of earlier runs (marked \"earlier run\"): those tests did not run this time",
                       earlier_included);
  }
  return "";
}

namespace {

std::vector<StateCount> count_states(const std::vector<const TestView*>& tests) {
  std::vector<StateCount> counts;
  for (const auto& info : all_states()) {
    std::size_t n =
        std::count_if(tests.begin(), tests.end(), [&](const TestView* t) { return t->result->state == info.state; });
    if (n) counts.push_back({info.state, info.name, n});
  }
  return counts;
}

std::size_t state_rank(State s) {
  const auto& states = all_states();
  return std::find_if(states.begin(), states.end(), [s](const StateInfo& i) { return i.state == s; }) - states.begin();
}

// In report order of their states, by name within a state (the order they came in).
void sort_by_state(std::vector<const TestView*>& tests) {
  std::stable_sort(tests.begin(), tests.end(), [](const TestView* a, const TestView* b) {
    return state_rank(a->result->state) < state_rank(b->result->state);
  });
}

}  // namespace

ReportView make_report_view(const std::vector<TestResult>& results, bool include_earlier) {
  ReportView view;
  for (const auto& r : results) {
    if (r.earlier_run && !include_earlier) {
      ++view.earlier_left_out;
      continue;
    }
    view.earlier_included += r.earlier_run;
    TestView t;
    t.earlier_run = r.earlier_run;
    t.result = &r;
    t.name = r.id.name();
    t.anchor = t.name;
    t.state = state_name(r.state);
    // A baseline created with notes (TMA refused, MMA on FMA) is shown for its review.
    t.needs_look = state_info(r.state).needs_look || (r.state == State::kCreated && !r.notes.empty());
    t.rows = shown_rows(r.diff);
    t.opcodes = top_moved(r.diff, kOpcodePrefix);
    t.loop_opcodes = top_moved(r.diff, kLoopOpcodePrefix);
    for (const char* k : kKeyMetrics) {
      auto it = r.key_metrics.find(k);
      t.key.push_back(it == r.key_metrics.end() ? std::nullopt : std::optional(it->second));
    }
    t.timeline = read_timeline_record(r.file, t.timeline_problem);
    std::string unread;  // an investigation that cannot be read is not shown
    t.investigation = record_beside(r.file, FileKind::kInvestigation, kInvestigationFormat, unread);
    view.tests.push_back(std::move(t));
  }
  std::sort(view.tests.begin(), view.tests.end(), [](const TestView& a, const TestView& b) { return a.name < b.name; });
  std::vector<const TestView*> all;
  for (const auto& t : view.tests) all.push_back(&t);
  view.counts = count_states(all);
  for (const auto* t : all) {
    if (t->needs_look) view.needs_look.push_back(t);
  }
  sort_by_state(view.needs_look);
  for (const auto* t : all) {
    if (!t->needs_look && !t->investigation.is_null()) view.investigated.push_back(t);
  }
  std::map<std::string, std::vector<const TestView*>> by_kernel;
  for (const auto* t : all) by_kernel[t->result->id.kernel].push_back(t);
  for (auto& [kernel, tests] : by_kernel) view.kernels.push_back({kernel, tests, count_states(tests)});
  return view;
}

ReviewView make_review_view(Review r) {
  ReviewView v;
  v.review = std::make_shared<const Review>(std::move(r));
  const Review& review = *v.review;
  v.accepted = make_report_view(review.accepted, true);
  for (auto& t : v.accepted.tests) t.anchor = "accepted-" + t.name;
  v.removed = review.removed;
  v.against_base = make_report_view(review.against_base, true);
  for (auto& t : v.against_base.tests) {
    t.anchor = "base-" + t.name;
    if (t.result->state != State::kPass) v.base_moved.push_back(&t);
  }
  sort_by_state(v.base_moved);
  v.unmeasured = review.unmeasured;
  return v;
}

std::string ReviewView::headline() const {
  std::string out;
  std::size_t changed = accepted.tests.size() + removed.size();
  if (changed == 0) {
    out = "this merge request changes no baseline";
  } else {
    out = fmt::format("this merge request changes {} baseline(s) ({}{})", changed, accepted.counts_text(),
                      removed.empty() ? "" : fmt::format(", {} removed", removed.size()));
  }
  if (!against_base.tests.empty()) out += "; against the merge base: " + against_base.counts_text();
  return out;
}

}  // namespace tileperf
