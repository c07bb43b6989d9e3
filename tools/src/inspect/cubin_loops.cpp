// What `tileperf loops` finds in a cubin or SASS listing (cubin_loops.h).
#include "inspect/cubin_loops.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/cost_model.h"
#include "analysis/loops.h"
#include "metrics/dump_record.h"
#include "metrics/measure.h"
#include "metrics/remark_metrics.h"
#include "metrics/tool_outputs.h"
#include "readers/elf.h"
#include "readers/line_table.h"
#include "readers/remarks.h"
#include "support/error.h"
#include "support/text.h"
#include "support/work_paths.h"
#include "toolchain/toolchain.h"

namespace tileperf {

namespace {

namespace fs = std::filesystem;

std::map<std::string, double> latency_overrides(const std::vector<std::string>& settings) {
  std::map<std::string, double> out;
  Latencies known;
  for (const auto& s : settings) {
    auto eq = s.find('=');
    std::optional<double> value;
    if (eq != std::string::npos) value = parse_decimal(s.substr(eq + 1), 12);
    std::string name = s.substr(0, eq);
    if (!value.has_value() || !set_latency(known, name, value.value_or(0))) {
      std::vector<std::string> names;
      for (auto& [field, at] : latency_fields(known)) names.push_back(field);
      throw UsageError(
          fmt::format("loops: --latency {}: expected NAME=CYCLES with NAME one of {}", s, fmt::join(names, ", ")));
    }
    out[name] = value.value_or(0);
  }
  return out;
}

// Beside build/tileperf/<kernel>/<config>.<arch>.cubin, a test leaves
// <config>.<arch>.sass, .remarks.yaml, .res-usage.txt and .tileir: the file
// of `kind` beside `cubin` when it is there, else "". (The dump record,
// <config>.tileirbc.json, is one per configuration: dump_record_beside.)
std::string sibling(const std::string& cubin, FileKind kind) {
  auto prefix = prefix_of(cubin, FileKind::kCubin);
  if (!prefix) return "";
  std::string candidate = prefixed_file(*prefix, kind);
  return fs::exists(candidate) ? candidate : "";
}

// What the name of `cubin` says (its kernel folder's name left out), or
// nullopt when it is no <config>.<arch>.cubin.
std::optional<FileId> cubin_id(const std::string& cubin) {
  auto id = parse_relative_path("kernel/" + fs::path(cubin).filename().string(), false);
  if (!id || id->kind != FileKind::kCubin) return std::nullopt;
  return id;
}

std::string dump_record_beside(const std::string& cubin) {
  auto id = cubin_id(cubin);
  if (!id) return "";
  std::string name =
      fs::path(relative_path({FileKind::kDumpRecord, id->kernel, id->config, "", ""})).filename().string();
  fs::path candidate = fs::path(cubin).parent_path() / name;
  return fs::exists(candidate) ? candidate.string() : "";
}

// "sm_90" of build/tileperf/<kernel>/<config>.sm_90.cubin; empty otherwise.
std::string arch_of_cubin_name(const std::string& cubin) {
  auto id = cubin_id(cubin);
  return id ? id->arch : "";
}

// Fills `out` with the tool output a cubin is measured from: the files
// given or left beside it, else cuobjdump run now. Returns whether the
// resource usage the launch estimate needs is at hand.
bool loop_outputs(LoopsOptions& o, ToolOutputs& out) {
  const std::string& cubin = o.input;
  if (o.sass.empty()) o.sass = sibling(cubin, FileKind::kSass);
  if (o.remarks.empty()) o.remarks = sibling(cubin, FileKind::kRemarks);
  std::string res_usage = o.res_usage.empty() ? sibling(cubin, FileKind::kResUsage) : o.res_usage;
  bool can_run = fs::exists(o.tc.cuobjdump);
  if (!o.sass.empty()) {
    out.sass_text = read_file(o.sass);
    out.sass_name = o.sass;
  } else {
    out.sass_text = run_cuobjdump(o.tc, {std::begin(kSassArgs), std::end(kSassArgs)}, cubin);
    out.sass_name = "cuobjdump --dump-sass " + cubin;
    out.from_tools = true;
  }
  if (!res_usage.empty()) {
    out.res_usage_text = read_file(res_usage);
    out.res_usage_name = res_usage;
  } else if (can_run) {
    out.res_usage_text = run_cuobjdump(o.tc, {std::begin(kResUsageArgs), std::end(kResUsageArgs)}, cubin);
    out.res_usage_name = "cuobjdump -res-usage " + cubin;
  } else {
    return false;
  }
  if (!o.remarks.empty()) {
    out.remarks_text = read_file(o.remarks);
    out.remarks_name = o.remarks;
  }
  // <config>.<arch>.tileir beside <config>.<arch>.cubin.
  if (std::string tileir = sibling(cubin, FileKind::kTileir); !tileir.empty()) {
    out.tileir_text = read_file(tileir);
    out.tileir_name = tileir;
  }
  return true;
}

// The tensor-core shape hint of the remarks given or found, 0 without.
std::int64_t remark_hint(const LoopsOptions& o) {
  if (o.remarks.empty()) return 0;
  return tensor_macs_hint(remark_metrics(parse_remarks(read_file(o.remarks), o.remarks)));
}

}  // namespace

CubinLoops cubin_loops(LoopsOptions o) {
  auto overrides = latency_overrides(o.latencies);
  CubinLoops r;
  std::string data = read_file(o.input);
  if (is_elf(data)) {
    if (o.dump_info.empty()) o.dump_info = dump_record_beside(o.input);
  }
  if (!o.dump_info.empty()) {
    r.problem = problem_from_record(record_for_arch(parse_dump_record(read_file(o.dump_info), o.dump_info),
                                                    arch_of_cubin_name(o.input), o.dump_info),
                                    o.dump_info);
  }
  const Problem* problem = r.problem ? &*r.problem : nullptr;
  if (!is_elf(data)) {
    if (o.gantt) throw UsageError("loops: --gantt needs a cubin (its threads per block and line table)");
    std::istringstream in(read_file(o.sass.empty() ? o.input : o.sass));
    r.listing = parse_sass(in, o.sass.empty() ? o.input : o.sass);
    r.loops = analyze_loops(r.listing, {.problem = problem, .tensor_macs_hint = remark_hint(o)});
    return r;
  }
  ToolOutputs outputs;
  if (!loop_outputs(o, outputs)) {
    // Without the resource usage there is no launch estimate: the loops alone.
    if (o.gantt) throw UsageError("loops: --gantt needs the cubin's resource usage (--res-usage, or --cuobjdump)");
    std::istringstream in(outputs.sass_text);
    r.listing = parse_sass(in, outputs.sass_name);
    ElfFile elf = parse_elf(data, o.input);
    LineTable lines = read_line_table(data, elf, o.input);
    int warps = kernel_warps(kernel_of(r.listing, data, elf, o.input));
    r.loops = analyze_loops(r.listing,
                            {.lines = &lines, .problem = problem, .tensor_macs_hint = remark_hint(o), .warps = warps});
    r.no_res_usage = true;
    return r;
  }
  r.measurement = measure(outputs, o.input, problem, true, overrides);
  r.loops = r.measurement->loops;
  std::istringstream in(outputs.sass_text);
  r.listing = parse_sass(in, outputs.sass_name);
  return r;
}

}  // namespace tileperf
