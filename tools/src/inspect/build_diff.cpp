// The diff of two builds, test by test (build_diff.h).
#include "inspect/build_diff.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <sstream>

#include <fmt/format.h>

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
#include "results/run_record.h"
#include "support/error.h"
#include "support/text.h"
#include "support/work_paths.h"

namespace tileperf {

namespace {

namespace fs = std::filesystem;

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
  l.loops = analyze_loops(l.sass, {.lines = &l.lines});
  return listing;
}

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

std::vector<std::string> span_notes(const Listing& l, const Span& s) {
  std::vector<std::string> notes;
  if (l.lines.empty()) return notes;
  for (std::size_t i = s.first; i < s.last; ++i) {
    auto at = l.lines.find(s.function->name, s.function->instructions[i].address);
    notes.push_back(at ? fmt::format("{}:{}", fs::path(at->file).filename().string(), at->line) : "");
  }
  return notes;
}

// Each opcode's count in `head` less `base`, those that moved most first
// (by name among equals).
std::vector<std::pair<std::string, std::int64_t>> opcode_moves(const Span& base, const Span& head) {
  std::map<std::string, std::int64_t> delta;
  for (std::size_t i = base.first; i < base.last; ++i) --delta[base.function->instructions[i].opcode];
  for (std::size_t i = head.first; i < head.last; ++i) ++delta[head.function->instructions[i].opcode];
  std::vector<std::pair<std::string, std::int64_t>> moved;
  for (const auto& [op, d] : delta) {
    if (d != 0) moved.emplace_back(op, d);
  }
  std::stable_sort(moved.begin(), moved.end(),
                   [](const auto& a, const auto& b) { return std::llabs(a.second) > std::llabs(b.second); });
  return moved;
}

SpanDiff diff_span(std::string what, const Listing& base, Span b, const Listing& head, Span h, const DiffOptions& o) {
  SassTextOptions text{.mask_registers = o.ignore_registers};
  SpanDiff d{std::move(what), b, h, {}, {}, std::nullopt, {}, {}};
  d.base_text = {.lines = instruction_texts(*b.function, b.first, b.last, text), .notes = span_notes(base, b)};
  d.head_text = {.lines = instruction_texts(*h.function, h.first, h.last, text), .notes = span_notes(head, h)};
  d.script = diff_lines(d.base_text.lines, d.head_text.lines);
  if (d.script) {
    d.hunks = make_hunks(*d.script, o.context);
  } else {
    d.moved = opcode_moves(b, h);
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

std::optional<std::regex> test_filter(const std::string& test) {
  if (test.empty()) return std::nullopt;
  try {
    return std::regex(test, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw UsageError(fmt::format("diff: --test: '{}' is not a regular expression: {}", test, e.what()));
  }
}

BuildDiff diff_sides(const Side& base, const Side& head, const std::string& checks, const DiffOptions& o,
                     const std::optional<std::regex>& filter) {
  auto selected = [&](const std::string& name) { return !filter || std::regex_search(name, *filter); };
  BuildDiff run;
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
  }
  return run;
}

}  // namespace

std::string Span::addresses() const {
  if (size() == 0) return "empty";
  return fmt::format("{:#06x}-{:#06x}", function->instructions[first].address,
                     function->instructions[last - 1].address);
}

std::map<std::string, std::size_t> BuildDiff::counts() const {
  std::map<std::string, std::size_t> out;
  for (const char* s : kDiffStates) out[s] = 0;
  for (const auto& t : diffs) ++out[t.state];
  return out;
}

int BuildDiff::exit_code() const {
  for (const auto& info : all_states()) {
    for (const auto& t : diffs) {
      if (t.judged == info.state && info.exit_code != kExitOk) return info.exit_code;
    }
  }
  return kExitOk;
}

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

BuildDiff diff_builds(const DiffOptions& o) {
  std::optional<std::regex> filter = test_filter(o.test);
  Side base = read_side(o.base, "base"), head = read_side(o.head, "head");
  BuildFacts facts = recorded_build_facts(head.results, o.checks);
  BuildDiff run = diff_sides(base, head, facts.checks, o, filter);
  run.base_results = base.results;
  run.head_results = head.results;
  run.facts = std::move(facts);
  return run;
}

}  // namespace tileperf
