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
#include "support/process.h"
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

bool update_requested() {
  const char* v = std::getenv("TILEPERF_UPDATE_BASELINES");
  return v && *v && std::string(v) != "0";
}

// What the dump step recorded (this architecture's record; its bytecode
// replaces o.bytecode where it has its own).
nlohmann::json read_dump_info(CheckOptions& o) { return read_dump_record(o.bytecode, o.dump_info, o.id.arch); }

// The dump record's signature: what the configuration exported (its type
// checked by parse_dump_record, which read the record).
std::map<std::string, std::string> signature_of(const nlohmann::json& dump, const std::string& file) {
  if (!dump.contains("signature")) {
    throw InputError(file, 0, "the dump record has no signature: re-run the dump step");
  }
  return dump.at("signature").get<std::map<std::string, std::string>>();
}

// The dump record's library: the installed distribution the kernel's code
// belongs to, and its version (none for a project's own kernel).
std::map<std::string, std::string> library_of(const nlohmann::json& dump) {
  return dump.value("library", std::map<std::string, std::string>{});
}

// What the tools make of the bytecode: from the result cache when it holds
// this compilation, else from the tools (and then stored).
ToolOutputs tool_outputs(const CheckOptions& o, const Metrics& m, const CompileSetup& setup, const nlohmann::json& dump,
                         TestResult& result) {
  ResultCache cache(o.cache_dir);
  CacheKey key;
  if (cache.enabled())
    key = compile_key(o.bytecode, dump, o.id.arch,
                      CompileSetup{.toolchain = m.toolchain, .flags = m.flags, .process = setup.process});
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
  m.library = library_of(dump);
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
  result.seconds["extract"] = seconds_since(t);
  for (const char* k : kKeyMetrics) result.key_metrics[k] = m.get(k);
  return m;
}

}  // namespace

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
  save_memo(prefixed_file(prefix, FileKind::kMemo), Memo{.fingerprint = fingerprint,
                                                         .exit_code = code,
                                                         .output = printed,
                                                         .result = std::move(result),
                                                         .metrics_sha256 = sha256_hex(read_file(metrics))});
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
