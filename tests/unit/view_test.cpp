#define BOOST_TEST_MODULE view
#include <boost/test/unit_test.hpp>

#include <fmt/format.h>

#include "diffs.h"
#include "report/formats.h"
#include "report/view.h"

using namespace tileperf;

namespace {

MetricDiff diff(const std::string& name, std::int64_t base, std::int64_t cur, Direction dir, Verdict v,
                double limit = 0) {
  return testing::metric_diff(name, base, cur, dir, v, limit);
}

TestResult result(const std::string& kernel, const std::string& arch, State state) {
  TestResult r;
  r.id = {kernel, "f16", arch};
  r.state = state;
  r.key_metrics = {{"sass.instructions", 100}, {"regs", 40}};
  return r;
}

TestResult regressed_gelu() {
  TestResult r = result("gelu", "sm_120", State::kRegressed);
  r.message = "4 metric(s) over the limit";
  r.diff = {diff("sass.mufu", 9, 17, Direction::kLower, Verdict::kRegressed),
            diff("regs", 27, 40, Direction::kLower, Verdict::kRegressed),
            diff("sass.instructions", 143, 257, Direction::kLower, Verdict::kRegressed, 1.43),
            diff("cubin.bytes", 100, 120, Direction::kLower, Verdict::kRegressed, 1),
            diff("sass.opcode.FFMA", 10, 58, Direction::kInfo, Verdict::kInfo),
            diff("sass.opcode.MUFU.TANH", 8, 0, Direction::kInfo, Verdict::kInfo),
            diff("loop.main.opcode.HMMA", 4, 8, Direction::kInfo, Verdict::kInfo),
            diff("shared.bytes", 100, 90, Direction::kLower, Verdict::kImproved, 1)};
  return r;
}

}  // namespace

BOOST_AUTO_TEST_CASE(rows_are_the_gated_metrics_that_moved_and_every_regression) {
  std::vector<MetricDiff> diffs = regressed_gelu().diff;
  diffs.push_back(diff("tileir.ops", 3, 3, Direction::kLower, Verdict::kOk));              // did not move
  diffs.push_back(diff("sass.opcode.IMAD", 3, 3, Direction::kInfo, Verdict::kRegressed));  // --exact
  auto rows = shown_rows(diffs);
  std::vector<std::string> names;
  for (const auto& r : rows) names.push_back(r.metric);
  std::vector<std::string> expected = {"sass.mufu",   "regs",         "sass.instructions",
                                       "cubin.bytes", "shared.bytes", "sass.opcode.IMAD"};
  BOOST_TEST(names == expected, boost::test_tools::per_element());
  BOOST_TEST(shown_rows(diffs, true).size() == rows.size() + 3);  // the info metrics that moved
}

BOOST_AUTO_TEST_CASE(a_row_says_how_far_and_within_which_limit) {
  DiffRow r = diff_row(diff("sass.instructions", 143, 257, Direction::kLower, Verdict::kRegressed, 1.43));
  BOOST_TEST(r.delta == 114);
  BOOST_TEST(r.delta_text == "+114");
  BOOST_TEST(r.percent_text == "+79.7%");
  BOOST_TEST(r.limit_text == "+1.43");
  BOOST_TEST(r.marker == "");
  DiffRow added = diff_row(diff("sass.mufu.EX2", 0, 8, Direction::kLower, Verdict::kRegressed));
  BOOST_TEST(added.percent_text == "+inf%");
  BOOST_TEST(added.marker == " [new]");
  BOOST_TEST(diff_row(diff("tc", 1, 0, Direction::kHigher, Verdict::kRegressed)).limit_text == "-0");
  BOOST_TEST(diff_row(diff("ii", 3, 4, Direction::kExact, Verdict::kRegressed)).limit_text == "=");
}

BOOST_AUTO_TEST_CASE(top_moved_orders_by_size_and_counts_the_rest) {
  std::vector<MetricDiff> diffs;
  for (int i = 1; i <= 8; ++i) {
    diffs.push_back(
        diff("sass.opcode.OP" + std::to_string(i), 10, 10 + (i % 2 ? i : -i), Direction::kInfo, Verdict::kInfo));
  }
  diffs.push_back(diff("loop.main.opcode.OP9", 1, 100, Direction::kInfo, Verdict::kInfo));
  TopMoved top = top_moved(diffs, kOpcodePrefix, 3);
  BOOST_TEST(top.text() == "OP8 -8, OP7 +7, OP6 -6 (and 5 more)");
  BOOST_TEST(top_moved(diffs, kLoopOpcodePrefix).text() == "OP9 +99");
  BOOST_TEST(top_moved({}, kOpcodePrefix).empty());
}

BOOST_AUTO_TEST_CASE(totals_count_moved_metrics_by_verdict) {
  auto t = diff_totals(regressed_gelu().diff);
  BOOST_TEST(t.metrics == 8u);
  BOOST_TEST(t.moved == 8u);
  BOOST_TEST(t.regressed == 4u);
  BOOST_TEST(t.improved == 1u);
  BOOST_TEST(t.info == 3u);
  BOOST_TEST(t.removed == 1u);
}

BOOST_AUTO_TEST_CASE(the_view_puts_what_needs_a_look_first_in_state_order) {
  std::vector<TestResult> results = {result("softmax", "sm_90", State::kPass), result("softmax", "sm_100", State::kNew),
                                     regressed_gelu(), result("rope", "sm_90", State::kSkipped),
                                     result("attention", "sm_90", State::kSignatureChanged)};
  ReportView view = make_report_view(results);
  BOOST_TEST(view.tests.front().name == "perf.attention.f16.sm_90");  // by name
  BOOST_REQUIRE(view.needs_look.size() == 3u);
  BOOST_TEST(view.needs_look[0]->name == "perf.gelu.f16.sm_120");
  BOOST_TEST(view.needs_look[1]->name == "perf.attention.f16.sm_90");
  BOOST_TEST(view.needs_look[2]->name == "perf.softmax.f16.sm_100");
  BOOST_TEST(view.counts_text() == "1 regressed, 1 signature changed, 1 new, 1 skipped, 1 pass");
  BOOST_REQUIRE(view.kernels.size() == 4u);
  BOOST_TEST(view.kernels[3].kernel == "softmax");
  BOOST_TEST(counts_text(view.kernels[3].counts) == "1 new, 1 pass");
  const TestView& gelu = *view.needs_look[0];
  BOOST_TEST(gelu.headline(2) == "sass.mufu 9 -> 17 (+88.9%), regs 27 -> 40 (+48.1%) and 2 more");
  BOOST_TEST(gelu.key.size() == std::size(kKeyMetrics));
  BOOST_TEST(gelu.key[0].value() == 100);  // sass.instructions
  BOOST_TEST(!gelu.key[1].has_value());    // sass.mufu not measured
  BOOST_TEST(make_report_view({}).counts_text() == "no tests");
}

BOOST_AUTO_TEST_CASE(markdown_groups_by_kernel_with_numbers_in_the_collapsed_line) {
  std::vector<TestResult> results = {regressed_gelu(), result("softmax", "sm_90", State::kPass)};
  ReportView view = make_report_view(results);
  std::string md = report_markdown(view);
  BOOST_TEST(md.starts_with("## tileperf: 1 regressed, 1 pass\n"));
  BOOST_TEST(md.find("### gelu: 1 regressed\n") != std::string::npos);
  BOOST_TEST(md.find("### softmax") == std::string::npos);  // nothing there needs a look
  BOOST_TEST(md.find("<code>perf.gelu.f16.sm_120</code>: sass.mufu 9 -> 17 (+88.9%)") != std::string::npos);
  BOOST_TEST(md.find("| `sass.instructions` | 143 | 257 | +114 | +79.7% | +1.43 | regressed |") != std::string::npos);
  BOOST_TEST(md.find("Opcodes that moved in the main loop: HMMA +4") != std::string::npos);
  BOOST_TEST(md.find("<details><summary>All 2 tests</summary>") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(markdown_past_its_size_is_shortened_and_says_where_the_rest_is) {
  std::vector<TestResult> results;
  for (int i = 0; i < 400; ++i) {
    TestResult r = regressed_gelu();
    r.id.config = fmt::format("c{}", i);
    results.push_back(r);
  }
  ReportView view = make_report_view(results);
  BOOST_TEST(report_markdown(view, {.max_chars = 10'000'000, .full_report = ""}).size() >
             65536u);  // whole: too long for GitHub
  MarkdownOptions o{.max_chars = 60000, .full_report = "https://ci.example/run/7/report.html"};
  std::string md = report_markdown(view, o);
  BOOST_TEST(md.size() <= 60000u);
  BOOST_TEST(md.find("<details><summary>All 400 tests") == std::string::npos);
  BOOST_TEST(md.find("every test is in the full report: https://ci.example/run/7/report.html") != std::string::npos);
  BOOST_TEST(md.find("- <b>regressed</b> <code>perf.gelu.c") != std::string::npos);  // one line per test
  BOOST_TEST(md.find("more tests that need a look") != std::string::npos);
  BOOST_TEST(report_markdown(view, {.max_chars = 200, .full_report = ""}).size() <= 200u);
}

BOOST_AUTO_TEST_CASE(html_shows_the_essentials_without_its_script) {
  std::vector<TestResult> results = {regressed_gelu(), result("softmax", "sm_90", State::kPass)};
  results[0].notes = {"MMA fell back to FMA & <more>"};
  ReportView view = make_report_view(results);
  std::string html = report_html(view);
  auto script = html.find("<script>");
  BOOST_REQUIRE(script != std::string::npos);
  std::string page = html.substr(0, script);  // what a reader sees without JavaScript
  BOOST_TEST(page.find("<title>tileperf: 1 regressed, 1 pass</title>") != std::string::npos);
  BOOST_TEST(page.find("<article class=\"test-detail state-regressed\" id=\"perf.gelu.f16.sm_120\"") !=
             std::string::npos);
  BOOST_TEST(page.find("<a href=\"#perf.gelu.f16.sm_120\">") != std::string::npos);
  BOOST_TEST(page.find("<td>sass.instructions</td><td class=\"num\" data-value=\"143\">143</td>"
                       "<td class=\"num\" data-value=\"257\">257</td><td class=\"num\" data-value=\"114\">+114</td>") !=
             std::string::npos);
  BOOST_TEST(page.find(">+79.7%</td><td class=\"num\">+1.43</td><td class=\"regressed\">regressed</td>") !=
             std::string::npos);
  BOOST_TEST(page.find("note: MMA fell back to FMA &amp; &lt;more&gt;") != std::string::npos);
  BOOST_TEST(page.find("<tr data-test=\"perf.softmax.f16.sm_90\" data-state=\"pass\">") != std::string::npos);
  // What needs a look comes before the table of all tests and the charts.
  BOOST_TEST(page.find("id=\"needs-look\"") < page.find("id=\"all-tests\""));
  BOOST_TEST(page.find("id=\"all-tests\"") < page.find("id=\"by-arch\""));
}
