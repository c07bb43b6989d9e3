// tileperf check: one kernel configuration on one architecture (kernel_check.h).
#include "check/kernel_check.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "analysis/source_lines.h"
#include "gate/baseline.h"
#include "gate/check_memo.h"
#include "gate/compare.h"
#include "gate/judgement.h"
#include "gate/policy.h"
#include "metrics/compilation.h"
#include "metrics/dump_record.h"
#include "metrics/measure.h"
#include "metrics/metrics.h"
#include "metrics/model_version.h"
#include "metrics/tool_outputs.h"
#include "report/comparison_text.h"
#include "report/investigation_text.h"
#include "report/launch_picture.h"
#include "report/timeline_record.h"
#include "results/edits.h"
#include "results/result.h"
#include "results/run_record.h"
#include "support/error.h"
#include "support/json_input.h"
#include "support/lock.h"
#include "support/sha256.h"
#include "support/text.h"
#include "support/work_paths.h"
#include "toolchain/cache.h"
#include "toolchain/cache_paths.h"
#include "toolchain/toolchain.h"
#include "toolchain/toolchain_record.h"

namespace tileperf {

namespace fs = std::filesystem;

std::string CheckOptions::prefix() const { return test_prefix(work_dir, id.config, id.arch); }

std::string CheckOptions::shown_path(const std::string& path) const {
  if (project_dir.empty()) return path;
  std::error_code ec;
  auto rel = fs::relative(path, project_dir, ec);
  return ec || rel.empty() ? path : rel.string();
}

namespace {

// The entry of `test` in its kernel's record, and the record's policy folder.
struct KernelEntry {
  std::string bytecode, baseline, checks;
};

KernelEntry kernel_entry(const std::string& record_file, const std::string& test) {
  nlohmann::json record = parse_json(read_file(record_file), record_file);
  KernelEntry out;
  out.checks = json_optional_string(record, "checks", record_file);
  const nlohmann::json* tests = record.is_object() && record.contains("tests") ? &record.at("tests") : nullptr;
  if (!tests || !tests->is_array()) throw InputError(record_file, 0, "key 'tests' must be a list");
  for (const auto& entry : *tests) {
    if (!entry.is_object() || entry.value("test", "") != test) continue;
    out.bytecode = json_string(entry, "bytecode", record_file);
    out.baseline = json_string(entry, "baseline", record_file);
    return out;
  }
  throw InputError(record_file, 0, "lists no test " + test + ": configure the build again");
}

}  // namespace

void apply_run_record(CheckOptions& o, const std::string& test, const std::set<std::string>& given) {
  if (o.run_file.empty()) throw UsageError("check: --test needs --run-file, the record of the test's run");
  auto record = read_run_record(o.run_file);
  if (!record) throw InputError(o.run_file, 0, "no run record: run the test run.start first (ctest runs it)");
  auto unset = [&](const char* option) { return !given.count(option); };
  std::string kernel_checks;
  if (!test.empty()) {
    auto id = parse_test_name(test);
    if (!id) throw UsageError("check: --test " + test + ": expected perf.<kernel>.<config>.<arch>");
    if (record->work_dir.empty()) throw InputError(o.run_file, 0, "the run record names no work folder");
    o.id = *id;
    validate_test_id(o.id);
    std::string kernel_dir = record->work_dir + "/" + o.id.kernel;
    KernelEntry entry = kernel_entry(kernel_file(kernel_dir, FileKind::kConfigs), test);
    if (unset("work-dir")) o.work_dir = kernel_dir;
    if (unset("bytecode")) o.bytecode = entry.bytecode;
    if (unset("baseline")) o.baseline = entry.baseline;
    kernel_checks = entry.checks;
  }
  // The policies: given, else the kernel's, else the run's.
  if (unset("checks") && !kernel_checks.empty()) o.checks = kernel_checks;
  if (unset("checks") && kernel_checks.empty() && !record->checks.empty()) o.checks = record->checks;
  if (unset("toolchain") && unset("tileiras") && unset("cuobjdump")) o.toolchain_file = record->toolchain;
  if (unset("cache-dir") && !record->cache_dir.empty()) o.cache_dir = record->cache_dir;
  if (unset("timeout") && record->timeout > 0) o.tc.timeout_seconds = record->timeout;
  if (unset("project-dir")) o.project_dir = record->project_dir;
  if (unset("update-command") && !record->update_command.empty()) {
    o.update_command = fmt::format("TILEPERF_FILTER='^perf\\.{}\\.{}\\.{}$' {}", o.id.kernel, o.id.config, o.id.arch,
                                   record->update_command);
  }
  o.strict = o.strict || record->strict;
  o.require_run = o.require_run || record->require_run;
  o.measurements = o.measurements || record->measurements;
}

namespace {

using Clock = std::chrono::steady_clock;

// How long a check waits for another run's check of the same test: this
// many tool timeouts.
constexpr double kLockWaitTimeouts = 5;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

bool update_requested() {
  const char* v = std::getenv("TILEPERF_UPDATE_BASELINES");
  return v && *v && std::string(v) != "0";
}

// What the dump step recorded (this architecture's record; its bytecode
// replaces o.bytecode where it has its own).
nlohmann::json read_dump_info(CheckOptions& o) { return read_dump_record(o.bytecode, o.dump_info, o.id.arch); }

// The dump record's signature: what the configuration exported.
std::map<std::string, std::string> signature_of(const nlohmann::json& dump, const std::string& file) {
  if (!dump.contains("signature")) {
    throw InputError(file, 0, "the dump record has no signature: re-run the dump step");
  }
  try {
    return dump.at("signature").get<std::map<std::string, std::string>>();
  } catch (const nlohmann::json::exception&) {
    throw InputError(file, 0, "signature: expected an object of strings");
  }
}

// The dump record's library: the installed distribution the kernel's code
// belongs to, and its version (none for a project's own kernel, and in a
// record of an older dump step).
std::map<std::string, std::string> library_of(const nlohmann::json& dump, const std::string& file) {
  if (!dump.contains("library")) return {};
  try {
    return dump.at("library").get<std::map<std::string, std::string>>();
  } catch (const nlohmann::json::exception&) {
    throw InputError(file, 0, "library: expected an object of strings");
  }
}

// What the tools make of the bytecode: from the result cache when it holds
// this compilation, else from the tools (and then stored).
ToolOutputs tool_outputs(const CheckOptions& o, const Metrics& m, const CompileSetup& setup, const nlohmann::json& dump,
                         TestResult& result) {
  ResultCache cache(o.cache_dir);
  CacheKey key;
  if (cache.enabled())
    key = compile_key(o.bytecode, dump, o.id.arch, CompileSetup{m.toolchain, m.flags, setup.process});
  Compiled compiled = compiled_outputs(o.tc, cache, key, o.bytecode, o.id.arch, o.prefix());
  result.cache = compiled.cache;
  if (compiled.cache == "hit") {
    if (setup.process != "fixed") {
      result.notes.push_back(
          "the cached compilation was made with tileiras's address-space randomisation on, "
          "as this platform runs it: " +
          compile_process_text(setup.process));
    }
    return std::move(compiled.outputs);
  }
  result.seconds["compile"] = compiled.seconds;
  if (compiled.process.rfind("randomized", 0) == 0) {
    result.notes.push_back(
        fmt::format("tileiras ran with {}: a configuration whose compilation varies can give "
                    "another of its variants here",
                    compile_process_text(compiled.process)));
  }
  return std::move(compiled.outputs);
}

Metrics measure(const CheckOptions& o, const ToolchainRecord& tools, const nlohmann::json& dump, TestResult& result,
                CheckSeen& seen) {
  const auto& archs = tools.architectures;
  if (std::find(archs.begin(), archs.end(), o.id.arch) == archs.end()) {
    throw SkipError(
        fmt::format("{} is not supported by {} (it knows: {})", o.id.arch, o.tc.tileiras, fmt::join(archs, " ")));
  }
  Metrics m;
  m.id = o.id;
  CompileSetup setup = compile_setup(tools, dump, o.id.arch, o.tc);
  m.toolchain = setup.toolchain;
  m.flags = setup.flags;
  m.signature = signature_of(dump, o.dump_info);
  m.generator = std::string("tileperf ") + TILEPERF_VERSION;
  m.library = library_of(dump, o.dump_info);
  m.model = kModelVersion;
  result.library = m.library;

  fs::create_directories(o.work_dir);
  std::string cubin = prefixed_file(o.prefix(), FileKind::kCubin);
  result.seconds["dump"] = dump.value("seconds", 0.0);
  auto t = Clock::now();
  ToolOutputs outputs = tool_outputs(o, m, setup, dump, result);
  // The cubin's line tables name the fixed folders tileiras was shown
  // (compile_bytecode): the lines counted and shown are this clone's.
  BytecodePaths compiled = bytecode_paths(read_file(o.bytecode));
  outputs.source_roots = compiled.roots;
  auto problem = problem_from_record(dump, o.dump_info);
  Measurement measured = measure(outputs, cubin, problem ? &*problem : nullptr, true);
  result.launch = describe_launch(measured.launch);
  write_timeline_record(o.prefix(), measured);
  m.values = std::move(measured.values);
  result.notes.insert(result.notes.begin(), measured.notes.begin(), measured.notes.end());
  seen.loops = std::move(measured.loops);
  seen.line_time = measured.line_time;
  m.lines = std::move(measured.lines.counts);
  seen.line_paths = std::move(measured.lines.paths);
  m.bytecode = compiled.identity;
  m.cubin = sha256_hex(read_file(cubin));
  m.line_text = line_texts(m.lines, seen.line_paths);
  write_file_atomic(prefixed_file(o.prefix(), FileKind::kMetrics), to_json_text(m), Durability::kRenamed);
  result.seconds["extract"] = since(t);
  for (const char* k : kKeyMetrics) result.key_metrics[k] = m.get(k);
  return m;
}

bool same_toolchain(const Metrics& a, const Metrics& b) { return a.toolchain == b.toolchain && a.flags == b.flags; }

std::string toolchain_text(const Metrics& m) {
  std::string out;
  for (const auto& [tool, version] : m.toolchain) {
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", tool, version);
  }
  return out;
}

}  // namespace

namespace {

bool record_variant_requested() {
  const char* v = std::getenv("TILEPERF_RECORD_VARIANT");
  return v && *v && std::string(v) != "0";
}

// Update mode for a baseline that records what was compiled (a
// configuration whose compilation varies), or when a new variant is to be
// recorded: nullopt when the usual update applies (other bytecode: the code
// changed, and the old variants with it). A known variant whose metrics
// moved (tileperf measures otherwise) is rewritten in place; a new cubin of
// the same bytecode is recorded only when asked (TILEPERF_RECORD_VARIANT=1),
// else the state is compiler varies and nothing is written.
std::optional<int> update_variants(const CheckOptions& o, const Policy& policy, Metrics& old, const Metrics& current,
                                   TestResult& result) {
  bool asked = record_variant_requested();
  if (old.bytecode.empty() && !asked) return std::nullopt;
  if (!old.bytecode.empty() && old.bytecode != current.bytecode) return std::nullopt;
  if (old.toolchain != current.toolchain || old.flags != current.flags || old.signature != current.signature) {
    return std::nullopt;
  }
  old.bytecode = current.bytecode;
  if (old.cubin.empty() && old.values == current.values) old.cubin = current.cubin;  // it is the baseline's own
  std::vector<Metrics> known = known_variants(old);
  for (std::size_t k = 0; k < known.size(); ++k) {
    if (known[k].cubin != current.cubin) continue;
    // The variant met is measured again, under this model; the others keep
    // their estimates as measured, each with the model that measured it.
    std::string was = known[k].model;
    for (auto& v : old.variants) {
      if (!v.model) v.model = old.model;
    }
    if (k == 0) {
      old.values = current.values, old.lines = current.lines, old.line_text = current.line_text;
      old.model = current.model;
    } else {
      old.variants[k - 1].values = current.values;
      old.variants[k - 1].model = current.model;
    }
    // Every variant, the one met aside, whose estimate another model measured.
    std::vector<std::string> other_models;
    for (std::size_t j = 0; j < known.size(); ++j) {
      const std::string& model = j == 0 ? old.model : *old.variants[j - 1].model;
      if (j != k && model != current.model) {
        other_models.push_back(fmt::format("{} (model {})", j + 1, model.empty() ? "none" : model));
      }
    }
    for (auto& v : old.variants) {
      if (*v.model == old.model) v.model.reset();
    }
    old.library = current.library;
    old.generator = current.generator;
    if (baseline_is(o.baseline, old, policy)) {
      result.state = State::kUnchanged;
    } else {
      result.state = State::kUpdated;
      result.message = fmt::format("variant {} of {} of this varying compilation written", k + 1, known.size());
      if (was != current.model) {
        result.message += fmt::format("; model: {} -> {}", was.empty() ? "none" : was, current.model);
      }
      if (!other_models.empty()) {
        bool one = other_models.size() == 1;
        result.message +=
            fmt::format("; {} {} {} until met again", one ? "variant" : "variants", fmt::join(other_models, ", "),
                        one ? "keeps the estimate it was measured with" : "keep the estimates they were measured with");
      }
      write_baseline(o.baseline, old, policy);
    }
    return kExitOk;
  }
  if (!asked) {
    result.state = State::kCompilerVaries;
    result.message = fmt::format(
        "the compiler varies: the bytecode of the baseline's {} recorded variants gave another cubin "
        "(SHA-256 {}); nothing written; to record it as one more variant: TILEPERF_RECORD_VARIANT=1 {}",
        known.size(), current.cubin.substr(0, 16), o.update_command);
    return state_info(result.state).exit_code;
  }
  std::optional<std::string> model;
  if (current.model != old.model) model = current.model;
  old.variants.push_back({current.cubin, current.values, model});
  result.state = State::kUpdated;
  result.message = fmt::format("recorded a new variant of this compilation: {} of {} (cubin SHA-256 {})",
                               known.size() + 1, known.size() + 1, current.cubin.substr(0, 16));
  write_baseline(o.baseline, old, policy);
  return kExitOk;
}

}  // namespace

// Update mode: rewrite the baseline unless nothing at all changed (then the
// file stays byte-identical). The verdicts of what moved are kept for the
// review of the update (a toolchain bump, say): regressed, improved, ok.
int update_baseline(const CheckOptions& o, const Policy& policy, Metrics current, TestResult& result,
                    std::string& report) {
  current.generator = fmt::format("tileperf {} update_baselines", TILEPERF_VERSION);
  if (fs::exists(o.baseline)) {
    Metrics old = read_baseline(o.baseline);
    if (auto code = update_variants(o, policy, old, current, result)) return *code;
    Comparison c = compare_metrics(old, current, policy);
    // Unchanged only when every metric is: a metric that appears or goes
    // away with the value 0 is a change too.
    if (old.values == current.values && old.lines == current.lines && same_toolchain(old, current) &&
        old.signature == current.signature && old.generator == current.generator &&
        baseline_is(o.baseline, current, policy)) {
      result.state = State::kUnchanged;
      return kExitOk;
    }
    result.set_diff(c);
    result.state = State::kUpdated;
    result.message = fmt::format("{} metric(s) moved", c.changed());
    if (auto moves = line_moves(old.lines, current.lines, old.line_text, current.line_text); !moves.empty()) {
      result.message += fmt::format("; {} source line(s) changed their instruction count", moves.size());
    }
    if (!same_toolchain(old, current)) {
      result.message += fmt::format("; toolchain was: {}; now: {}", toolchain_text(old), toolchain_text(current));
    }
    if (auto changes = signature_changes(old, current); !changes.empty()) {
      result.message += fmt::format("; signature changed: {}", fmt::join(changes, "; "));
    }
    if (auto changes = library_changes(old, current); !changes.empty()) {
      result.message += fmt::format("; library: {}", fmt::join(changes, ", "));
    }
    if (old.model != current.model) {
      result.message += fmt::format("; model: {} -> {}", old.model.empty() ? "none" : old.model, current.model);
    }
    if (!old.variants.empty()) {
      result.message +=
          fmt::format("; the {} variants recorded for the old bytecode are dropped", old.variants.size() + 1);
    }
    report = format_diff_table(c.diffs, o.verbose);
  } else {
    result.state = State::kCreated;
  }
  write_baseline(o.baseline, current, policy);
  return kExitOk;
}

namespace {

// Another toolchain than the baseline's: the test fails (a bump is a
// reviewed step), and the metrics are compared under the usual policies all
// the same, as the preview of what accepting the new toolchain moves; the
// verdicts stay in the result for `tileperf summary` and `tileperf preview`.
void report_toolchain_change(const CheckOptions& o, const Metrics& baseline, const Metrics& current, const Judgement& j,
                             const CheckSeen& seen, TestResult& result, std::string& report) {
  const Comparison& c = j.comparison;
  result.toolchain_change = j.toolchain;
  report = format_broken(c.broken) + format_diff_table(c.diffs, o.verbose);
  if (c.changed_gated() != 0) {
    result.set_lines(line_moves(baseline.lines, current.lines, baseline.line_text, current.line_text), seen.line_paths);
    add_line_time(result.lines, seen.line_time);
    report += format_line_moves(result.lines, seen.line_time.term);
  }
}

}  // namespace

int compare_with_baseline(const CheckOptions& o, const Policy& policy, const Metrics& current, const CheckSeen& seen,
                          TestResult& result, std::string& report) {
  if (!fs::exists(o.baseline)) {
    result.state = State::kNew;
    result.message = fmt::format("no baseline at {}; create it with: {}", o.baseline, o.update_command);
    return state_info(result.state).exit_code;
  }
  auto t = Clock::now();
  Metrics baseline = read_baseline(o.baseline);
  Judgement j = judge(baseline, current, policy, {o.exact, o.strict});
  const Comparison& c = j.comparison;
  result.state = j.state;
  result.compared = j.compared;
  result.message = judgement_message(j, o.update_command);
  result.notes.insert(result.notes.end(), j.notes.begin(), j.notes.end());
  result.set_diff(c);
  result.library_change = j.library;
  result.model_change = j.model;
  result.unmoved = j.unmoved;
  if (j.state == State::kToolchainChanged) {
    report_toolchain_change(o, baseline, current, j, seen, result, report);
    return j.exit_code();
  }
  result.seconds["compare"] = since(t);
  if (j.tuning()) result.tuning = j.signature;
  for (const auto& line : split(format_broken(j.undecided), '\n')) {
    if (!trim(line).empty()) result.notes.push_back("not deciding a tuning change: " + trim(line));
  }
  report = format_broken(c.broken) + format_diff_table(c.diffs, o.verbose);
  bool loop_moved = std::any_of(c.diffs.begin(), c.diffs.end(), [](const MetricDiff& d) {
    return d.delta() != 0 && d.direction != Direction::kInfo &&
           (d.name.rfind("loop.", 0) == 0 || d.name.rfind("cost.", 0) == 0);
  });
  if (loop_moved) report += format_main_loop(seen.loops);
  if (c.changed_gated() != 0) {
    result.set_lines(line_moves(baseline.lines, current.lines, baseline.line_text, current.line_text), seen.line_paths);
    add_line_time(result.lines, seen.line_time);
    report += format_line_moves(result.lines, seen.line_time.term);
  }
  if (c.state == State::kRegressed || j.state == State::kSignatureChanged || j.state == State::kCompilerVaries) {
    report += fmt::format("  listing: {}\n", o.shown_path(prefixed_file(o.prefix(), FileKind::kSass)));
  }
  if (c.state == State::kRegressed) {
    report += fmt::format("  what to try, without a GPU: {}\n", investigate_command(o.id.name()));
  }
  return j.exit_code();
}

namespace {

std::string timing_text(const TestResult& r) {
  std::string out = r.cache == "hit" ? "cached" : "";
  for (const auto& step : {"dump", "compile", "extract", "compare"}) {
    auto it = r.seconds.find(step);
    if (it != r.seconds.end()) out += fmt::format("{}{} {:.2f}s", out.empty() ? "" : ", ", step, it->second);
  }
  return out;
}

}  // namespace

// Writes the result and prints its lines; returns what it printed.
std::string finish_check(const CheckOptions& o, TestResult& result, const std::string& report, bool print_message) {
  write_file_atomic(prefixed_file(o.prefix(), FileKind::kResult), to_json(result).dump(2) + "\n", Durability::kRenamed);
  std::string timing = timing_text(result);
  std::string out = fmt::format("{}: {}{}{}\n", result.id.name(), state_name(result.state),
                                format_key_metrics(result.key_metrics), timing.empty() ? "" : " (" + timing + ")");
  if (!result.launch.empty()) out += fmt::format("  launch: {}\n", result.launch);
  if (print_message && !result.message.empty()) out += fmt::format("  {}\n", result.message);
  out += report;
  for (const auto& note : result.notes) out += fmt::format("  note: {}\n", note);
  fmt::print("{}", out);
  return out;
}

namespace {

// The exit code of a self-test: 0 when the edit did what its patch says.
int judged(const EditExpectation& edit, const TestResult& result, std::string* printed = nullptr) {
  EditVerdict v = judge_edit(edit, &result);
  std::string line = fmt::format("{} check: {}\n", kind_name(edit.kind), v.text);
  fmt::print("{}", line);
  if (printed) *printed += line;
  return v.as_expected ? kExitOk : kExitRegression;
}

// The toolchain: the probed record when there is one (checked unchanged on
// disk), else the tools asked now.
ToolchainRecord toolchain_of(CheckOptions& o) {
  if (o.toolchain_file.empty()) return probe_toolchain(o.tc);
  ToolchainRecord r = read_toolchain_record(o.toolchain_file);
  require_unchanged(r, o.toolchain_file);
  o.tc = r.toolchain(o.tc.timeout_seconds, o.toolchain_file);
  return r;
}

int check(CheckOptions& o, TestResult& result, std::string& report) {
  nlohmann::json dump = read_dump_info(o);
  ToolchainRecord tools = toolchain_of(o);
  CheckSeen seen;
  Metrics current = measure(o, tools, dump, result, seen);
  Policy policy = load_policy(o.checks, o.id.kernel, o.id.config);
  int code = o.update ? update_baseline(o, policy, current, result, report)
                      : compare_with_baseline(o, policy, current, seen, result, report);
  if (o.measurements) report += format_measurements(current, policy);
  return code;
}

// What decides a check's result, for its memo (see check_memo.h). The tools
// are checked unchanged on disk first: a tool changed since the probe fails
// the check whatever the memo says.
// nullopt when that cannot be told: the check then runs and says why.
std::optional<std::string> check_fingerprint(const CheckOptions& o, const std::vector<std::string>& args) {
  try {
    if (!o.toolchain_file.empty()) require_unchanged(read_toolchain_record(o.toolchain_file), o.toolchain_file);
  } catch (const Error&) {
    return std::nullopt;
  }
  MemoInputs in;
  // The arguments, and what they resolved to (a check given --test takes
  // most of its options from the run's records).
  in.args = args;
  in.args.insert(in.args.end(),
                 {"test: " + o.id.name(), "bytecode: " + o.bytecode, "work: " + o.work_dir, "baseline: " + o.baseline,
                  "checks: " + o.checks, "toolchain: " + o.toolchain_file, "project: " + o.project_dir,
                  "update: " + o.update_command, fmt::format("timeout: {}", o.tc.timeout_seconds),
                  fmt::format("flags: {} {} {} {}", o.exact, o.strict, o.require_run, o.measurements)});
  in.args.push_back("cache: " + o.cache_dir);  // what it prints says whether it was a hit
  if (o.toolchain_file.empty()) in.tools = {o.tc.tileiras, o.tc.tileirdisasm(), o.tc.cuobjdump, o.tc.nvdisasm()};
  in.files = {o.bytecode, o.dump_info, o.baseline, o.toolchain_file, o.edit_manifest};
  in.folders = {o.checks};
  std::error_code ec;
  if (fs::is_regular_file(o.dump_info, ec)) {
    try {
      nlohmann::json record = parse_json(read_file(o.dump_info), o.dump_info);
      in.files.push_back(record.value("source", ""));
      // A configuration exported per architecture compiles a bytecode of its own.
      nlohmann::json mine = record_for_arch(record, o.id.arch, o.dump_info);
      if (mine.is_object() && mine.contains("bytecode") && mine.at("bytecode").is_string()) {
        in.files.push_back((fs::path(o.dump_info).parent_path() / mine.at("bytecode").get<std::string>()).string());
      }
    } catch (const std::exception&) {
      // A damaged record fails the check itself, which then runs.
    }
  }
  return memo_fingerprint(in);
}

// The exit code of the last run of this check, reprinted and its result
// stamped with this run, when nothing it depends on changed since.
std::optional<int> reuse_check(const std::string& prefix, const std::string& fingerprint, const std::string& run_file) {
  auto memo =
      reusable_memo(prefixed_file(prefix, FileKind::kMemo), fingerprint, prefixed_file(prefix, FileKind::kMetrics));
  if (!memo) return std::nullopt;
  nlohmann::json result = memo->result;
  result.erase("run");
  if (auto run = run_file.empty() ? std::nullopt : read_run_id(run_file)) result["run"] = *run;
  write_file_atomic(prefixed_file(prefix, FileKind::kResult), result.dump(2) + "\n", Durability::kRenamed);
  fmt::print("{}", memo->output);
  return memo->exit_code;
}

void remember_check(const std::string& prefix, const std::string& fingerprint, int code, const std::string& printed,
                    nlohmann::json result) {
  std::error_code ec;
  std::string metrics = prefixed_file(prefix, FileKind::kMetrics);
  if (!fs::is_regular_file(metrics, ec)) return;
  result.erase("run");
  save_memo(prefixed_file(prefix, FileKind::kMemo),
            Memo{fingerprint, code, printed, std::move(result), sha256_hex(read_file(metrics))});
}

}  // namespace

int check_kernel(CheckOptions o, const std::vector<std::string>& args) {
  validate_test_id(o.id);
  check_timeout(o.tc);  // before anything runs, not at the first tool call
  if (o.toolchain_file.empty() && (o.tc.tileiras.empty() || o.tc.cuobjdump.empty())) {
    throw UsageError("check: give --toolchain, or --tileiras and --cuobjdump");
  }
  if (o.dump_info.empty()) o.dump_info = o.bytecode + ".json";
  o.cache_dir = cache_dir_from_environment(o.cache_dir == "off" ? "" : o.cache_dir);
  o.update = o.update || update_requested();
  std::optional<EditExpectation> edit;
  if (!o.edit.empty()) {
    if (o.edit_manifest.empty()) throw UsageError("check: --edit needs --edit-manifest");
    edit = find_edit(edits_from_json(parse_json(read_file(o.edit_manifest), o.edit_manifest), o.edit_manifest), o.edit,
                     o.edit_manifest);
    if (edit->kind == EditKind::kNoop) o.exact = true;
    o.update = false;  // a self-test never rewrites a real baseline
  }

  // Another run of this test in this build folder (a second ctest) goes
  // first; this one then reuses what it measured.
  with_io_errors([&] { fs::create_directories(o.work_dir); });
  FileLock lock(prefixed_file(o.prefix(), FileKind::kLock), "tileperf check " + o.id.name(),
                kLockWaitTimeouts * o.tc.timeout_seconds);
  std::optional<std::string> fingerprint;
  if (!o.update) {
    fingerprint = check_fingerprint(o, args);
    if (auto code = fingerprint ? reuse_check(o.prefix(), *fingerprint, o.run_file) : std::nullopt) return *code;
  }
  TestResult result;
  result.id = o.id;
  if (!o.run_file.empty()) result.run = read_run_id(o.run_file).value_or("");
  std::string report;
  // The result of an earlier run must not stand in for this one's.
  std::error_code ignored;
  fs::remove(prefixed_file(o.prefix(), FileKind::kResult), ignored);
  try {
    result.exit_code = with_io_errors([&] { return check(o, result, report); });
  } catch (const Error& e) {
    bool must_run = e.state() == State::kSkipped && (o.require_run || every_test_must_run());
    result.state = must_run ? State::kNotRun : e.state();
    int code = state_info(result.state).exit_code;
    result.exit_code = code;
    result.message = e.what();
    if (must_run) result.message += " (every test must run here: CI is set or --require-run was given)";
    fs::create_directories(o.work_dir, ignored);
    try {
      finish_check(o, result, report, /*print_message=*/false);
    } catch (const Error&) {
      // The result cannot be written (a full disk, say): the error itself is reported.
    }
    if (must_run) {
      fmt::print("tileperf: not run: {}\n", result.message);
      return edit ? judged(*edit, result) : code;
    }
    if (!edit) throw;  // main() prints the error itself
    fmt::print("{}\n", format_error(e));
    return judged(*edit, result);
  }
  std::string printed = finish_check(o, result, report);
  int code = edit ? judged(*edit, result, &printed) : result.exit_code;
  if (fingerprint) remember_check(o.prefix(), *fingerprint, code, printed, to_json(result));
  return code;
}

}  // namespace tileperf
