// The HTML report, rendered here in full: the page needs no script to show
// what needs a look (html_assets.cpp sorts and filters).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>

#include <fmt/format.h>

#include "analysis/source_lines.h"
#include "report/formats.h"
#include "report/html_assets.h"
#include "report/investigation_text.h"
#include "support/text.h"

namespace tileperf {

namespace {

std::string esc(const std::string& s) { return html_escape(s); }

std::string state_class(const std::string& state) {
  std::string s = state;
  std::replace(s.begin(), s.end(), ' ', '-');
  std::replace(s.begin(), s.end(), '/', '-');  // "I/O failure"
  return "state-" + s;
}

// A number cell that sorts by its value.
std::string num(std::int64_t v, const std::string& text) {
  return fmt::format("<td class=\"num\" data-value=\"{}\">{}</td>", v, esc(text));
}

std::string percent_cell(const DiffRow& d) {
  // Bars up to 100% long, on a log scale past it.
  double magnitude = std::isinf(d.percent) ? 400.0 : std::fabs(d.percent);
  double width = magnitude <= 100 ? magnitude / 100 * 3 : 3 + std::log10(magnitude / 100) * 2;
  std::string value = std::isinf(d.percent) ? (d.percent > 0 ? "1e300" : "-1e300") : fmt::format("{:.6g}", d.percent);
  return fmt::format(
      "<td class=\"num\" data-value=\"{}\"><span class=\"pct {}\" style=\"width:{:.2f}em\"></span>{}</td>", value,
      d.delta > 0 ? "up" : "down", width, esc(d.percent_text));
}

std::string diff_table(const TestView& t) {
  std::string out =
      "<table class=\"diff sortable\"><thead><tr><th>metric</th><th>baseline</th><th>current</th><th>delta</th>"
      "<th>%</th><th>limit</th><th>verdict</th></tr></thead><tbody>\n";
  for (const auto& d : t.rows) {
    std::string verdict = verdict_name(d.verdict);
    out += fmt::format(
        "<tr class=\"verdict-{}\"><td>{}{}</td>{}{}{}{}<td class=\"num\">{}</td><td class=\"{}\">{}</td></tr>\n",
        verdict, esc(d.metric), esc(d.marker), num(d.baseline, std::to_string(d.baseline)),
        num(d.current, std::to_string(d.current)), num(d.delta, d.delta_text), percent_cell(d), esc(d.limit_text),
        verdict, verdict);
  }
  return out + "</tbody></table>\n";
}

// Horizontal bars of the opcodes that moved, up to the right, down to the left.
std::string opcode_chart(const TestResult& r, std::string_view prefix, const std::string& title) {
  TopMoved moved = top_moved(r.diff, prefix, 20);
  if (moved.empty()) return "";
  const int row_h = 16, label_w = 220, bar_w = 300, mid = label_w + bar_w / 2;
  std::int64_t max = 1;
  for (const auto& m : moved.top) max = std::max<std::int64_t>(max, std::llabs(m.delta));
  std::string out =
      fmt::format("<h4>{}</h4>\n<svg class=\"opcode-chart\" width=\"{}\" height=\"{}\" role=\"img\">\n", esc(title),
                  label_w + bar_w + 60, row_h * (moved.top.size() + (moved.more ? 1 : 0)) + 4);
  for (std::size_t i = 0; i < moved.top.size(); ++i) {
    const auto& m = moved.top[i];
    double w = std::max(1.0, double(std::llabs(m.delta)) / double(max) * bar_w / 2);
    int y = int(i) * row_h + 2;
    out += fmt::format("<text x=\"0\" y=\"{}\">{}</text>", y + 11, esc(m.name));
    out += fmt::format(
        "<rect class=\"bar {}\" data-opcode=\"{}{}\" x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\"></rect>",
        m.delta > 0 ? "up" : "down", prefix, esc(m.name), m.delta > 0 ? double(mid) : mid - w, y, w, row_h - 4);
    out +=
        fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n", label_w + bar_w + 4, y + 11, format_signed(double(m.delta)));
  }
  if (moved.more)
    out += fmt::format("<text x=\"0\" y=\"{}\">and {} more</text>\n", row_h * moved.top.size() + 13, moved.more);
  return out + "</svg>\n";
}

// One steady iteration of a loop as the replay scheduled it: a row per
// instruction, its wait before issuing (red), its issue (a mark by kind:
// MMA, load or copy in, store or copy out, barrier or wait, other) and the
// cycles until its result or copy is complete (blue; past the iteration's
// end it runs to the edge). Each row's title says what a wait was for.
// At most this many rows: a longer body keeps its memory, MMA, barrier and
// waiting instructions and says how many others it leaves out.
constexpr std::size_t kMaxGanttRows = 160;

std::string gantt_svg(const nlohmann::json& loop) {
  nlohmann::json events = nlohmann::json::array();
  std::size_t left_out = 0;
  for (const auto& e : loop.at("events")) {
    bool interesting = e.value("mark", "*") != "*" || e.value("waited", 0.0) > 0;
    if (loop.at("events").size() <= kMaxGanttRows || interesting) {
      events.push_back(e);
    } else {
      ++left_out;
    }
  }
  if (events.size() > kMaxGanttRows) {
    left_out += events.size() - kMaxGanttRows;
    events.erase(events.begin() + static_cast<std::ptrdiff_t>(kMaxGanttRows), events.end());
  }
  double span = std::max(1.0, loop.value("cycles_per_iteration", 1.0));
  const int label_w = 300, plot_w = 560, row_h = 12, top = 18;
  int height = top + row_h * static_cast<int>(events.size()) + 6;
  auto x = [&](double cycle) { return label_w + std::clamp(cycle / span, 0.0, 1.0) * plot_w; };
  std::string out = fmt::format(
      "<svg class=\"gantt\" data-loop=\"{}\" data-role=\"{}\" width=\"{}\" height=\"{}\" "
      "role=\"img\" aria-label=\"schedule of one iteration of loop {}\">\n",
      esc(loop.value("loop", "")), esc(loop.value("role", "")), label_w + plot_w + 10, height,
      esc(loop.value("loop", "")));
  for (int q = 0; q <= 4; ++q) {
    double c = span * q / 4;
    out += fmt::format(
        "<line class=\"grid\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\"/><text x=\"{0:.1f}\" "
        "y=\"10\">{3:.0f}</text>\n",
        x(c), top - 4, height, c);
  }
  int row = 0;
  for (const auto& e : events) {
    int y = top + row_h * row++;
    double issue = e.value("issue", 0.0), done = e.value("done", issue), waited = e.value("waited", 0.0);
    std::string mark = e.value("mark", "*");
    std::string tip = e.value("address", "") + " " + e.value("opcode", "");
    if (waited > 0) {
      tip += fmt::format(": waits {:.0f} cycles for {}", waited, e.value("waits_for", ""));
      if (e.contains("waited_on_iteration")) {
        tip += " (" + e.value("waited_on", std::string("")) + (e.contains("waited_on") ? ", " : "") +
               e.value("waited_on_iteration", "") + ")";
      }
    }
    out += fmt::format("<g class=\"event\" data-mark=\"{}\"><title>{}</title>", esc(mark), esc(tip));
    out += fmt::format("<text x=\"0\" y=\"{}\">{} {}</text>", y + 9, esc(e.value("address", "")),
                       esc(e.value("opcode", "").substr(0, 34)));
    if (waited > 0) {
      out += fmt::format("<rect class=\"wait\" x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\"/>",
                         x(issue - waited), y + 2, std::max(1.0, x(issue) - x(issue - waited)), row_h - 4);
    }
    if (done > issue) {
      out += fmt::format("<rect class=\"flight mark-{}\" x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\"/>",
                         esc(mark), x(issue), y + 3, std::max(1.0, x(done) - x(issue)), row_h - 6);
    }
    out += fmt::format("<rect class=\"issue mark-{}\" x=\"{:.1f}\" y=\"{}\" width=\"3\" height=\"{}\"/></g>\n",
                       esc(mark), x(issue) - 1, y + 1, row_h - 2);
  }
  out += "</svg>\n";
  if (left_out)
    out += fmt::format("<p class=\"note\">{} other instruction(s) of the iteration not drawn</p>\n", left_out);
  return out;
}

// The SMs over the launch: a row per group of SMs, a column per part of the
// launch, darker where more of the resident slots hold a block; the tail is
// where the rows turn light before the right edge.
std::string occupancy_svg(const nlohmann::json& o) {
  if (!o.is_object() || !o.contains("rows") || !o.at("rows").is_array() || o.at("rows").empty()) return "";
  const auto& rows = o.at("rows");
  std::size_t columns = rows.at(0).is_array() ? rows.at(0).size() : 0;
  if (columns == 0) return "";
  const int cell_w = 8, cell_h = 6, left = 70, top = 4;
  int width = left + static_cast<int>(columns) * cell_w + 10,
      height = top + static_cast<int>(rows.size()) * cell_h + 22;
  std::string out = fmt::format(
      "<details class=\"occupancy\" open><summary>SMs over the launch: {} SM(s), {} block(s) each at most, "
      "{:.1f} us of waves; the slowest block {:.2f}x the mean, SMs {}% idle ({} class(es) of blocks)</summary>\n"
      "<svg class=\"occupancy\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" role=\"img\" "
      "aria-label=\"SM occupancy over the launch\">\n",
      o.value("sms", 0), o.value("resident", 0), o.value("waves_us", 0.0), o.value("imbalance", 1.0),
      o.value("idle_pct", 0), o.value("classes", 1), width, height);
  std::size_t per_row = o.value("sms_per_row", std::size_t(1));
  for (std::size_t r = 0; r < rows.size(); ++r) {
    int y = top + static_cast<int>(r) * cell_h;
    if (r % 8 == 0) {
      out += fmt::format("<text class=\"axis\" x=\"{}\" y=\"{}\" text-anchor=\"end\">SM {}</text>\n", left - 4,
                         y + cell_h, r * per_row);
    }
    for (std::size_t c = 0; c < rows.at(r).size() && c < columns; ++c) {
      int pct = rows.at(r).at(c).is_number() ? rows.at(r).at(c).get<int>() : 0;
      out += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#1f77b4\" fill-opacity=\"{:.2f}\">"
          "<title>{}% of the slots</title></rect>\n",
          left + static_cast<int>(c) * cell_w, y, cell_w, cell_h, pct / 100.0, pct);
    }
  }
  out += fmt::format(
      "<text class=\"axis\" x=\"{}\" y=\"{}\">0</text><text class=\"axis\" x=\"{}\" y=\"{}\" "
      "text-anchor=\"end\">{:.1f} us</text>\n",
      left, height - 6, left + static_cast<int>(columns) * cell_w, height - 6, o.value("waves_us", 0.0));
  return out + "</svg></details>\n";
}

std::string timeline_section(const TestView& t) {
  std::string out;
  if (!t.timeline_problem.empty()) out += "<p class=\"note\">note: " + esc(t.timeline_problem) + "</p>\n";
  if (t.timeline.is_null()) return out;
  if (t.timeline.contains("sm_occupancy")) out += occupancy_svg(t.timeline.at("sm_occupancy"));
  for (const auto& loop : t.timeline.at("loops")) {
    if (!loop.is_object() || !loop.contains("events") || !loop.at("events").is_array()) continue;
    std::string role = loop.value("role", "") == "main" ? "Main loop" : "Producer loop";
    std::string overlap =
        loop.contains("overlap_pct") ? fmt::format(", overlap {}%", loop.value("overlap_pct", 0)) : "";
    out += fmt::format(
        "<details class=\"schedule\" open><summary>{} {} ({}{}), one steady iteration: {:.0f} cycles{}</summary>\n",
        role, esc(loop.value("loop", "")), esc(loop.value("warps", "")),
        loop.contains("lines") ? ", " + esc(loop.value("lines", "")) : "", loop.value("cycles_per_iteration", 0.0),
        overlap);
    out += gantt_svg(loop) + "</details>\n";
  }
  return out;
}

// The kernel's source lines with their share of the launch estimate (the
// timeline record's line_time), in line order.
std::string source_view(const TestView& t) {
  if (t.timeline.is_null() || !t.timeline.contains("line_time")) return "";
  const auto& a = t.timeline.at("line_time");
  auto lines = a.value("lines", nlohmann::json::array());
  if (!lines.is_array() || lines.empty()) return "";
  auto number = [](const nlohmann::json& l) { return split_line(l.value("line", "")); };
  std::vector<nlohmann::json> sorted(lines.begin(), lines.end());
  std::sort(sorted.begin(), sorted.end(),
            [&](const nlohmann::json& x, const nlohmann::json& y) { return number(x) < number(y); });
  std::string out = fmt::format(
      "<details class=\"source-view\"><summary>Estimated time by source line (share of {})</summary>\n"
      "<table class=\"lines\"><thead><tr><th>line</th><th>share</th><th>time</th><th>source</th></tr></thead><tbody>\n",
      esc(a.value("term", "")));
  for (const auto& l : sorted) {
    double share = l.value("share", 0.0);
    out += fmt::format(
        "<tr><td>{}</td><td><span class=\"bar\" style=\"display:inline-block;background:#c44;height:0.8em;"
        "width:{:.0f}px\"></span> {:.1f}%</td><td>{}</td><td><code>{}</code></td></tr>\n",
        esc(l.value("line", "")), 100 * share, 100 * share, esc(format_time_ns(l.value("ns", 0.0))),
        esc(l.value("text", "")));
  }
  return out + "</tbody></table></details>\n";
}

std::string test_detail(const TestView& t) {
  const TestResult& r = *t.result;
  std::string out = fmt::format(
      "<article class=\"test-detail {}\" id=\"{}\" data-test=\"{}\">\n<h3><a href=\"#{}\">{}</a> "
      "<span class=\"badge {}\">{}</span></h3>\n",
      state_class(t.state), esc(t.anchor), esc(t.name), esc(t.anchor), esc(t.name), state_class(t.state), esc(t.state));
  if (!r.message.empty()) out += "<p class=\"message\">" + esc(r.message) + "</p>\n";
  if (!r.launch.empty()) out += "<p class=\"launch\">launch: " + esc(r.launch) + "</p>\n";
  for (const auto& b : r.broken) {
    out += fmt::format("<p class=\"regressed broken\">invariant broken: {}{}; found {}</p>\n", esc(b.require),
                       b.why.empty() ? "" : " (" + esc(b.why) + ")", esc(b.found));
  }
  if (!t.rows.empty()) out += diff_table(t);
  if (!r.lines.empty()) {
    out +=
        "<h4>Source lines that moved (instructions)</h4>\n<table class=\"lines sortable\"><thead><tr><th>line</th>"
        "<th>baseline</th><th>current</th><th>delta</th><th>estimate now</th><th>source</th></tr></thead><tbody>\n";
    for (const auto& m : r.lines) {
      std::string estimate =
          m.share >= 0 ? fmt::format("{:.1f}% ({})", 100 * m.share, format_time_ns(m.ns)) : std::string("-");
      out += fmt::format("<tr><td>{}</td>{}{}{}<td>{}</td><td><code>{}</code></td></tr>\n", esc(m.line),
                         num(m.baseline, std::to_string(m.baseline)), num(m.current, std::to_string(m.current)),
                         num(m.delta(), format_signed(double(m.delta()))), esc(estimate), esc(m.text));
    }
    out += "</tbody></table>\n";
  }
  out += opcode_chart(r, kOpcodePrefix, "Opcodes that moved");
  out += opcode_chart(r, kLoopOpcodePrefix, "Opcodes that moved in the main loop");
  out += source_view(t);
  out += timeline_section(t);
  if (!t.investigation.is_null()) out += investigation_html(t.investigation);
  for (const auto& n : r.notes) out += "<p class=\"note\">note: " + esc(n) + "</p>\n";
  return out + "</article>\n";
}

// An index of the tests, then each one's detail.
std::string tests_section(const std::string& id, const std::string& index_id, const std::string& title,
                          const std::vector<const TestView*>& tests, const std::string& when_empty) {
  std::string out = fmt::format("<section id=\"{}\">\n<h2>{}</h2>\n", id, esc(title));
  if (tests.empty()) return out + "<p>" + esc(when_empty) + "</p>\n</section>\n";
  out += fmt::format(
      "<table class=\"sortable\" id=\"{}\"><thead><tr><th>test</th><th>state</th><th>what moved</th></tr>"
      "</thead><tbody>\n",
      index_id);
  for (const auto* t : tests) {
    std::string what = t->headline();
    if (what.empty()) what = t->result->message;
    out += fmt::format("<tr><td><a href=\"#{}\">{}</a></td><td class=\"{}\">{}</td><td>{}</td></tr>\n", esc(t->anchor),
                       esc(t->name), state_class(t->state), esc(t->state), esc(what));
  }
  out += "</tbody></table>\n";
  for (const auto* t : tests) out += test_detail(*t);
  return out + "</section>\n";
}

std::string needs_look_section(const ReportView& view) {
  return tests_section("needs-look", "look-index", fmt::format("Needs a look ({})", view.needs_look.size()),
                       view.needs_look, "Nothing: every test passed.");
}

// The tests that need no look but were investigated (tileperf investigate).
std::string investigated_section(const ReportView& view) {
  if (view.investigated.empty()) return "";
  return tests_section("investigated", "investigated-index", fmt::format("Investigated ({})", view.investigated.size()),
                       view.investigated, "");
}

std::string review_sections(const ReviewView* review) {
  if (!review) return "";
  std::vector<const TestView*> accepted;
  for (const auto& t : review->accepted.tests) accepted.push_back(&t);
  std::string out = "<p id=\"review\"><b>Review:</b> " + esc(review->headline()) + "</p>\n";
  out += tests_section("accepted", "accepted-index",
                       fmt::format("Baselines changed in this merge request ({})", review->accepted.counts_text()),
                       accepted, "No baseline changed.");
  if (!review->removed.empty()) {
    std::string names;
    for (const auto& n : review->removed) names += (names.empty() ? "" : ", ") + n;
    out += "<p>Baselines removed: " + esc(names) + "</p>\n";
  }
  out += tests_section("against-base", "against-base-index",
                       fmt::format("Against the merge base ({})", review->against_base.counts_text()),
                       review->base_moved, "Every result is within the merge base's limits.");
  return out;
}

std::string all_tests_section(const ReportView& view) {
  std::string out = fmt::format(
      "<section id=\"all-tests\">\n<h2>All tests ({})</h2>\n<p><input id=\"filter\" type=\"search\" "
      "placeholder=\"filter: words of a test name or a state\" aria-label=\"filter\"> <span id=\"shown\"></span></p>\n"
      "<table class=\"sortable\" id=\"tests\"><thead><tr><th>test</th><th>state</th>",
      view.tests.size());
  for (const char* k : kKeyMetrics) out += fmt::format("<th>{}</th>", k);
  out += "</tr></thead><tbody>\n";
  for (const auto& t : view.tests) {
    std::string name = t.needs_look ? fmt::format("<a href=\"#{}\">{}</a>", esc(t.anchor), esc(t.name)) : esc(t.name);
    out += fmt::format("<tr data-test=\"{}\" data-state=\"{}\"><td>{}</td><td class=\"{}\">{}</td>", esc(t.name),
                       esc(t.state), name, state_class(t.state), esc(t.state));
    for (const auto& v : t.key) out += v ? num(*v, std::to_string(*v)) : "<td class=\"num\" data-value=\"-1\"></td>";
    out += "</tr>\n";
  }
  return out + "</tbody></table>\n</section>\n";
}

// One chart per key metric: a group of bars per kernel configuration, one
// bar per architecture.
std::string by_arch_section(const ReportView& view) {
  std::string out = "<section id=\"by-arch\">\n<h2>Key metrics by architecture</h2>\n";
  for (std::size_t k = 0; k < std::size(kKeyMetrics); ++k) {
    std::map<std::string, std::map<std::string, std::int64_t>> groups;  // kernel.config -> arch -> value
    std::set<std::string> archs;
    for (const auto& t : view.tests) {
      if (!t.key[k]) continue;
      const TestId& id = t.result->id;
      groups[id.kernel + "." + id.config][id.arch] = *t.key[k];
      archs.insert(id.arch);
    }
    std::int64_t max = 1;
    for (const auto& [g, values] : groups) {
      for (const auto& [a, v] : values) max = std::max(max, v);
    }
    const int row_h = 12, gap = 6, label_w = 260, bar_w = 420;
    std::string bars;
    int y = 0;
    for (const auto& [g, values] : groups) {
      bars += fmt::format("<text x=\"0\" y=\"{}\">{}</text>\n", y + row_h * int(archs.size()) / 2 + 4, esc(g));
      int i = 0;
      for (const auto& a : archs) {
        auto it = values.find(a);
        if (it != values.end()) {
          double w = std::max(1.0, double(it->second) / double(max) * bar_w);
          bool known = a == "sm_120" || a == "sm_100" || a == "sm_90";
          bars += fmt::format(
              "<rect class=\"bar {}\" data-arch=\"{}\" data-group=\"{}\" x=\"{}\" y=\"{}\" "
              "width=\"{:.1f}\" height=\"{}\"></rect><text x=\"{:.1f}\" y=\"{}\">{} {}</text>\n",
              known ? "arch-" + a : "arch-other", esc(a), esc(g), label_w, y + i * row_h, w, row_h - 2, label_w + w + 4,
              y + i * row_h + 9, esc(a), it->second);
        }
        ++i;
      }
      y += row_h * int(archs.size()) + gap;
    }
    out += fmt::format(
        "<details{}><summary>{}</summary>\n<svg class=\"arch-chart\" data-metric=\"{}\" width=\"{}\" "
        "height=\"{}\" role=\"img\">\n{}</svg>\n</details>\n",
        k == 0 ? " open" : "", kKeyMetrics[k], kKeyMetrics[k], label_w + bar_w + 120, y, bars);
  }
  return out + "</section>\n";
}

// Drift of the shown tests (report --history), one row per run.
std::string drift_section(const ReportView& view) {
  auto drift = view.drift_lines();
  if (drift.empty()) return "";
  std::string rows;
  for (const auto& [test, note] : drift) rows += fmt::format("<tr><td>{}</td><td>{}</td></tr>\n", esc(test), esc(note));
  return fmt::format(
      "<section id=\"drift\">\n<h2>Drift over the baselines' history: {} run(s)</h2>\n"
      "<p>Each accepted step within its limit, their sum past it.</p>\n"
      "<table>\n<thead><tr><th>test</th><th>drift</th></tr></thead>\n<tbody>\n{}</tbody>\n</table>\n"
      "</section>\n",
      drift.size(), rows);
}

}  // namespace

std::string report_html(const ReportView& view, const ReviewView* review) {
  std::string title = "tileperf: " + view.counts_text();
  std::string counts;
  for (const auto& c : view.counts) {
    counts += fmt::format("<a class=\"count {}\" data-state=\"{}\" href=\"?filter={}#all-tests\">{} {}</a>",
                          state_class(c.name), esc(c.name), esc(c.name), c.n, esc(c.name));
  }
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{}</title>\n"
      "<style>{}</style>\n</head>\n<body>\n<h1 id=\"title\">{}</h1>\n<nav id=\"summary\">{}</nav>\n{}{}{}{}"
      "<script>{}</script>\n</body>\n</html>\n",
      esc(title), report_html_style(), esc(title), counts,
      (view.missing_text().empty()
           ? ""
           : "<p id=\"missing\" class=\"regressed\"><b>" + esc(view.missing_text()) + "</b></p>\n") +
          (view.runs_text().empty() ? "" : "<p id=\"runs\">" + esc(view.runs_text()) + "</p>\n"),
      review_sections(review) + needs_look_section(view) + investigated_section(view) + drift_section(view),
      all_tests_section(view), by_arch_section(view), report_html_script());
}

}  // namespace tileperf
