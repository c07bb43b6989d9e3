#include "pipeline.h"

#include <sstream>

#include <fmt/format.h>

#include "elf.h"
#include "extract.h"
#include "remarks.h"
#include "resusage.h"
#include "sass.h"
#include "text.h"
#include "tileir.h"

namespace tileperf {

namespace {

constexpr std::int64_t kMaxRegisters = 255;

// The guide's thresholds, as far as the toolchain reports what they need.
std::vector<std::string> resource_notes(const std::map<std::string, std::int64_t>& m) {
  std::vector<std::string> notes;
  auto get = [&](const char* k) { auto it = m.find(k); return it == m.end() ? 0 : it->second; };
  if (get("local.bytes") > 0) {
    notes.push_back(fmt::format("{} bytes of local memory per thread (spills): likely register "
                                "pressure", get("local.bytes")));
  }
  if (get("regs") >= kMaxRegisters) {
    notes.push_back(fmt::format("all {} registers per thread in use: likely register pressure, "
                                "one block per SM at most", get("regs")));
  }
  return notes;
}

}  // namespace

ToolOutputs run_tool_outputs(const Toolchain& tc, const std::string& cubin,
                             const std::string& bytecode, const std::string& remarks,
                             const std::string& keep_prefix) {
  ToolOutputs o;
  o.sass_text = run_cuobjdump(tc, {std::begin(kSassArgs), std::end(kSassArgs)}, cubin);
  o.res_usage_text = run_cuobjdump(tc, {std::begin(kResUsageArgs), std::end(kResUsageArgs)}, cubin);
  o.tileir_text = run_tileirdisasm(tc, bytecode);
  o.remarks_text = read_file(remarks);
  o.remarks_name = remarks;
  bool keep = !keep_prefix.empty();
  o.sass_name = keep ? keep_prefix + ".sass" : "cuobjdump --dump-sass " + cubin;
  o.res_usage_name = keep ? keep_prefix + ".res-usage.txt" : "cuobjdump -res-usage " + cubin;
  o.tileir_name = keep ? keep_prefix + ".tileir" : "tileirdisasm " + bytecode;
  if (keep) {
    write_file_atomic(o.sass_name, o.sass_text);
    write_file_atomic(o.res_usage_name, o.res_usage_text);
    write_file_atomic(o.tileir_name, o.tileir_text);
  }
  return o;
}

Measurement measure(const ToolOutputs& outputs, const std::string& cubin) {
  std::istringstream sass_in(outputs.sass_text);
  std::istringstream res_in(outputs.res_usage_text);
  SassListing sass = parse_sass(sass_in, outputs.sass_name);
  ResourceUsage res = parse_resource_usage(res_in, outputs.res_usage_name);
  ElfFile elf = parse_elf(read_file(cubin), cubin);
  Measurement out;
  out.values = extract_metrics(sass, res, elf);
  if (!outputs.remarks_name.empty()) {
    auto remarks = parse_remarks(outputs.remarks_text, outputs.remarks_name);
    out.values.merge(remark_metrics(remarks));
    out.notes = remark_diagnostics(remarks);
  }
  if (!outputs.tileir_name.empty()) {
    out.values.merge(tileir_metrics(parse_tileir(outputs.tileir_text, outputs.tileir_name)));
  }
  for (auto& note : resource_notes(out.values)) out.notes.push_back(std::move(note));
  return out;
}

}  // namespace tileperf
