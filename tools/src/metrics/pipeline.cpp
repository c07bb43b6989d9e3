#include "metrics/pipeline.h"

#include <algorithm>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "readers/elf.h"
#include "support/error.h"
#include "metrics/extract.h"
#include "support/json_input.h"
#include "readers/line_table.h"
#include "metrics/remark_metrics.h"
#include "readers/remarks.h"
#include "readers/resusage.h"
#include "readers/sass.h"
#include "support/text.h"
#include "metrics/tileir_metrics.h"
#include "readers/tileir.h"
#include "support/work_paths.h"

namespace tileperf {

namespace {

constexpr std::int64_t kMaxRegisters = 255;
// Bounds of a declared problem: CUDA's grid limits, and trip counts and
// lines that keep every cost estimate far below kMaxCount.
constexpr std::int64_t kMaxGridDimension = (std::int64_t(1) << 31) - 1;
constexpr std::int64_t kMaxBlocks = std::int64_t(1) << 40;
constexpr std::int64_t kMaxTrips = (std::int64_t(1) << 31) - 1;
constexpr std::int64_t kMaxLine = (std::int64_t(1) << 31) - 1;
constexpr std::int64_t kMaxShapeDimension = 1 << 16;

// "64x128x16" -> 131072; nothing unless three positive dimensions.
std::optional<std::int64_t> shape_product(const std::string& shape) {
  auto dims = split(shape, 'x');
  if (dims.size() != 3) return std::nullopt;
  std::int64_t product = 1;
  for (const auto& d : dims) {
    auto n = parse_count(d, kMaxShapeDimension);
    if (!n || *n == 0) return std::nullopt;
    product *= *n;
  }
  return product;
}

// The guide's thresholds, as far as the toolchain reports what they need.
std::vector<std::string> resource_notes(const std::map<std::string, std::int64_t>& m) {
  std::vector<std::string> notes;
  auto get = [&](const char* k) {
    auto it = m.find(k);
    return it == m.end() ? 0 : it->second;
  };
  if (get("local.bytes") > 0) {
    notes.push_back(
        fmt::format("{} bytes of local memory per thread (spills): likely register "
                    "pressure",
                    get("local.bytes")));
  }
  if (get("regs") >= kMaxRegisters) {
    notes.push_back(
        fmt::format("all {} registers per thread in use: likely register pressure, "
                    "one block per SM at most",
                    get("regs")));
  }
  return notes;
}

}  // namespace

std::int64_t tensor_macs_hint(const std::map<std::string, std::int64_t>& m) {
  const std::string prefix = "remarks.tensor_core.shape.";
  std::int64_t macs = 0, count = 0;
  for (auto it = m.lower_bound(prefix); it != m.end() && it->first.rfind(prefix, 0) == 0; ++it) {
    auto product = shape_product(it->first.substr(prefix.size()));
    if (!product || *product > kMaxCount / std::max<std::int64_t>(it->second, 1) ||
        macs > kMaxCount - *product * it->second) {
      continue;
    }
    macs += *product * it->second;
    count += it->second;
  }
  return count ? macs / count : 0;
}

namespace {

std::int64_t bounded_integer(const nlohmann::json& j, const std::string& what, const std::string& filename,
                             std::int64_t minimum, std::int64_t maximum) {
  bool fits = j.is_number_integer() && !(j.is_number_unsigned() && j.get<std::uint64_t>() > std::uint64_t(maximum));
  if (!fits || j.get<std::int64_t>() < minimum || j.get<std::int64_t>() > maximum) {
    throw InputError(filename, 0, fmt::format("problem: {} must be an integer from {} to {}", what, minimum, maximum));
  }
  return j.get<std::int64_t>();
}

// The configuration's problem error that the dump step recorded, thrown
// where the configuration file declares the problem.
void throw_problem_error(const nlohmann::json& e, const std::string& filename) {
  if (!e.is_object() || !e.contains("file") || !e.at("file").is_string() || !e.contains("message") ||
      !e.at("message").is_string()) {
    throw InputError(filename, 0, "problem_error: expected an object with a 'file', a 'line' and a 'message'");
  }
  int line = e.contains("line")
                 ? static_cast<int>(bounded_integer(e.at("line"), "the line of problem_error", filename, 0, kMaxLine))
                 : 0;
  throw InputError(e.at("file").get<std::string>(), line, e.at("message").get<std::string>());
}

std::vector<std::pair<std::string, int>> call_sites(const nlohmann::json& t, const std::string& filename) {
  std::vector<std::pair<std::string, int>> calls;
  if (!t.contains("calls")) return calls;
  if (!t.at("calls").is_array()) throw InputError(filename, 0, "problem: 'calls' of a trips entry must be a list");
  for (const auto& c : t.at("calls")) {
    if (!c.is_object() || !c.contains("file") || !c.at("file").is_string() || !c.contains("line")) {
      throw InputError(filename, 0, "problem: each call of a trips entry needs a 'file' and a 'line'");
    }
    calls.emplace_back(c.at("file").get<std::string>(),
                       static_cast<int>(bounded_integer(c.at("line"), "a call's line", filename, 1, kMaxLine)));
  }
  return calls;
}

}  // namespace

nlohmann::json record_for_arch(const nlohmann::json& record, const std::string& arch, const std::string& filename) {
  if (arch.empty() || !record.is_object() || !record.contains("archs")) return record;
  const auto& archs = record.at("archs");
  if (!archs.is_object()) throw InputError(filename, 0, "archs: expected an object of architectures");
  if (!archs.contains(arch)) {
    std::vector<std::string> known;
    for (const auto& [name, entry] : archs.items()) known.push_back(name);
    throw InputError(filename, 0,
                     fmt::format("the configuration was exported for {} but not for {}: "
                                 "re-run the dump step",
                                 fmt::join(known, ", "), arch));
  }
  const auto& entry = archs.at(arch);
  if (!entry.is_object()) throw InputError(filename, 0, fmt::format("archs.{}: expected an object", arch));
  nlohmann::json out = record;
  out.erase("archs");
  out.erase("problem");
  out.erase("problem_error");
  for (const auto& [key, value] : entry.items()) out[key] = value;
  return out;
}

std::optional<Problem> problem_from_record(const nlohmann::json& record, const std::string& filename) {
  if (record.is_object() && record.contains("problem_error")) {
    throw_problem_error(record.at("problem_error"), filename);
  }
  if (!record.is_object() || !record.contains("problem")) return std::nullopt;
  const auto& j = record.at("problem");
  if (!j.is_object() || !j.contains("grid") || !j.at("grid").is_array() || !j.contains("trips") ||
      !j.at("trips").is_array()) {
    throw InputError(filename, 0, "problem: expected an object with a 'grid' and a 'trips' list");
  }
  Problem p;
  p.blocks = 1;
  for (const auto& g : j.at("grid")) {
    p.grid.push_back(bounded_integer(g, "each grid dimension", filename, 1, kMaxGridDimension));
    if (p.blocks > kMaxBlocks / p.grid.back()) {
      throw InputError(filename, 0, fmt::format("problem: the grid has more than {} blocks", kMaxBlocks));
    }
    p.blocks *= p.grid.back();
  }
  for (const auto& t : j.at("trips")) {
    if (!t.is_object() || !t.contains("loop") || !t.contains("file") || !t.contains("lines") || !t.contains("trips") ||
        !t.at("lines").is_array()) {
      throw InputError(filename, 0, "problem: each trips entry needs 'loop', 'file', 'lines' and 'trips'");
    }
    TripDeclaration d;
    d.key = t.at("loop").is_string() ? t.at("loop").get<std::string>() : "";
    d.file = t.at("file").is_string() ? t.at("file").get<std::string>() : "";
    for (const auto& l : t.at("lines")) {
      d.lines.push_back(static_cast<int>(bounded_integer(l, "a line", filename, 1, kMaxLine)));
    }
    d.trips = static_cast<double>(bounded_integer(t.at("trips"), "trips of '" + d.key + "'", filename, 0, kMaxTrips));
    d.calls = call_sites(t, filename);
    d.override = t.contains("override") && t.at("override").is_boolean() && t.at("override").get<bool>();
    p.trips.push_back(std::move(d));
  }
  if (j.contains("bytes")) p.floor_bytes = bounded_integer(j.at("bytes"), "bytes", filename, 0, kMaxCount);
  if (j.contains("args")) {
    if (!j.at("args").is_array()) throw InputError(filename, 0, "problem: 'args' must be a list of numbers and nulls");
    for (const auto& a : j.at("args")) {
      LaunchArgument arg;
      if (a.is_boolean()) {
        arg.known = true;
        arg.integer = a.get<bool>() ? 1 : 0;
      } else if (a.is_number_integer() &&
                 !(a.is_number_unsigned() && a.get<std::uint64_t>() > std::uint64_t(INT64_MAX))) {
        arg.known = true;
        arg.integer = a.get<std::int64_t>();
      } else if (a.is_number()) {
        arg.known = true;
        arg.is_float = true;
        arg.real = a.get<double>();
      } else if (!a.is_null()) {
        throw InputError(filename, 0, "problem: each of 'args' must be a number, a boolean or null");
      }
      p.arguments.push_back(arg);
    }
  }
  if (j.contains("args_error") && j.at("args_error").is_string())
    p.no_arguments = j.at("args_error").get<std::string>();
  if (j.contains("declared_at") && j.at("declared_at").is_object()) {
    const auto& at = j.at("declared_at");
    if (at.contains("file") && at.at("file").is_string()) p.declared_file = at.at("file").get<std::string>();
    if (at.contains("line"))
      p.declared_line = static_cast<int>(bounded_integer(at.at("line"), "declared_at.line", filename, 0, kMaxLine));
  }
  if (j.contains("launch_error")) {
    p.floor_unknown = j.at("launch_error").is_string() ? j.at("launch_error").get<std::string>() : "not a string";
  }
  return p;
}

namespace {

// A cubin that tileiras left incomplete is its failure, not cuobjdump's.
void check_cubin(const std::string& cubin) {
  try {
    parse_elf(read_file(cubin), cubin);
  } catch (const InputError& e) {
    throw ToolError(fmt::format("tileiras wrote a cubin that is not a complete ELF file: {}", e.what()));
  }
}

}  // namespace

ToolOutputs saved_tool_outputs(const std::string& prefix, const std::string& remarks) {
  ToolOutputs o;
  o.from_tools = true;
  o.sass_name = prefixed_file(prefix, FileKind::kSass);
  o.res_usage_name = prefixed_file(prefix, FileKind::kResUsage);
  o.tileir_name = prefixed_file(prefix, FileKind::kTileir);
  o.remarks_name = remarks;
  o.sass_text = read_file(o.sass_name);
  o.res_usage_text = read_file(o.res_usage_name);
  o.tileir_text = read_file(o.tileir_name);
  o.remarks_text = read_file(remarks);
  return o;
}

std::map<std::string, std::string> artifact_paths(const std::string& prefix) {
  std::map<std::string, std::string> paths;
  for (const char* ext : {"cubin", "remarks.yaml", "sass", "res-usage.txt", "tileir"}) {
    paths[ext] = prefix + "." + ext;
  }
  return paths;
}

ToolOutputs run_tool_outputs(const Toolchain& tc, const std::string& cubin, const std::string& bytecode,
                             const std::string& remarks, const std::string& keep_prefix) {
  check_cubin(cubin);
  ToolOutputs o;
  o.from_tools = true;
  o.sass_text = run_disassembler(tc, cubin);
  o.res_usage_text = run_cuobjdump(tc, {std::begin(kResUsageArgs), std::end(kResUsageArgs)}, cubin);
  o.tileir_text = run_tileirdisasm(tc, bytecode);
  o.remarks_text = read_file(remarks);
  o.remarks_name = remarks;
  bool keep = !keep_prefix.empty();
  o.sass_name = keep ? prefixed_file(keep_prefix, FileKind::kSass) : "cuobjdump --dump-sass " + cubin;
  o.res_usage_name = keep ? prefixed_file(keep_prefix, FileKind::kResUsage) : "cuobjdump -res-usage " + cubin;
  o.tileir_name = keep ? prefixed_file(keep_prefix, FileKind::kTileir) : "tileirdisasm " + bytecode;
  if (keep) {
    write_file_atomic(o.sass_name, o.sass_text, Durability::kRenamed);
    write_file_atomic(o.res_usage_name, o.res_usage_text, Durability::kRenamed);
    write_file_atomic(o.tileir_name, o.tileir_text, Durability::kRenamed);
  }
  return o;
}

namespace {

// Parses what `tool` printed; when it ran just now, an error in its output
// is its failure: exit 0 with a listing cut short, say.
template <typename Parse>
auto parse_output(const ToolOutputs& outputs, const std::string& tool, Parse parse) {
  try {
    return parse();
  } catch (const InputError& e) {
    if (!outputs.from_tools) throw;
    throw ToolError(fmt::format("{} printed output that tileperf cannot read: {}", tool, e.what()));
  }
}

}  // namespace

KernelAttributes kernel_of(const SassListing& sass, const std::string& cubin_data, const ElfFile& elf,
                           const std::string& cubin) {
  for (const auto& fn : sass.functions) {
    auto attributes = kernel_attributes(cubin_data, elf, fn.name, cubin);
    if (attributes.threads_per_block() > 0) return attributes;
  }
  return {};
}

Measurement measure(const ToolOutputs& outputs, const std::string& cubin, const Problem* problem, bool keep_events,
                    const std::map<std::string, double>& latency_overrides) {
  std::istringstream sass_in(outputs.sass_text);
  std::istringstream res_in(outputs.res_usage_text);
  SassListing sass =
      parse_output(outputs, "cuobjdump --dump-sass " + cubin, [&] { return parse_sass(sass_in, outputs.sass_name); });
  ResourceUsage res = parse_output(outputs, "cuobjdump -res-usage " + cubin,
                                   [&] { return parse_resource_usage(res_in, outputs.res_usage_name); });
  std::string cubin_data = read_file(cubin);
  ElfFile elf = parse_elf(cubin_data, cubin);
  Measurement out;
  out.values = extract_metrics(sass, res, elf);
  if (!outputs.remarks_name.empty()) {
    auto remarks = parse_remarks(outputs.remarks_text, outputs.remarks_name);
    out.values.merge(remark_metrics(remarks));
    out.notes = remark_diagnostics(remarks);
  }
  std::optional<TileIrStats> tileir;
  if (!outputs.tileir_name.empty()) {
    tileir =
        parse_output(outputs, "tileirdisasm", [&] { return parse_tileir(outputs.tileir_text, outputs.tileir_name); });
    out.values.merge(tileir_metrics(*tileir));
  }
  LineTable lines = read_line_table(cubin_data, elf, cubin);
  out.lines = count_source_lines(sass, lines);
  KernelAttributes attributes = kernel_of(sass, cubin_data, elf, cubin);
  std::int64_t hint = tensor_macs_hint(out.values);
  int warps = static_cast<int>(std::min<std::int64_t>((attributes.threads_per_block() + 31) / 32, kMaxWarps));
  std::vector<TripDeclaration> computed;
  if (tileir) {
    SkeletonInputs skeleton{&tileir->program,
                            &*tileir,
                            problem ? problem->grid : std::vector<std::int64_t>{1},
                            problem ? problem->arguments : std::vector<LaunchArgument>{},
                            problem ? problem->no_arguments : "no problem declared",
                            problem};
    out.skeleton = evaluate_skeleton(skeleton);
    computed = out.skeleton.trips(-1);
    for (const auto& note : out.skeleton.notes) out.notes.push_back(note);
  }
  LoopOptions options{&lines, problem, hint, warps, tileir ? &computed : nullptr};
  std::vector<FunctionFlow> flows;
  out.loops = analyze_loops(sass, options, &flows);
  out.values.merge(loop_metrics(out.loops, problem));
  for (const auto& note : out.loops.notes) out.notes.push_back(note);
  LaunchInputs launch{&sass,
                      &flows,
                      &out.loops,
                      &lines,
                      tileir ? &*tileir : nullptr,
                      problem,
                      tileir ? &out.skeleton : nullptr,
                      attributes,
                      out.values["regs"],
                      out.values["shared.bytes"],
                      out.values["local.bytes"] + out.values["stack.bytes"],
                      hint,
                      keep_events,
                      latency_overrides};
  out.launch = estimate_launch(launch);
  if (out.launch.classes > 1)
    out.values["cost.launch"] = std::llround(std::min(out.launch.launch_cost, double(kMaxCount)));
  out.values.merge(launch_metrics(out.launch));
  for (const auto& note : out.launch.notes) out.notes.push_back(note);
  for (auto& note : resource_notes(out.values)) out.notes.push_back(std::move(note));
  return out;
}

}  // namespace tileperf
