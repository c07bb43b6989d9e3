#include "inspect/investigation.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <limits>

#include <fmt/format.h>

#include "metrics/compilation.h"
#include "metrics/compile_batch.h"
#include "metrics/dump_record.h"
#include "metrics/measure.h"
#include "support/error.h"
#include "support/forked.h"
#include "support/json_input.h"
#include "support/process.h"
#include "support/text.h"
#include "support/work_paths.h"
#include "toolchain/cache.h"
#include "toolchain/cache_paths.h"
#include "toolchain/toolchain.h"
#include "toolchain/toolchain_record.h"

namespace tileperf {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

// The value of a pytest option of the dump step ("--tileperf-archs=..."), "" without it.
std::string dump_option(const nlohmann::json& args, const std::string& name) {
  std::string prefix = "--tileperf-" + name + "=";
  for (const auto& a : args) {
    if (a.is_string() && a.get<std::string>().rfind(prefix, 0) == 0) return a.get<std::string>().substr(prefix.size());
  }
  return "";
}

// The export of the variants: tileperf_dump.investigate, run by the Python
// the kernel's dump step runs, into `out`.
void export_variants(const InvestigationInputs& in, const nlohmann::json& record, const std::string& out,
                     std::string& source) {
  const std::string& file = in.kernel_record;
  source = json_string(record, "source", file);
  if (!record.contains("python") || !record["python"].is_object()) {
    throw InputError(file, 0, "no Python recorded for the kernel's dump step: configure the project again");
  }
  std::string python = json_string(record["python"], "executable", file);
  std::string path = json_optional_string(record["python"], "path", file);
  nlohmann::json args = nlohmann::json::array();
  if (record.contains("dump_batch") && record["dump_batch"].is_array() && !record["dump_batch"].empty()) {
    args = record["dump_batch"][0].value("pytest_args", nlohmann::json::array());
  }
  std::vector<std::string> argv = {python,
                                   "-m",
                                   "tileperf_dump.investigate",
                                   "--source",
                                   source,
                                   "--config",
                                   in.config,
                                   "--arch",
                                   in.arch,
                                   "--out",
                                   out,
                                   "--bytecode-version",
                                   dump_option(args, "bytecode-version")};
  if (argv.back().empty()) argv.back() = "13.4";
  for (const auto& p : split(dump_option(args, "placeholders"), ',')) {
    if (!p.empty()) argv.insert(argv.end(), {"--placeholder", p});
  }
  for (const auto& p : split(dump_option(args, "bare-packages"), ',')) {
    if (!p.empty()) argv.insert(argv.end(), {"--bare-package", p});
  }
  if (!in.kinds.empty()) argv.insert(argv.end(), {"--kinds", in.kinds});
  ProcessOptions options;
  options.timeout_seconds = 1800;
  options.unset_env = {"CUDA_HOME"};
  if (!path.empty()) options.set_env["PYTHONPATH"] = path;
  ProcessResult r = run_process(argv, options);
  if (!r.ok()) {
    auto lines = split(trim(r.err), '\n');
    std::string last = lines.empty() ? r.describe() : trim(lines.back());
    throw InputError(source, 0,
                     fmt::format("CONFIGS['{}'] could not be investigated for {} ({}): {}", in.config, in.arch,
                                 r.describe(), cut_text(last, 600)));
  }
}

VariantOutcome outcome_of(const nlohmann::json& row, const std::string& file) {
  VariantOutcome v;
  v.id = json_string(row, "id", file);
  v.kind = json_string(row, "kind", file);
  v.what = json_optional_string(row, "what", file);
  v.where = json_optional_string(row, "where", file);
  if (row.contains("changes") && row["changes"].is_object()) v.changes = row["changes"];
  v.error = json_optional_string(row, "error", file);
  if (row.value("same", false)) v.error = "the configuration's own bytecode: nothing changes";
  if (v.error.empty()) v.bytecode = json_string(row, "bytecode", file);
  return v;
}

// The metrics and launch estimate of one exported variant, as JSON text
// (run in a forked worker): compiled or found in the cache, then measured.
std::string measure_variant(const InvestigationInputs& in, const ToolchainRecord& tools, const Toolchain& tc,
                            const ResultCache& cache, const std::string& bytecode_file, const std::string& prefix) {
  std::string bytecode = bytecode_file;
  std::string dump_info = bytecode + ".json";
  nlohmann::json dump = read_dump_record(bytecode, dump_info, in.arch);
  CompileSetup setup = compile_setup(tools, dump, in.arch, tc);
  CacheKey key = cache.enabled() ? compile_key(bytecode, dump, in.arch, setup) : CacheKey{};
  Compiled compiled = compiled_outputs(tc, cache, key, bytecode, in.arch, prefix);
  compiled.outputs.source_roots = bytecode_paths(read_file(bytecode)).roots;
  auto problem = problem_from_record(dump, dump_info);
  Measurement m = measure(compiled.outputs, prefixed_file(prefix, FileKind::kCubin), problem ? &*problem : nullptr);
  nlohmann::json out = {{"values", m.values},
                        {"limit", m.launch.limit},
                        {"occupancy_limit", m.launch.occupancy_limit},
                        {"cache", compiled.cache}};
  return out.dump();
}

void rank(Investigation& inv) {
  auto key = [&](const VariantOutcome& v) {
    return v.estimated() ? estimate_change(inv, v) : std::numeric_limits<double>::infinity();
  };
  std::stable_sort(inv.variants.begin(), inv.variants.end(),
                   [&](const VariantOutcome& a, const VariantOutcome& b) { return key(a) < key(b); });
}

}  // namespace

double estimate_change(const Investigation& inv, const VariantOutcome& v) {
  double base = static_cast<double>(inv.base.value("cost.time_ns"));
  if (!v.estimated() || !inv.base.estimated() || base <= 0) return 0;
  return static_cast<double>(v.value("cost.time_ns")) / base - 1;
}

Investigation investigate(const InvestigationInputs& in) {
  auto start = Clock::now();
  Investigation inv;
  inv.inputs = in;
  nlohmann::json record = parse_json(read_file(in.kernel_record), in.kernel_record);
  std::string out =
      kernel_file((fs::path(in.work_dir) / in.kernel).string(), FileKind::kVariantsDir, in.config, in.arch);
  fs::create_directories(out);
  auto t = Clock::now();
  export_variants(in, record, out, inv.source);
  inv.export_seconds = seconds_since(t);

  std::string list_file = (fs::path(out) / "variants.json").string();
  nlohmann::json list = parse_json(read_file(list_file), list_file);
  inv.base.id = "base";
  inv.base.kind = "base";
  inv.base.what = "the configuration as it is";
  inv.base.bytecode = json_string(list.at("base"), "bytecode", list_file);
  for (const auto& row : list.value("variants", nlohmann::json::array()))
    inv.variants.push_back(outcome_of(row, list_file));
  inv.sites = list.value("sites", nlohmann::json::array());
  inv.tuning = {{"arguments", list.value("tuning_arguments", nlohmann::json::object())},
                {"hints", list.value("hints", nlohmann::json::object())}};
  if (list.contains("tuning_note")) inv.notes.push_back(json_string(list, "tuning_note", list_file));

  ToolchainRecord tools = read_toolchain_record(in.toolchain_file);
  require_unchanged(tools, in.toolchain_file);
  Toolchain tc = tools.toolchain(in.timeout, in.toolchain_file);
  check_timeout(tc);
  ResultCache cache(cache_dir_from_environment(in.cache_dir == "off" ? "" : in.cache_dir));

  std::vector<VariantOutcome*> todo = {&inv.base};
  for (auto& v : inv.variants) {
    if (v.error.empty()) todo.push_back(&v);
  }
  t = Clock::now();
  if (cache.enabled()) {
    std::vector<BatchEntry> entries;
    for (auto* v : todo)
      entries.push_back(BatchEntry{
          .test = in.test + " " + v->id, .arch = in.arch, .bytecode = v->bytecode, .dump_info = v->bytecode + ".json"});
    BatchOutcome batch = with_io_errors([&] { return run_compile_batch(entries, tools, tc, cache, in.jobs); });
    inv.compiled = batch.compiled;
    inv.cached = batch.cached;
  }
  inv.compile_seconds = seconds_since(t);
  t = Clock::now();
  auto texts = texts_forked(todo.size(), in.jobs, [&](std::size_t i) {
    std::string prefix = (fs::path(out) / (todo[i]->id + "." + in.arch)).string();
    return measure_variant(in, tools, tc, cache, todo[i]->bytecode, prefix);
  });
  inv.measure_seconds = seconds_since(t);
  for (std::size_t i = 0; i < todo.size(); ++i) {
    VariantOutcome& v = *todo[i];
    if (!texts[i].text) {
      v.error = texts[i].error.empty() ? "the measurement gave nothing" : texts[i].error;
      continue;
    }
    nlohmann::json j = nlohmann::json::parse(*texts[i].text);
    v.values = j["values"].get<std::map<std::string, std::int64_t>>();
    v.limit = j.value("limit", "");
    v.occupancy_limit = j.value("occupancy_limit", "");
    v.cache = j.value("cache", "");
  }
  if (!inv.base.estimated()) {
    throw InputError(inv.source, 0,
                     fmt::format("CONFIGS['{}'] for {}: no estimate of the configuration itself: {}", in.config,
                                 in.arch, inv.base.error.empty() ? "its launch has no cost.time_ns" : inv.base.error));
  }
  rank(inv);
  inv.seconds = seconds_since(start);
  return inv;
}

}  // namespace tileperf
