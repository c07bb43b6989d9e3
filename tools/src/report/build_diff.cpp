// The diff of two builds, test by test (build_diff.h).
#include "report/build_diff.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "analysis/loops.h"
#include "analysis/sass_diff.h"
#include "analysis/source_lines.h"
#include "gate/compare.h"
#include "gate/judgement.h"
#include "gate/policy.h"
#include "metrics/metrics.h"
#include "readers/elf.h"
#include "readers/line_table.h"
#include "readers/sass.h"
#include "report/comparison_text.h"
#include "report/view.h"
#include "results/result.h"
#include "results/run_record.h"
#include "support/error.h"
#include "support/text.h"
#include "support/work_paths.h"

namespace tileperf {

namespace {

namespace fs = std::filesystem;

constexpr const char* kDiffFormat = "tileperf-diff/1";

// One test's files on one side: <prefix>.metrics.json, .sass, .cubin.
struct TestFiles {
  std::string prefix;  // test_prefix
  Metrics metrics;
  std::string file(FileKind kind) const { return prefixed_file(prefix, kind); }
};

// A side of the diff: where its results are, and its tests by name.
struct Side {
  std::string results;  // the folder the tests were found in
  std::map<std::string, TestFiles> tests;
};

bool is_metrics_file(const fs::directory_entry& e) {
  return e.is_regular_file() && prefix_of(e.path().string(), FileKind::kMetrics);
}

// Metrics files in `dir` and in its folders one level down (one per kernel),
// the result cache left out; sorted, so that errors do not depend on the
// file system's order.
std::vector<fs::path> metrics_files(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (is_metrics_file(e)) out.push_back(e.path());
    std::string name = e.path().filename().string();
    if (!e.is_directory() || name == file_kind_template(FileKind::kCache) || name.starts_with(".")) continue;
    for (const auto& f : fs::directory_iterator(e.path())) {
      if (is_metrics_file(f)) out.push_back(f.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// A build folder (its tileperf/ folder holds the results) or a folder of
// results: a build's tileperf/, one kernel's folder, a CI artifact.
Side read_side(const std::string& dir, const std::string& which) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    throw InputError(dir, 0, fmt::format("{} is not a folder (give a build folder or its tileperf/ folder)", which));
  }
  Side side;
  fs::path root(dir);
  if (fs::is_directory(root / "tileperf", ec)) root /= "tileperf";
  side.results = root.string();
  for (const auto& path : metrics_files(root)) {
    TestFiles t{*prefix_of(path.string(), FileKind::kMetrics), read_metrics(path.string())};
    std::string test = t.metrics.id.name();
    if (auto it = side.tests.find(test); it != side.tests.end()) {
      throw InputError(path.string(), 0,
                       fmt::format("{} was already read from {}", test, it->second.file(FileKind::kMetrics)));
    }
    side.tests.emplace(test, std::move(t));
  }
  if (side.tests.empty()) {
    throw InputError(root.string(), 0,
                     fmt::format("no test results (*.metrics.json) in the {} folder or the "
                                 "folders in it: has the gate run there?",
                                 which));
  }
  return side;
}

// What a listing shows: its parse, the main loop and the source line of
// each instruction, when the cubin beside it has a line table.
struct Listing {
  SassListing sass;
  LoopAnalysis loops;
  LineTable lines;
  std::map<std::string, std::string> paths;  // "gelu.py" -> the path the line table names
};

std::shared_ptr<const Listing> read_listing(const TestFiles& t) {
  std::string path = t.file(FileKind::kSass);
  if (!fs::exists(path)) return nullptr;
  auto listing = std::make_shared<Listing>();
  Listing& l = *listing;
  std::istringstream in(read_file(path));
  l.sass = parse_sass(in, path);
  std::string cubin = t.file(FileKind::kCubin);
  if (fs::exists(cubin)) {
    std::string data = read_file(cubin);
    l.lines = read_line_table(data, parse_elf(data, cubin), cubin);
    l.paths = count_source_lines(l.sass, l.lines).paths;
  }
  l.loops = analyze_loops(l.sass, {&l.lines, nullptr, 0});
  return listing;
}

// A stretch of one function on one side: the main loop, or the whole function.
struct Span {
  const SassFunction* function = nullptr;
  std::size_t first = 0, last = 0;  // instruction indices [first, last)
  std::size_t size() const { return last - first; }
  std::string addresses() const {
    if (size() == 0) return "empty";
    return fmt::format("{:#06x}-{:#06x}", function->instructions[first].address,
                       function->instructions[last - 1].address);
  }
};

const SassFunction* find_function(const SassListing& l, const std::string& name) {
  for (const auto& f : l.functions) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

Span whole(const SassFunction& f) { return {&f, 0, f.padding_begin}; }

// The main loop from its header to its last hot instruction, nested loops included.
std::optional<Span> main_loop(const Listing& l) {
  if (l.loops.main < 0) return std::nullopt;
  const LoopInfo& loop = l.loops.loops[static_cast<std::size_t>(l.loops.main)];
  const SassFunction* f = find_function(l.sass, loop.function);
  if (!f) return std::nullopt;
  Span s{f, 0, 0};
  while (s.first < f->padding_begin && f->instructions[s.first].address < loop.begin) ++s.first;
  s.last = s.first;
  while (s.last < f->padding_begin && f->instructions[s.last].address <= loop.end) ++s.last;
  return s;
}

// The SASS diff of one span on both sides.
struct SpanDiff {
  std::string what;  // "the main loop of matmul", "function matmul"
  Span base, head;
  DiffSide base_text, head_text;
  std::optional<std::vector<Edit>> script;  // none: too different for a line diff
  std::vector<Hunk> hunks;
  std::string summary;  // when there is no script: the opcodes that moved
};

std::vector<std::string> span_notes(const Listing& l, const Span& s) {
  std::vector<std::string> notes;
  if (l.lines.empty()) return notes;
  for (std::size_t i = s.first; i < s.last; ++i) {
    auto at = l.lines.find(s.function->name, s.function->instructions[i].address);
    notes.push_back(at ? fmt::format("{}:{}", fs::path(at->file).filename().string(), at->line) : "");
  }
  return notes;
}

std::string opcode_summary(const Span& base, const Span& head) {
  std::map<std::string, std::int64_t> delta;
  for (std::size_t i = base.first; i < base.last; ++i) --delta[base.function->instructions[i].opcode];
  for (std::size_t i = head.first; i < head.last; ++i) ++delta[head.function->instructions[i].opcode];
  std::vector<std::pair<std::string, std::int64_t>> moved;
  for (const auto& [op, d] : delta) {
    if (d != 0) moved.emplace_back(op, d);
  }
  std::stable_sort(moved.begin(), moved.end(),
                   [](const auto& a, const auto& b) { return std::llabs(a.second) > std::llabs(b.second); });
  std::string out;
  for (std::size_t i = 0; i < moved.size() && i < kTopMoved; ++i) {
    out += fmt::format("{}{} {}", i ? ", " : "", moved[i].first, format_signed(static_cast<double>(moved[i].second)));
  }
  if (moved.size() > kTopMoved) out += fmt::format(" (and {} more)", moved.size() - kTopMoved);
  return out.empty() ? "the same opcodes in another order" : "opcodes: " + out;
}

SpanDiff diff_span(std::string what, const Listing& base, Span b, const Listing& head, Span h, const DiffOptions& o) {
  SassTextOptions text{.mask_registers = o.ignore_registers};
  SpanDiff d{std::move(what), b, h, {}, {}, std::nullopt, {}, ""};
  d.base_text = {instruction_texts(*b.function, b.first, b.last, text), span_notes(base, b)};
  d.head_text = {instruction_texts(*h.function, h.first, h.last, text), span_notes(head, h)};
  d.script = diff_lines(d.base_text.lines, d.head_text.lines);
  if (d.script) {
    d.hunks = make_hunks(*d.script, o.context);
  } else {
    d.summary = fmt::format("more than {} lines differ, too many for a line diff{}; {}", kMaxEdits,
                            o.ignore_registers ? "" : " (--ignore-registers may bring it under)", opcode_summary(b, h));
  }
  return d;
}

bool same_text(const SpanDiff& d) { return d.script && d.hunks.empty(); }

// The main loop when both sides have one and it changed; else every
// function whose code changed; functions of one side only in `notes`.
std::vector<SpanDiff> diff_code(const Listing& base, const Listing& head, const DiffOptions& o,
                                std::vector<std::string>& notes) {
  auto bl = main_loop(base), hl = main_loop(head);
  if (bl && hl) {
    SpanDiff loop = diff_span("the main loop of " + hl->function->name, base, *bl, head, *hl, o);
    if (!same_text(loop)) return {std::move(loop)};
    notes.push_back("the main loop did not change");
  } else if (bl || hl) {
    notes.push_back(
        fmt::format("main loop: {} in base, {} in head", bl ? bl->addresses() : "none", hl ? hl->addresses() : "none"));
  } else {
    notes.push_back("no main loop");
  }
  std::vector<SpanDiff> out;
  for (const auto& f : base.sass.functions) {
    const SassFunction* g = find_function(head.sass, f.name);
    if (!g) {
      notes.push_back(fmt::format("function {} removed ({} instructions)", f.name, f.padding_begin));
      continue;
    }
    SpanDiff d = diff_span("function " + f.name, base, whole(f), head, whole(*g), o);
    if (!same_text(d)) out.push_back(std::move(d));
  }
  for (const auto& g : head.sass.functions) {
    if (!find_function(base.sass, g.name)) {
      notes.push_back(fmt::format("function {} added ({} instructions)", g.name, g.padding_begin));
    }
  }
  return out;
}

// One test present on both sides.
struct TestDiff {
  std::string name;
  State judged = State::kPass;  // judge()'s state
  std::string state;            // shown: the state's name, a pass as "changed" or "unchanged" (kDiffStates)
  Comparison comparison;
  std::vector<std::string> toolchain, signature;
  bool tuning = false;    // the signature moved only in constants and hints: judged by the launch estimate
  std::string trade_off;  // Judgement::trade_off
  std::vector<LineMove> lines;
  std::vector<SpanDiff> code;
  std::vector<std::string> code_notes;
  std::shared_ptr<const Listing> base_listing, head_listing;  // the spans point into them
};

bool same_file(const std::string& a, const std::string& b) {
  bool ea = fs::exists(a), eb = fs::exists(b);
  if (ea != eb) return false;
  return !ea || read_file(a) == read_file(b);
}

TestDiff diff_test(const std::string& name, const TestFiles& base, const TestFiles& head, const Policy& policy,
                   const DiffOptions& o) {
  TestDiff t;
  t.name = name;
  Judgement j = judge(base.metrics, head.metrics, policy);
  t.comparison = j.comparison;
  t.toolchain = j.toolchain;
  t.signature = j.signature;
  t.tuning = j.tuning();
  t.trade_off = j.trade_off;
  t.lines = line_moves(base.metrics.lines, head.metrics.lines, base.metrics.line_text, head.metrics.line_text);
  bool listing_moved = !same_file(base.file(FileKind::kSass), head.file(FileKind::kSass));
  if (listing_moved) {
    t.base_listing = read_listing(base);
    t.head_listing = read_listing(head);
    if (t.base_listing && t.head_listing) {
      t.code = diff_code(*t.base_listing, *t.head_listing, o, t.code_notes);
      if (t.code.empty()) {
        t.code_notes.push_back(fmt::format("no instruction changed, only addresses, encodings or control bits{}",
                                           o.ignore_registers ? " or register numbers" : ""));
      }
    } else {
      t.code_notes.push_back(fmt::format("no SASS listing in {}", t.base_listing ? "head" : "base"));
    }
  }
  std::map<std::string, std::string> paths;
  for (const auto* l : {&t.base_listing, &t.head_listing}) {
    if (*l) paths.insert((*l)->paths.begin(), (*l)->paths.end());
  }
  if (t.head_listing) {
    for (const auto& [file, path] : t.head_listing->paths) paths[file] = path;  // the head's text first
  }
  for (auto& m : t.lines) {
    if (m.text.empty()) m.text = source_text(m.line, paths);
  }

  bool moved =
      t.comparison.changed() != 0 || !t.lines.empty() || listing_moved || !t.toolchain.empty() || !t.signature.empty();
  t.judged = j.state;
  // A pass splits by whether anything moved; every other state is shown as itself.
  t.state = j.state != State::kPass ? state_name(j.state) : moved ? "changed" : "unchanged";
  return t;
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

std::string span_text(const SpanDiff& d, std::size_t max_lines) {
  std::string out;
  if (!d.script) {
    return fmt::format("  SASS of {}: {} -> {} instructions, {}\n", d.what, d.base.size(), d.head.size(), d.summary);
  }
  EditCounts c = count_edits(*d.script);
  out += fmt::format("  SASS of {} ({} in base, {} in head): {} -> {} instructions, -{} +{} lines\n", d.what,
                     d.base.addresses(), d.head.addresses(), d.base.size(), d.head.size(), c.deleted, c.inserted);
  return out + format_hunks(d.hunks, d.base_text, d.head_text, max_lines, "  ");
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
  for (const auto& d : t.code) out += span_text(d, o.max_lines);
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

nlohmann::json span_json(const SpanDiff& d) {
  nlohmann::json j = {{"what", d.what},
                      {"function", d.head.function->name},
                      {"base", {{"addresses", d.base.addresses()}, {"instructions", d.base.size()}}},
                      {"head", {{"addresses", d.head.addresses()}, {"instructions", d.head.size()}}}};
  if (!d.script) {
    j["summary"] = d.summary;
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

nlohmann::json test_json(const TestDiff& t) {
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
  for (const auto& d : t.code) code.push_back(span_json(d));
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

// What a test on both sides ends as, in the order of the summary line (the
// states table's, a pass split in two).
constexpr const char* kDiffStates[] = {"regressed", "signature changed", "toolchain changed", "stale",
                                       "improved",  "changed",           "unchanged"};

// The tests of both sides that the --test filter selects: the diffs of
// those on both sides, and the names of those on one side only.
struct DiffRun {
  std::vector<TestDiff> diffs;
  std::vector<std::string> added, removed;
  std::map<std::string, std::size_t> counts;
  std::map<std::string, Policy> policies;  // by kernel/config; broken invariants point at their invariants
  // The exit code of the state first in the states table's order among the
  // tests: regressed, signature changed or toolchain changed fail the diff
  // as they fail the check.
  int exit_code() const {
    for (const auto& info : all_states()) {
      for (const auto& t : diffs) {
        if (t.judged == info.state && info.exit_code != kExitOk) return info.exit_code;
      }
    }
    return kExitOk;
  }
};

std::optional<std::regex> test_filter(const std::string& test) {
  if (test.empty()) return std::nullopt;
  try {
    return std::regex(test, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw UsageError(fmt::format("diff: --test: '{}' is not a regular expression: {}", test, e.what()));
  }
}

DiffRun diff_sides(const Side& base, const Side& head, const std::string& checks, const DiffOptions& o,
                   const std::optional<std::regex>& filter) {
  auto selected = [&](const std::string& name) { return !filter || std::regex_search(name, *filter); };
  DiffRun run;
  for (const char* s : kDiffStates) run.counts[s] = 0;
  std::map<std::string, Policy> policies;  // by kernel/config
  for (const auto& [name, t] : base.tests) {
    if (selected(name) && !head.tests.contains(name)) run.removed.push_back(name);
  }
  for (const auto& [name, h] : head.tests) {
    if (!selected(name)) continue;
    auto b = base.tests.find(name);
    if (b == base.tests.end()) {
      run.added.push_back(name);
      continue;
    }
    auto key = h.metrics.id.kernel + "/" + h.metrics.id.config;
    auto policy = run.policies.find(key);
    if (policy == run.policies.end()) {
      policy = run.policies.emplace(key, load_policy(checks, h.metrics.id.kernel, h.metrics.id.config)).first;
    }
    run.diffs.push_back(diff_test(name, b->second, h, policy->second, o));
    ++run.counts[run.diffs.back().state];
  }
  return run;
}

std::string run_text(const DiffRun& run, const Side& base, const Side& head, const BuildFacts& facts,
                     const DiffOptions& o) {
  std::string out;
  for (const auto& t : run.diffs) {
    if (t.state != "unchanged") out += test_text(t, o) + "\n";
  }
  for (const auto& name : run.added) out += fmt::format("{}: added (only in head)\n", name);
  for (const auto& name : run.removed) out += fmt::format("{}: removed (only in base)\n", name);
  std::vector<std::string> parts;
  for (const char* s : kDiffStates) {
    if (std::size_t n = run.counts.at(s)) parts.push_back(fmt::format("{} {}", n, s));
  }
  out += fmt::format("{} test(s) in both: {}; {} added, {} removed (base {}, head {})\n", run.diffs.size(),
                     parts.empty() ? "none" : fmt::format("{}", fmt::join(parts, ", ")), run.added.size(),
                     run.removed.size(), base.results, head.results);
  if (run.exit_code() != kExitOk && !facts.update_command.empty()) {
    out += "if intended, update the head build's baselines with: " + facts.update_command + "\n";
  }
  return out;
}

nlohmann::json run_json(const DiffRun& run, const Side& base, const Side& head, const BuildFacts& facts) {
  nlohmann::json tests = nlohmann::json::array();
  for (const auto& t : run.diffs) tests.push_back(test_json(t));
  return {{"format", kDiffFormat}, {"base", base.results}, {"head", head.results},   {"checks", facts.checks},
          {"counts", run.counts},  {"added", run.added},   {"removed", run.removed}, {"tests", tests}};
}

}  // namespace

BuildFacts recorded_build_facts(const std::string& results, const std::string& checks) {
  for (const fs::path& dir : {fs::path(results), fs::absolute(results).parent_path()}) {
    std::string path = work_file(dir.string(), FileKind::kRun);
    auto record = read_run_record(path);
    if (!record) continue;
    if (checks.empty() && record->checks.empty()) {
      throw InputError(path, 0,
                       "the run record keeps no policy folder (a record of an older tileperf): "
                       "give --checks, or run the build's tests again");
    }
    return {checks.empty() ? record->checks : checks, record->update_command};
  }
  return {checks.empty() ? "checks" : checks, ""};
}

int diff_builds(const DiffOptions& o, std::ostream& out) {
  std::optional<std::regex> filter = test_filter(o.test);
  Side base = read_side(o.base, "base"), head = read_side(o.head, "head");
  BuildFacts facts = recorded_build_facts(head.results, o.checks);
  DiffRun run = diff_sides(base, head, facts.checks, o, filter);
  out << run_text(run, base, head, facts, o);
  if (!o.json.empty()) write_file_atomic(o.json, run_json(run, base, head, facts).dump(2) + "\n");
  return run.exit_code();
}

}  // namespace tileperf
