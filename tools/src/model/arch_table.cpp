#include "model/arch_table.h"

#include <algorithm>

#include <fmt/format.h>

#include "analysis/isa.h"
#include "support/error.h"
#include "support/json_input.h"

namespace tileperf {

namespace {

constexpr const char* kArchTableJson =
#include "support/arch_table_json.inc"  // the text of tools/tileperf_dump/archs.json
    ;
constexpr const char* kFormat = "tileperf-archs/1";

// Where a field is: the table's file and the path of the field in it.
struct Place {
  const std::string& file;
  std::string path;  // "archs.sm_90"
};

[[noreturn]] void refuse(const Place& at, const std::string& what) { throw InputError(at.file, 0, at.path + what); }

// The field `key` of a row, a number (or an integer where `whole`).
double number(const nlohmann::json& row, const Place& at, const std::string& key, bool whole = false) {
  return json_number(row, key, at.file, at.path, whole);
}

std::string text(const nlohmann::json& row, const Place& at, const char* key) {
  auto it = row.find(key);
  if (it == row.end() || !it->is_string()) refuse(at, fmt::format(".{} must be a string", key));
  return it->get<std::string>();
}

Latencies latencies(const nlohmann::json& row, const Place& at) {
  auto it = row.find("latencies");
  if (it == row.end() || !it->is_object()) refuse(at, ".latencies must be an object");
  Place inner{at.file, at.path + ".latencies"};
  Latencies l;
  auto fields = latency_fields(l);
  for (const auto& [name, value] : it->items()) {
    bool known = name != "local" &&  // the launch model decides it (L1 or L2)
                 std::any_of(fields.begin(), fields.end(), [&](const auto& f) { return f.first == name; });
    if (!known) refuse(inner, fmt::format(".{} is not a latency of the replay", name));
  }
  for (auto& [name, field] : fields) {
    if (name != "local") *field = number(*it, inner, name);
  }
  return l;
}

ArchSpec row_spec(const std::string& arch, const nlohmann::json& row, const Place& where) {
  if (!row.is_object()) refuse(where, " must be an object");
  auto whole = [&](const char* key) { return static_cast<std::int64_t>(number(row, where, key, true)); };
  return ArchSpec{
      .arch = arch,
      .part = text(row, where, "part"),
      .source = text(row, where, "source"),
      .sms = static_cast<int>(whole("sms")),
      .clock_ghz = number(row, where, "clock_ghz"),
      .dram_read_gbs = number(row, where, "dram_read_gbs"),
      .dram_write_gbs = number(row, where, "dram_write_gbs"),
      .dram_copy_gbs = number(row, where, "dram_copy_gbs"),
      .l2_gbs = number(row, where, "l2_gbs"),
      .registers = whole("registers_per_sm"),
      .max_threads = whole("max_threads_per_sm"),
      .max_blocks = whole("max_blocks_per_sm"),
      .shared = whole("shared_bytes_per_sm"),
      .reserved_shared = whole("reserved_shared_bytes_per_block"),
      .l1_and_shared = whole("l1_and_shared_bytes_per_sm"),
      .l2_latency = number(row, where, "l2_latency_cycles"),
      .launch_us = number(row, where, "launch_us"),
      .dispatch_ns = number(row, where, "dispatch_ns"),
      .tensor_macs = number(row, where, "tensor_macs_per_clock_per_sm"),
      .lsu_per_clock = number(row, where, "lsu_per_clock_per_sm"),
      .latency = latencies(row, where),
  };
}

}  // namespace

std::vector<ArchSpec> parse_arch_table(const std::string& text_of_table, const std::string& filename) {
  auto table = parse_json(text_of_table, filename);
  if (!table.is_object() || !table.contains("format") || table.at("format") != kFormat) {
    refuse({filename, "format"}, fmt::format(" must be \"{}\"", kFormat));
  }
  auto archs = table.find("archs");
  if (archs == table.end() || !archs->is_object() || archs->empty()) {
    refuse({filename, "archs"}, " must be an object of one row per architecture");
  }
  std::vector<ArchSpec> rows;
  for (const auto& [arch, row] : archs->items()) {
    Place at{filename, "archs." + arch};
    if (arch_number(arch) == 0) refuse(at, " is not an architecture (sm_<number>)");
    rows.push_back(row_spec(arch, row, at));
  }
  std::sort(rows.begin(), rows.end(),
            [](const ArchSpec& a, const ArchSpec& b) { return arch_number(a.arch) < arch_number(b.arch); });
  return rows;
}

const std::vector<ArchSpec>& arch_table() {
  static const std::vector<ArchSpec> rows = parse_arch_table(kArchTableJson, "archs.json");
  return rows;
}

const ArchSpec& arch_spec(std::string_view arch) {
  int want = arch_number(arch);
  const ArchSpec* best = &arch_table().front();
  for (const auto& row : arch_table()) {
    if (arch_number(row.arch) <= want) best = &row;
  }
  return *best;
}

}  // namespace tileperf
