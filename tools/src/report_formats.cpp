#include "report_formats.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "report.h"
#include "report_html_template.h"

namespace tileperf {

namespace {

// States in the order a reader wants them: what needs action first.
const char* const kStateOrder[] = {"regressed",        "toolchain failure", "bad input",
                                   "error",            "stale",             "toolchain changed", "new",
                                   "improved",         "skipped",           "updated",
                                   "created",          "unchanged",         "pass"};

int state_rank(const std::string& s) {
  for (std::size_t i = 0; i < std::size(kStateOrder); ++i) {
    if (s == kStateOrder[i]) return static_cast<int>(i);
  }
  return static_cast<int>(std::size(kStateOrder));
}

std::string counts_line(const nlohmann::json& counts) {
  std::vector<std::pair<std::string, int>> items;
  for (const auto& [state, n] : counts.items()) items.emplace_back(state, n.get<int>());
  std::sort(items.begin(), items.end(),
            [](const auto& a, const auto& b) { return state_rank(a.first) < state_rank(b.first); });
  std::string out;
  for (const auto& [state, n] : items) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", n, state);
  return out.empty() ? "no tests" : out;
}

std::string md_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

std::string md_diff_table(const nlohmann::json& test) {
  std::string out;
  for (const auto& b : test["broken"]) {
    out += fmt::format("- check broken: `{}`{}; found `{}`\n", b.value("require", ""),
                       b.value("why", "").empty() ? "" : " (" + b.value("why", "") + ")",
                       b.value("found", ""));
  }
  std::vector<nlohmann::json> rows;
  for (const auto& d : test["diff"]) {
    if (d.value("direction", "") != "info" || d.value("verdict", "") == "regressed") rows.push_back(d);
  }
  if (!rows.empty()) {
    out += "\n| metric | baseline | current | delta | % | limit | verdict |\n";
    out += "| --- | ---: | ---: | ---: | ---: | ---: | --- |\n";
    for (const auto& d : rows) {
      std::int64_t base = d.value("baseline", 0), cur = d.value("current", 0);
      double pct = base == 0 ? (cur == 0 ? 0.0 : INFINITY) : 100.0 * (cur - base) / std::fabs(double(base));
      out += fmt::format("| `{}` | {} | {} | {:+d} | {} | {:.4g} | {} |\n", d.value("metric", ""), base, cur,
                         cur - base, format_percent(pct), d.value("limit", 0.0), d.value("verdict", ""));
    }
  }
  std::vector<std::pair<std::int64_t, std::string>> opcodes;
  for (const auto& d : test["diff"]) {
    std::string metric = d.value("metric", "");
    std::int64_t delta = d.value("current", 0) - d.value("baseline", 0);
    if (metric.rfind("sass.opcode.", 0) == 0 && delta != 0) opcodes.emplace_back(delta, metric.substr(12));
  }
  std::stable_sort(opcodes.begin(), opcodes.end(),
                   [](const auto& a, const auto& b) { return std::llabs(a.first) > std::llabs(b.first); });
  out += "\n";
  if (!opcodes.empty()) {
    out += "Opcodes that moved most:";
    for (std::size_t i = 0; i < opcodes.size() && i < 6; ++i) {
      out += fmt::format("{} `{}` {:+d}", i ? "," : "", opcodes[i].second, opcodes[i].first);
    }
    out += "\n\n";
  }
  for (const auto& note : test["notes"]) out += "- note: " + md_escape(note.get<std::string>()) + "\n";
  return out;
}

// Text safe inside an HTML element such as <title>.
std::string html_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else if (c == '"') out += "&quot;";
    else out += c;
  }
  return out;
}

// JSON text safe inside <script>: no "</" sequences.
std::string script_json(const nlohmann::json& j) {
  std::string text = j.dump();
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '<') out += "\\u003c";
    else out += text[i];
  }
  return out;
}

}  // namespace

nlohmann::json report_json(const std::vector<TestResult>& results) {
  nlohmann::json tests = nlohmann::json::array();
  nlohmann::json counts = nlohmann::json::object();
  for (const auto& r : results) {
    nlohmann::json t = to_json(r);
    t.erase("seconds");
    t.erase("format");
    tests.push_back(std::move(t));
    counts[r.state] = counts.value(r.state, 0) + 1;
  }
  return {{"format", kReportFormat}, {"counts", counts}, {"tests", tests}};
}

std::string report_markdown(const nlohmann::json& report) {
  std::string out = fmt::format("## tileperf: {}\n\n", counts_line(report["counts"]));
  std::vector<const nlohmann::json*> attention;
  for (const auto& t : report["tests"]) {
    std::string state = t["state"];
    if (state != "pass" && state != "unchanged" && state != "created" && state != "skipped") {
      attention.push_back(&t);
    }
  }
  std::stable_sort(attention.begin(), attention.end(), [](auto* a, auto* b) {
    return state_rank((*a)["state"]) < state_rank((*b)["state"]);
  });
  for (const auto* t : attention) {
    const auto& test = *t;
    out += fmt::format("<details><summary><b>{}</b> <code>{}</code>{}</summary>\n\n{}\n</details>\n\n",
                       test["state"].get<std::string>(), test["test"].get<std::string>(),
                       test.value("message", "").empty() ? "" : ": " + md_escape(test.value("message", "")),
                       md_diff_table(test));
  }
  out += fmt::format("<details><summary>All {} tests</summary>\n\n", report["tests"].size());
  out += "| test | state |";
  for (const char* k : kKeyMetrics) out += fmt::format(" {} |", k);
  out += "\n| --- | --- |";
  for (std::size_t i = 0; i < std::size(kKeyMetrics); ++i) out += " ---: |";
  out += "\n";
  for (const auto& t : report["tests"]) {
    const auto& values = t["key_metrics"];
    out += fmt::format("| `{}` | {} |", t["test"].get<std::string>(), t["state"].get<std::string>());
    for (const char* k : kKeyMetrics) {
      out += values.contains(k) ? fmt::format(" {} |", values[k].get<std::int64_t>()) : " |";
    }
    out += "\n";
  }
  out += "\n</details>\n";
  return out;
}

std::string report_html(const nlohmann::json& report) {
  std::string page = report_html_template();
  auto at = page.find("@TILEPERF_DATA@");
  page.replace(at, std::string("@TILEPERF_DATA@").size(), script_json(report));
  at = page.find("@TILEPERF_TITLE@");
  page.replace(at, std::string("@TILEPERF_TITLE@").size(),
               html_escape("tileperf: " + counts_line(report["counts"])));
  return page;
}

}  // namespace tileperf
