#include "report/formats.h"

#include <fmt/format.h>

namespace tileperf {

nlohmann::json report_json(const ReportView& view) {
  nlohmann::json tests = nlohmann::json::array();
  nlohmann::json counts = nlohmann::json::object();
  for (const auto& t : view.tests) {
    nlohmann::json j = to_json(*t.result);
    j.erase("seconds");
    j.erase("format");
    j.erase("run");  // which run made it: merged shards give the report of one run
    if (t.earlier_run) j["earlier_run"] = true;
    tests.push_back(std::move(j));
  }
  for (const auto& c : view.counts) counts[c.name] = c.n;
  nlohmann::json out = {{"format", kReportFormat}, {"counts", counts}, {"tests", tests}};
  if (view.expected) out["expected"] = view.expected;
  if (view.earlier_left_out) out["earlier_runs_left_out"] = view.earlier_left_out;
  return out;
}

namespace {

std::string md_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += ' ';
    else if (c == '<')
      out += "&lt;";
    else
      out += c;
  }
  return out;
}

// At most `n` characters of a one-line text, cut at a word.
std::string shortened(const std::string& s, std::size_t n) {
  if (s.size() <= n) return s;
  auto cut = s.rfind(' ', n);
  return s.substr(0, cut == std::string::npos || cut < n / 2 ? n : cut) + " ...";
}

std::string md_summary_line(const TestView& t) {
  std::string what = t.headline();
  if (what.empty()) what = shortened(t.result->message, 160);
  return fmt::format("<b>{}</b> <code>{}</code>{}", t.state, t.name, what.empty() ? "" : ": " + md_escape(what));
}

std::string md_details(const TestView& t) {
  const TestResult& r = *t.result;
  std::string out;
  if (!r.message.empty()) out += md_escape(r.message) + "\n\n";
  for (const auto& b : r.broken) {
    out += fmt::format("- invariant broken: `{}`{}; found `{}`\n", b.require,
                       b.why.empty() ? "" : " (" + md_escape(b.why) + ")", b.found);
  }
  if (!t.rows.empty()) {
    out += "\n| metric | baseline | current | delta | % | limit | verdict |\n";
    out += "| --- | ---: | ---: | ---: | ---: | ---: | --- |\n";
    for (const auto& d : t.rows) {
      out += fmt::format("| `{}`{} | {} | {} | {} | {} | {} | {} |\n", d.metric, d.marker, d.baseline, d.current,
                         d.delta_text, d.percent_text, d.limit_text, verdict_name(d.verdict));
    }
  }
  if (!r.lines.empty()) {
    out +=
        "\nSource lines that moved (instructions):\n\n| line | baseline | current | delta | source |\n"
        "| --- | ---: | ---: | ---: | --- |\n";
    for (const auto& m : r.lines) {
      out +=
          fmt::format("| `{}` | {} | {} | {} | {} |\n", m.line, m.baseline, m.current, format_signed(double(m.delta())),
                      m.text.empty() ? std::string() : fmt::format("`{}`", md_escape(m.text)));
    }
  }
  out += "\n";
  if (!t.opcodes.empty()) out += "Opcodes that moved most: " + t.opcodes.text() + "\n\n";
  if (!t.loop_opcodes.empty()) out += "Opcodes that moved in the main loop: " + t.loop_opcodes.text() + "\n\n";
  for (const auto& note : r.notes) out += "- note: " + md_escape(note) + "\n";
  return out;
}

std::string md_all_tests(const ReportView& view) {
  std::string out = fmt::format("<details><summary>All {} tests</summary>\n\n| test | state |", view.tests.size());
  for (const char* k : kKeyMetrics) out += fmt::format(" {} |", k);
  out += "\n| --- | --- |";
  for (std::size_t i = 0; i < std::size(kKeyMetrics); ++i) out += " ---: |";
  out += "\n";
  for (const auto& t : view.tests) {
    out += fmt::format("| `{}` | {} |", t.name, t.state);
    for (const auto& v : t.key) out += v ? fmt::format(" {} |", *v) : " |";
    out += "\n";
  }
  return out + "\n</details>\n";
}

std::string where_full(const MarkdownOptions& o) {
  return o.full_report.empty() ? "the full report (tileperf report --html)" : "the full report: " + o.full_report;
}

// The comment's head: the counts, the commit and the CI run it is of, what
// is missing, the runs it holds, the review's headline.
std::string md_head(const ReportView& view, const MarkdownOptions& options) {
  std::string head = fmt::format("## tileperf: {}\n\n", view.counts_text());
  std::vector<std::string> from;
  if (!options.commit.empty()) {
    std::string sha = fmt::format("`{}`", options.commit.substr(0, 12));
    from.push_back("commit " + (options.commit_url.empty() ? sha : fmt::format("[{}]({})", sha, options.commit_url)));
  }
  if (!options.run_url.empty()) from.push_back(fmt::format("[CI run]({})", options.run_url));
  if (!from.empty()) {
    std::string line;
    for (const auto& f : from) line += (line.empty() ? "" : " · ") + f;
    head += line + "\n\n";
  }
  if (auto missing = view.missing_text(); !missing.empty()) head += "> **" + missing + "**\n\n";
  if (auto runs = view.runs_text(); !runs.empty()) head += "> " + runs + "\n\n";
  if (options.review) head += "> **Review:** " + options.review->headline() + "\n\n";
  return head;
}

// One block of the comment: a heading (the first of its group), a summary
// line, and the details folded under it.
struct Block {
  std::string heading, summary, details;

  std::string full() const {
    if (details.empty()) return fmt::format("{}{}\n\n", heading, summary);
    return fmt::format("{}<details><summary>{}</summary>\n\n{}\n</details>\n\n", heading, summary, details);
  }
  std::string brief() const { return fmt::format("{}- {}\n", heading, summary); }
};

// The tests of `tests` as blocks, the first under `heading`.
template <typename Tests, typename Test>
void add_blocks(const Tests& tests, const std::string& heading, Test test, std::vector<Block>& blocks) {
  bool first = true;
  for (const auto& each : tests) {
    const TestView* t = test(each);
    if (!t) continue;
    blocks.push_back({first ? heading : "", md_summary_line(*t), md_details(*t)});
    first = false;
  }
}

// The review's blocks: the baselines the merge request changed, those it
// removed, and the tests that moved against the merge base.
void review_blocks(const ReviewView& review, std::vector<Block>& blocks) {
  add_blocks(
      review.accepted.tests,
      fmt::format("### Baselines changed in this merge request: {}\n\n", review.accepted.counts_text()),
      [](const TestView& t) { return &t; }, blocks);
  if (!review.removed.empty()) {
    std::string names;
    for (const auto& n : review.removed) names += (names.empty() ? "`" : ", `") + n + "`";
    blocks.push_back({"", "baselines removed: " + names, ""});
  }
  add_blocks(
      review.base_moved, fmt::format("### Against the merge base: {}\n\n", review.against_base.counts_text()),
      [](const TestView* t) { return t; }, blocks);
}

// Too long: no table of all tests, details while they fit, then one line
// per test.
std::string shortened(const std::string& head, const std::vector<Block>& blocks, const MarkdownOptions& options) {
  const std::string tail =
      fmt::format("\nThe comment is shortened to fit; every test is in {}.\n", where_full(options));
  std::string out = head;
  std::size_t i = 0;
  for (; i < blocks.size() && out.size() + blocks[i].full().size() + tail.size() <= options.max_chars / 2; ++i) {
    out += blocks[i].full();
  }
  for (; i < blocks.size(); ++i) {
    std::string line = blocks[i].brief();
    if (out.size() + line.size() + tail.size() + 80 > options.max_chars) {
      out += fmt::format("\n... and {} more tests that need a look.\n", blocks.size() - i);
      break;
    }
    out += line;
  }
  return out + tail;
}

}  // namespace

std::string report_markdown(const ReportView& view, const MarkdownOptions& options) {
  std::string head = md_head(view, options);
  const std::string all = md_all_tests(view);
  // Each kernel with a test that needs a look: a heading, then one block per test.
  std::vector<Block> blocks;
  if (options.review) review_blocks(*options.review, blocks);
  for (const auto& k : view.kernels) {
    add_blocks(
        k.tests, fmt::format("### {}: {}\n\n", k.kernel, counts_text(k.counts)),
        [](const TestView* t) { return t->needs_look ? t : nullptr; }, blocks);
  }
  if (auto drift = view.drift_lines(); !drift.empty()) {
    // After the tests that need a look: slow moves the gate passed one step at a time.
    std::string lines;
    for (const auto& [test, note] : drift) lines += fmt::format("- `{}`: {}\n", test, note);
    blocks.push_back({fmt::format("### Drift over the baselines' history: {} run(s)\n\n", drift.size()),
                      "each accepted step within its limit, their sum past it", lines});
  }
  std::string body;
  for (const auto& b : blocks) body += b.full();
  if (head.size() + body.size() + all.size() <= options.max_chars) return head + body + all;
  return shortened(head, blocks, options);
}

}  // namespace tileperf
