// The measurement of one compilation (measure.h).
#include "metrics/measure.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "metrics/extract.h"
#include "metrics/remark_metrics.h"
#include "metrics/tileir_metrics.h"
#include "readers/elf.h"
#include "readers/line_table.h"
#include "model/line_time.h"
#include "readers/remarks.h"
#include "readers/resusage.h"
#include "readers/sass.h"
#include "readers/tileir.h"
#include "support/error.h"
#include "support/json_input.h"
#include "support/text.h"
#include "toolchain/cache_paths.h"
#include "metrics/model_metrics.h"

namespace tileperf {

namespace {

constexpr std::int64_t kMaxRegisters = 255;
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

KernelAttributes kernel_of(const SassListing& sass, const std::string& cubin_data, const ElfFile& elf,
                           const std::string& cubin) {
  for (const auto& fn : sass.functions) {
    auto attributes = kernel_attributes(cubin_data, elf, fn.name, cubin);
    if (attributes.threads_per_block() > 0) return attributes;
  }
  return {};
}

int kernel_warps(const KernelAttributes& attributes) {
  return static_cast<int>(std::min<std::int64_t>((attributes.threads_per_block() + 31) / 32, kMaxWarps));
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
  std::vector<std::string> compiled_roots = fixed_roots(outputs.source_roots.size());
  auto here = [&](const std::string& path) {
    return outputs.source_roots.empty() ? path : moved_roots(path, compiled_roots, outputs.source_roots);
  };
  out.lines = count_source_lines(sass, lines, here);
  KernelAttributes attributes = kernel_of(sass, cubin_data, elf, cubin);
  std::int64_t hint = tensor_macs_hint(out.values);
  int warps = kernel_warps(attributes);
  std::vector<TripDeclaration> computed;
  if (tileir) {
    SkeletonInputs skeleton{.program = &tileir->program,
                            .stats = &*tileir,
                            .grid = problem ? problem->grid : std::vector<std::int64_t>{1},
                            .arguments = problem ? problem->arguments : std::vector<LaunchArgument>{},
                            .no_arguments = problem ? problem->no_arguments : "no problem declared",
                            .problem = problem};
    out.skeleton = evaluate_skeleton(skeleton);
    computed = out.skeleton.trips(-1);
    for (const auto& note : out.skeleton.notes) out.notes.push_back(note);
  }
  LoopOptions options{.lines = &lines,
                      .problem = problem,
                      .tensor_macs_hint = hint,
                      .warps = warps,
                      .computed = tileir ? &computed : nullptr};
  std::vector<FunctionFlow> flows;
  out.loops = analyze_loops(sass, options, &flows);
  out.values.merge(loop_metrics(out.loops));
  for (const auto& note : out.loops.notes) out.notes.push_back(note);
  LaunchInputs launch{.listing = &sass,
                      .flows = &flows,
                      .loops = &out.loops,
                      .lines = &lines,
                      .tileir = tileir ? &*tileir : nullptr,
                      .problem = problem,
                      .skeleton = tileir ? &out.skeleton : nullptr,
                      .attributes = attributes,
                      .registers = out.values["regs"],
                      .shared_bytes = out.values["shared.bytes"],
                      .spill_bytes = out.values["local.bytes"] + out.values["stack.bytes"],
                      .tensor_macs_hint = hint,
                      .keep_events = keep_events,
                      .latency_overrides = latency_overrides};
  out.launch = estimate_launch(launch);
  out.line_time = attribute_lines(launch, out.launch, here);
  out.values.merge(launch_metrics(out.launch));
  for (const auto& note : out.launch.notes) out.notes.push_back(note);
  for (auto& note : resource_notes(out.values)) out.notes.push_back(std::move(note));
  return out;
}

}  // namespace tileperf
