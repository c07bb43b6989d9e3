#include "report/history_report.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "support/error.h"
#include "support/json_input.h"
#include "support/text.h"

namespace tileperf {

namespace {

const GitCommit& commit_at(const HistoryView& v, const TestSeries& t, const SeriesPoint& p) {
  return v.history->commits[t.test->versions[p.version].commit];
}

std::string short_sha(const std::string& sha) { return sha.substr(0, 7); }

std::string signed_count(std::int64_t v) { return v > 0 ? fmt::format("+{}", v) : fmt::format("{}", v); }

std::string step_delta(const SeriesPoint& p) {
  if (!p.value || !p.before) return "";
  return signed_count(*p.value - *p.before);
}

std::string step_percent(std::int64_t before, std::int64_t now) {
  if (before == 0) return now == 0 ? "0.0%" : (now > 0 ? "+inf%" : "-inf%");
  double pct = 100.0 * static_cast<double>(now - before) / std::fabs(static_cast<double>(before));
  return fmt::format("{:+.1f}%", pct);
}

const char* signature_name(SignatureChange c) {
  switch (c) {
    case SignatureChange::kNone:
      return "none";
    case SignatureChange::kTuning:
      return "tuning";
    case SignatureChange::kIdentity:
      return "identity";
  }
  return "none";
}

bool is_start(const HistoryView& v, const TestSeries& t, const SeriesPoint& p) {
  return v.history->has_start && t.test->versions[p.version].commit == 0;
}

// What kind of step a point is, in words: "toolchain", "tuning", "signature",
// "added", "removed", "start".
std::vector<std::string> point_marks(const HistoryView& v, const TestSeries& t, const SeriesPoint& p, bool first) {
  std::vector<std::string> marks;
  if (first && is_start(v, t, p)) marks.push_back("start");
  if (!p.toolchain.empty()) marks.push_back("toolchain");
  if (p.signature == SignatureChange::kTuning) marks.push_back("tuning");
  if (p.signature == SignatureChange::kIdentity) marks.push_back("signature");
  if (!first && !p.before) marks.push_back("added");
  if (!p.value) marks.push_back(t.test->versions[p.version].removed ? "removed" : "gone");
  return marks;
}

std::string verdict_word(const SeriesPoint& p, bool first) {
  if (first || !p.value || !p.before) return "";
  return p.verdict == Verdict::kOk ? "within" : verdict_name(p.verdict);
}

std::string text_point(const HistoryView& v, const TestSeries& t, const SeriesPoint& p, bool first) {
  const GitCommit& c = commit_at(v, t, p);
  std::string value = p.value ? fmt::format("{}", *p.value) : "-";
  std::string pct = p.value && p.before ? step_percent(*p.before, *p.value) : "";
  return fmt::format("    {} {} {:>12} {:>9} {:>8}  {:<10} {:<18} {}\n", short_sha(c.sha), c.date, value, step_delta(p),
                     pct, verdict_word(p, first), fmt::join(point_marks(v, t, p, first), ","), cut_text(c.subject, 72));
}

std::string event_sha(const HistoryView& v, const TestSeries& t, const VersionEvent& e) {
  return short_sha(v.history->commits[t.test->versions[e.version].commit].sha);
}

// The toolchain bumps and signature changes of the test, one line each.
std::string text_events(const HistoryView& v, const TestSeries& t) {
  std::string out;
  for (const auto& e : t.events) {
    if (!e.toolchain.empty())
      out += fmt::format("  toolchain at {}: {}\n", event_sha(v, t, e), fmt::join(e.toolchain, ", "));
    if (e.signature == SignatureChange::kNone) continue;
    std::vector<std::string> fields(e.signature_fields.begin(),
                                    e.signature_fields.begin() + std::min<std::size_t>(e.signature_fields.size(), 6));
    std::string more = fields.size() < e.signature_fields.size()
                           ? fmt::format(" (and {} more)", e.signature_fields.size() - fields.size())
                           : "";
    out += fmt::format("  {} at {}: {}{}\n", e.signature == SignatureChange::kTuning ? "tuning" : "signature",
                       event_sha(v, t, e), fmt::join(fields, "; "), more);
  }
  return out;
}

const MetricSeries& series_named(const TestSeries& t, const std::string& metric) {
  return *std::find_if(t.metrics.begin(), t.metrics.end(), [&](const auto& s) { return s.metric == metric; });
}

std::string text_test(const HistoryView& v, const TestSeries& t) {
  std::string out = fmt::format("{} ({})\n", t.test->test, t.test->versions.back().path);
  for (const auto& s : t.metrics) {
    out += fmt::format("  {} ({})\n", s.metric, s.rule);
    for (std::size_t i = 0; i < s.points.size(); ++i) out += text_point(v, t, s.points[i], i == 0);
  }
  out += text_events(v, t);
  for (const auto& d : t.drifts) out += "  drift: " + describe_drift(v, t, series_named(t, d.metric), d) + "\n";
  return out;
}

std::size_t drift_count(const HistoryView& v) {
  std::size_t n = 0;
  for (const auto& t : v.tests) n += t.drifts.size();
  return n;
}

std::size_t series_count(const HistoryView& v) {
  std::size_t n = 0;
  for (const auto& t : v.tests) n += t.metrics.size();
  return n;
}

std::string summary_line(const HistoryView& v) {
  std::size_t commits = v.history->commits.size() - (v.history->has_start ? 1 : 0);
  return fmt::format("{} test(s), {} commit(s) that changed baselines{}: {} metric series, {} drift(s)", v.tests.size(),
                     commits, v.range.empty() ? "" : " in " + v.range, series_count(v), drift_count(v));
}

nlohmann::json optional_json(const std::optional<std::int64_t>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json point_json(const HistoryView& v, const TestSeries& t, const SeriesPoint& p) {
  return {{"commit", commit_at(v, t, p).sha},
          {"value", optional_json(p.value)},
          {"before", optional_json(p.before)},
          {"verdict", verdict_name(p.verdict)},
          {"toolchain", p.toolchain},
          {"signature", signature_name(p.signature)},
          {"signature_changes", p.signature_fields},
          {"removed", t.test->versions[p.version].removed}};
}

nlohmann::json drift_json(const HistoryView& v, const TestSeries& t, const Drift& d) {
  const MetricSeries& s = series_named(t, d.metric);
  std::vector<std::string> steps;
  for (std::size_t i = d.from + 1; i <= d.to; ++i) steps.push_back(commit_at(v, t, s.points[i]).sha);
  return {{"metric", d.metric},
          {"text", describe_drift(v, t, s, d)},
          {"from", commit_at(v, t, s.points[d.from]).sha},
          {"to", commit_at(v, t, s.points[d.to]).sha},
          {"crossed", commit_at(v, t, s.points[d.crossed]).sha},
          {"from_value", d.from_value},
          {"to_value", d.to_value},
          {"limit", d.limit},
          {"steps", steps}};
}

nlohmann::json test_json(const HistoryView& v, const TestSeries& t) {
  nlohmann::json metrics = nlohmann::json::array(), drifts = nlohmann::json::array();
  for (const auto& s : t.metrics) {
    nlohmann::json points = nlohmann::json::array();
    for (const auto& p : s.points) points.push_back(point_json(v, t, p));
    metrics.push_back({{"metric", s.metric}, {"rule", s.rule}, {"points", points}});
  }
  for (const auto& d : t.drifts) drifts.push_back(drift_json(v, t, d));
  nlohmann::json events = nlohmann::json::array();
  for (const auto& e : t.events) {
    events.push_back({{"commit", v.history->commits[t.test->versions[e.version].commit].sha},
                      {"toolchain", e.toolchain},
                      {"signature", signature_name(e.signature)},
                      {"signature_changes", e.signature_fields}});
  }
  return {{"test", t.test->test},
          {"path", t.test->versions.back().path},
          {"metrics", metrics},
          {"events", events},
          {"drifts", drifts}};
}

// ---- HTML ----

std::string commit_href(const HistoryView& v, const std::string& sha) {
  if (v.commit_url.empty()) return "#commit-" + sha;
  std::string url = v.commit_url;
  for (std::size_t at = url.find("{sha}"); at != std::string::npos; at = url.find("{sha}", at + sha.size())) {
    url.replace(at, 5, sha);
  }
  return url;
}

struct ChartFrame {
  double width = 640, height = 150, left = 70, right = 60, top = 14, bottom = 26;
  std::size_t commits = 1;
  std::int64_t low = 0, high = 1;
  double x(std::size_t commit) const {
    double span = width - left - right;
    return commits <= 1 ? left + span / 2
                        : left + span * static_cast<double>(commit) / static_cast<double>(commits - 1);
  }
  double y(std::int64_t value) const {
    double span = height - top - bottom;
    return top + span * (1.0 - static_cast<double>(value - low) / static_cast<double>(high - low));
  }
};

ChartFrame chart_frame(const HistoryView& v, const MetricSeries& s) {
  ChartFrame f;
  f.commits = v.history->commits.size();
  bool any = false;
  for (const auto& p : s.points) {
    if (!p.value) continue;
    f.low = any ? std::min(f.low, *p.value) : *p.value;
    f.high = any ? std::max(f.high, *p.value) : *p.value;
    any = true;
  }
  if (f.high == f.low) f.low -= 1, f.high += 1;
  return f;
}

std::string point_title(const HistoryView& v, const TestSeries& t, const SeriesPoint& p, bool first) {
  const GitCommit& c = commit_at(v, t, p);
  std::string value = p.value ? fmt::format("{}", *p.value) : "gone";
  std::string delta =
      p.value && p.before ? fmt::format(" ({}, {})", step_delta(p), step_percent(*p.before, *p.value)) : "";
  auto marks = point_marks(v, t, p, first);
  std::string kind = marks.empty() ? "" : fmt::format(" [{}]", fmt::join(marks, ", "));
  return fmt::format("{} {}: {}{}{} {}", short_sha(c.sha), c.date, value, delta, kind, c.subject);
}

// The value as a step line: flat until the next change, to the last commit.
std::string chart_line(const TestSeries& t, const MetricSeries& s, const ChartFrame& f) {
  std::string path;
  const SeriesPoint* last = nullptr;
  for (const auto& p : s.points) {
    double x = f.x(t.test->versions[p.version].commit);
    bool joined = last && last->value;
    if (joined) path += fmt::format(" H{:.1f}", x);
    if (p.value)
      path += joined ? fmt::format(" V{:.1f}", f.y(*p.value)) : fmt::format(" M{:.1f},{:.1f}", x, f.y(*p.value));
    last = &p;
  }
  if (last && last->value) path += fmt::format(" H{:.1f}", f.x(f.commits - 1));
  return fmt::format("<path class=\"series\" d=\"{}\"/>", trim(path));
}

std::string chart_marks(const TestSeries& t, const ChartFrame& f) {
  std::string out;
  for (const auto& e : t.events) {
    std::vector<std::string> kinds;
    if (!e.toolchain.empty()) kinds.push_back("toolchain");
    if (e.signature == SignatureChange::kTuning) kinds.push_back("tuning");
    if (e.signature == SignatureChange::kIdentity) kinds.push_back("signature");
    double x = f.x(t.test->versions[e.version].commit);
    for (std::size_t i = 0; i < kinds.size(); ++i) {
      out += fmt::format(
          "<line class=\"mark mark-{0}\" x1=\"{1:.1f}\" x2=\"{1:.1f}\" y1=\"{2:.1f}\" y2=\"{3:.1f}\"/>"
          "<text class=\"mark-label mark-{0}\" x=\"{4:.1f}\" y=\"{5:.1f}\">{0}</text>",
          kinds[i], x, f.top, f.height - f.bottom, x + 3, f.top + 9 + 11.0 * static_cast<double>(i));
    }
  }
  return out;
}

std::string chart_drifts(const HistoryView& v, const TestSeries& t, const MetricSeries& s, const ChartFrame& f) {
  std::string out;
  for (const auto& d : t.drifts) {
    if (d.metric != s.metric) continue;
    double x0 = f.x(t.test->versions[s.points[d.from].version].commit);
    double x1 = f.x(t.test->versions[s.points[d.to].version].commit);
    out += fmt::format(
        "<rect class=\"drift\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\">"
        "<title>drift: {}</title></rect>",
        x0, f.top, std::max(x1 - x0, 2.0), f.height - f.top - f.bottom, html_escape(describe_drift(v, t, s, d)));
  }
  return out;
}

std::string chart_points(const HistoryView& v, const TestSeries& t, const MetricSeries& s, const ChartFrame& f) {
  std::string out;
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    const SeriesPoint& p = s.points[i];
    const GitCommit& c = commit_at(v, t, p);
    double x = f.x(t.test->versions[p.version].commit);
    double y = p.value ? f.y(*p.value) : f.height - f.bottom;
    std::string cls = "point verdict-" + std::string(i == 0 ? "first" : verdict_name(p.verdict));
    for (const auto& m : point_marks(v, t, p, i == 0)) cls += " mark-" + m;
    out += fmt::format(
        "<a href=\"{}\" data-commit=\"{}\"><circle class=\"{}\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4.5\">"
        "<title>{}</title></circle></a>",
        html_escape(commit_href(v, c.sha)), c.sha, cls, x, y, html_escape(point_title(v, t, p, i == 0)));
  }
  return out;
}

std::string chart_axes(const HistoryView& v, const ChartFrame& f) {
  const auto& commits = v.history->commits;
  double base = f.height - f.bottom;
  return fmt::format(
      "<line class=\"axis\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.1f}\" y2=\"{2:.1f}\"/>"
      "<line class=\"axis\" x1=\"{0:.1f}\" x2=\"{3:.1f}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\"/>"
      "<text class=\"tick\" x=\"{4:.1f}\" y=\"{5:.1f}\" text-anchor=\"end\">{6}</text>"
      "<text class=\"tick\" x=\"{4:.1f}\" y=\"{7:.1f}\" text-anchor=\"end\">{8}</text>"
      "<text class=\"tick\" x=\"{0:.1f}\" y=\"{9:.1f}\">{10}</text>"
      "<text class=\"tick\" x=\"{3:.1f}\" y=\"{9:.1f}\" text-anchor=\"end\">{11}</text>",
      f.left, f.top, base, f.width - f.right, f.left - 6, f.y(f.high) + 4, f.high, f.y(f.low) + 4, f.low, f.height - 8,
      short_sha(commits.front().sha) + " " + commits.front().date,
      short_sha(commits.back().sha) + " " + commits.back().date);
}

std::string chart(const HistoryView& v, const TestSeries& t, const MetricSeries& s) {
  ChartFrame f = chart_frame(v, s);
  return fmt::format(
      "<figure class=\"metric\" id=\"{0}.{1}\"><figcaption><b>{1}</b> ({2})</figcaption>"
      "<svg class=\"history-chart\" data-test=\"{0}\" data-metric=\"{1}\" width=\"{3:.0f}\" height=\"{4:.0f}\" "
      "viewBox=\"0 0 {3:.0f} {4:.0f}\" role=\"img\" aria-label=\"{1} of {0} over the commits\">{5}{6}{7}{8}{9}</svg>"
      "</figure>\n",
      html_escape(t.test->test), html_escape(s.metric), html_escape(s.rule), f.width, f.height, chart_axes(v, f),
      chart_drifts(v, t, s, f), chart_marks(t, f), chart_line(t, s, f), chart_points(v, t, s, f));
}

std::string html_test(const HistoryView& v, const TestSeries& t) {
  std::string out = fmt::format("<section class=\"test\" id=\"{0}\"><h2>{0}</h2><p class=\"path\">{1}</p>\n",
                                html_escape(t.test->test), html_escape(t.test->versions.back().path));
  for (const auto& d : t.drifts) {
    out += fmt::format("<p class=\"drift-note\">drift: {}</p>\n",
                       html_escape(describe_drift(v, t, series_named(t, d.metric), d)));
  }
  for (const auto& s : t.metrics) out += chart(v, t, s);
  return out + "</section>\n";
}

std::string html_commits(const HistoryView& v) {
  std::string out =
      "<h2 id=\"commits\">Commits</h2>\n<table "
      "class=\"commits\"><tr><th>commit</th><th>date</th><th>subject</th></tr>\n";
  for (std::size_t i = 0; i < v.history->commits.size(); ++i) {
    const GitCommit& c = v.history->commits[i];
    bool start = i == 0 && v.history->has_start;
    out += fmt::format(
        "<tr id=\"commit-{0}\"><td><a href=\"{1}\"><code>{2}</code></a></td><td>{3}</td><td>{4}{5}</td></tr>\n", c.sha,
        html_escape(commit_href(v, c.sha)), short_sha(c.sha), c.date, html_escape(c.subject),
        start ? " <i>(where the range starts)</i>" : "");
  }
  return out + "</table>\n";
}

const char* history_style() {
  return R"css(
body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #222; max-width: 80em; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin: 1.6em 0 .2em; border-bottom: 1px solid #ddd; }
a { color: #0550ae; text-decoration: none; } a:hover { text-decoration: underline; }
.path { color: #666; margin: 0 0 .5em; font-family: ui-monospace, monospace; font-size: 12px; }
figure.metric { display: inline-block; margin: .4em 1.2em .8em 0; vertical-align: top; }
figcaption { font-size: 13px; }
svg text { font: 11px sans-serif; fill: #444; }
.axis { stroke: #999; stroke-width: 1; }
.series { fill: none; stroke: #4e79a7; stroke-width: 2; }
.point { fill: #4e79a7; stroke: #fff; stroke-width: 1.5; }
.point.verdict-regressed { fill: #d9534f; } .point.verdict-improved { fill: #3c9a4f; }
.point.mark-removed, .point.mark-gone { fill: #fff; stroke: #999; }
.mark { stroke-width: 1.5; stroke-dasharray: 4 3; }
.mark-toolchain { stroke: #b07aa1; fill: #b07aa1; } .mark-tuning { stroke: #f28e2b; fill: #f28e2b; }
.mark-signature { stroke: #555; fill: #555; }
text.mark-label { font-size: 10px; stroke: none; }
span.mark-toolchain { color: #b07aa1; } span.mark-tuning { color: #f28e2b; } span.mark-signature { color: #555; }
.drift { fill: #f6c343; fill-opacity: .3; }
.drift-note { background: #fdf0c4; padding: .2em .5em; display: inline-block; margin: .2em 0; }
.unreadable { background: #f8d0d0; padding: .2em .5em; }
table { border-collapse: collapse; } th, td { border: 1px solid #ccc; padding: .15em .5em; text-align: left; }
tr:target td { background: #e8f0fb; }
.legend span { margin-right: 1.2em; }
)css";
}

std::string legend_point(const std::string& cls, const std::string& text) {
  return fmt::format(
      "<span><svg width=\"12\" height=\"12\"><circle class=\"{}\" cx=\"6\" cy=\"6\" r=\"4.5\"/></svg> {}</span>", cls,
      text);
}

std::string legend_mark(const std::string& kind, const std::string& text) {
  return fmt::format(
      "<span><svg width=\"14\" height=\"12\"><line class=\"mark mark-{0}\" x1=\"7\" x2=\"7\" y1=\"0\" "
      "y2=\"12\"/></svg> <span class=\"mark-label mark-{0}\">{0}</span>: {1}</span>",
      kind, text);
}

std::string html_legend() {
  return "<p class=\"legend\">" + legend_point("point", "a change within its tolerance") +
         legend_point("point verdict-regressed", "past it (regressed)") +
         legend_point("point verdict-improved", "improved past it") + legend_mark("toolchain", "a toolchain bump") +
         legend_mark("tuning", "a tuning change (constants, hints)") +
         legend_mark("signature", "another kernel (an identity change)") +
         "<span><span class=\"drift-note\">drift</span>: steps each within the tolerance that add up past "
         "it</span></p>\n";
}

}  // namespace

std::string describe_drift(const HistoryView& v, const TestSeries& t, const MetricSeries& s, const Drift& d) {
  auto sha = [&](std::size_t i) { return short_sha(commit_at(v, t, s.points[i]).sha); };
  std::vector<std::string> steps;
  for (std::size_t i = d.from + 1; i <= d.to; ++i) steps.push_back(sha(i) + " " + step_delta(s.points[i]));
  double limit = d.to_value >= d.from_value ? d.limit : -d.limit;
  return fmt::format(
      "{} {} -> {} ({}, {}; limit {:+g}) over {} step(s) each within it, from {} to {}, past the "
      "limit at {}: {}",
      d.metric, d.from_value, d.to_value, signed_count(d.to_value - d.from_value),
      step_percent(d.from_value, d.to_value), limit, d.to - d.from, sha(d.from), sha(d.to), sha(d.crossed),
      fmt::join(steps, ", "));
}

std::string history_text(const HistoryView& v) {
  std::string out;
  for (const auto& u : v.history->unreadable) out += "unreadable: " + u.error + "\n";
  for (const auto& t : v.tests) out += text_test(v, t);
  return out + summary_line(v) + "\n";
}

nlohmann::json history_json(const HistoryView& v) {
  nlohmann::json commits = nlohmann::json::array(), tests = nlohmann::json::array(),
                 unreadable = nlohmann::json::array();
  for (std::size_t i = 0; i < v.history->commits.size(); ++i) {
    const GitCommit& c = v.history->commits[i];
    commits.push_back({{"sha", c.sha},
                       {"date", c.date},
                       {"time", c.time},
                       {"subject", c.subject},
                       {"start", i == 0 && v.history->has_start}});
  }
  for (const auto& t : v.tests) tests.push_back(test_json(v, t));
  for (const auto& u : v.history->unreadable) {
    unreadable.push_back({{"commit", v.history->commits[u.commit].sha}, {"path", u.path}, {"error", u.error}});
  }
  return {{"format", kHistoryFormat},
          {"range", v.range},
          {"commits", commits},
          {"tests", tests},
          {"unreadable", unreadable}};
}

std::string history_html(const HistoryView& v) {
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<title>tileperf history</title><style>{}</style></head><body>\n"
      "<h1>Baseline history</h1>\n<p class=\"summary\">{}</p>\n",
      history_style(), html_escape(summary_line(v)));
  out += html_legend();
  for (const auto& u : v.history->unreadable)
    out += "<p class=\"unreadable\">unreadable: " + html_escape(u.error) + "</p>\n";
  for (const auto& t : v.tests) out += html_test(v, t);
  return out + html_commits(v) + "</body></html>\n";
}

std::map<std::string, std::vector<std::string>> read_drift_notes(const std::string& path) {
  nlohmann::json j = parse_json(read_file(path), path);
  if (!j.is_object() || j.value("format", "") != kHistoryFormat || !j.contains("tests") || !j.at("tests").is_array()) {
    throw InputError(path, 0, std::string("not a ") + kHistoryFormat + " file (tileperf history --json writes one)");
  }
  std::map<std::string, std::vector<std::string>> notes;
  for (const auto& t : j.at("tests")) {
    if (!t.is_object() || !t.contains("drifts") || !t.at("drifts").is_array()) {
      throw InputError(path, 0, "each entry of 'tests' must be an object with a list 'drifts'");
    }
    for (const auto& d : t.at("drifts")) {
      if (!d.is_object() || !d.contains("text") || !d.at("text").is_string()) {
        throw InputError(path, 0, "each drift of " + t.value("test", std::string("a test")) + " must have a 'text'");
      }
      notes[t.value("test", "")].push_back(d.at("text").get<std::string>());
    }
  }
  return notes;
}

}  // namespace tileperf
