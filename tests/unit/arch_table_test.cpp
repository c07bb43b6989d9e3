// The architecture table: the compiled-in copy is tools/tileperf_dump/archs.json
// as it is now, read by field name, in architecture order; a malformed table
// is a located error naming the field.
#define BOOST_TEST_MODULE arch_table
#include <boost/test/unit_test.hpp>

#include "analysis/cost_model.h"
#include "model/arch_table.h"
#include "support/error.h"
#include "fixtures.h"
#include "support/json_input.h"

using namespace tileperf;
using namespace tileperf::testing;

namespace {

const std::string kTable = std::string(TILEPERF_SOURCE_DIR) + "/tools/tileperf_dump/archs.json";

// The table's text with one edit: `key` of the sm_90 row set to `value` (a
// JSON text), or removed when `value` is empty.
std::string edited(const std::string& key, const std::string& value) {
  auto table = parse_json(read_file(kTable), kTable);
  auto& row = table.at("archs").at("sm_90");
  if (value.empty()) {
    row.erase(key);
  } else {
    row[key] = nlohmann::json::parse(value);
  }
  return table.dump();
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_compiled_table_is_the_file) {
  auto rows = parse_arch_table(read_file(kTable), kTable);
  BOOST_REQUIRE_EQUAL(rows.size(), arch_table().size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const ArchSpec& a = rows[i];
    const ArchSpec& b = arch_table()[i];
    BOOST_TEST_INFO(a.arch);
    BOOST_TEST(a.arch == b.arch);
    BOOST_TEST(a.part == b.part);
    BOOST_TEST(a.sms == b.sms);
    BOOST_TEST(a.clock_ghz == b.clock_ghz);
    BOOST_TEST(a.tensor_macs == b.tensor_macs);
    BOOST_TEST(a.latency.mma_macs_per_cycle == b.latency.mma_macs_per_cycle);
  }
}

BOOST_AUTO_TEST_CASE(rows_are_in_architecture_order_and_named_fields_land_in_their_place) {
  const auto& rows = arch_table();
  BOOST_REQUIRE_EQUAL(rows.size(), 3u);
  BOOST_TEST(rows[0].arch == "sm_90");  // not "sm_100" first, as the object's keys sort
  BOOST_TEST(rows[1].arch == "sm_100");
  BOOST_TEST(rows[2].arch == "sm_120");
  const ArchSpec& h200 = rows[0];
  BOOST_TEST(h200.part == "NVIDIA H200 SXM");
  BOOST_TEST(h200.sms == 132);
  BOOST_TEST(h200.tensor_macs == 1441);
  BOOST_TEST(h200.dram_read_gbs == 4578);
  BOOST_TEST(h200.shared == 233472);
  BOOST_TEST(h200.reserved_shared == 1024);
  BOOST_TEST(h200.latency.global_load == 675);
  BOOST_TEST(h200.latency.tma_load_per_kib == 8.85);
  BOOST_TEST(h200.latency.local == 0);  // the launch model decides it
  BOOST_TEST(rows[2].max_threads == 1536);
}

BOOST_AUTO_TEST_CASE(a_malformed_table_is_a_located_error) {
  BOOST_TEST(error_message([] { parse_arch_table(edited("sms", "\"132\""), "a.json"); }) ==
             "tileperf: error: a.json: archs.sm_90.sms must be an integer\n");
  BOOST_TEST(error_message([] { parse_arch_table(edited("sms", "132.5"), "a.json"); }) ==
             "tileperf: error: a.json: archs.sm_90.sms must be an integer\n");
  BOOST_TEST(error_message([] { parse_arch_table(edited("clock_ghz", ""), "a.json"); }) ==
             "tileperf: error: a.json: archs.sm_90.clock_ghz must be a number\n");
  BOOST_TEST(error_message([] { parse_arch_table(edited("part", "7"), "a.json"); }) ==
             "tileperf: error: a.json: archs.sm_90.part must be a string\n");
  BOOST_TEST(error_message([] {
               parse_arch_table(edited("latencies", R"({"global_load": 1, "mma": 2})"), "a.json");
             }) == "tileperf: error: a.json: archs.sm_90.latencies.mma is not a latency of the replay\n");
  BOOST_TEST(error_message([] { parse_arch_table(R"({"format": "tileperf-archs/1", "archs": {}})", "a.json"); }) ==
             "tileperf: error: a.json: archs must be an object of one row per architecture\n");
  BOOST_TEST(error_message([] { parse_arch_table(R"({"archs": {}})", "a.json"); }) ==
             "tileperf: error: a.json: format must be \"tileperf-archs/1\"\n");
  BOOST_TEST(error_message([] {
               parse_arch_table(R"({"format": "tileperf-archs/1", "archs": {"gpu": {}}})", "a.json");
             }) == "tileperf: error: a.json: archs.gpu is not an architecture (sm_<number>)\n");
}

BOOST_AUTO_TEST_CASE(an_architecture_takes_the_row_at_or_below_it) {
  BOOST_TEST(arch_spec("sm_90a").arch == "sm_90");
  BOOST_TEST(arch_spec("sm_100").arch == "sm_100");
  BOOST_TEST(arch_spec("sm_103").arch == "sm_100");
  BOOST_TEST(arch_spec("sm_120a").arch == "sm_120");
  BOOST_TEST(arch_spec("sm_80").arch == "sm_90");  // below every row: the lowest
}

// The cost model's issue rates: the same file's issue_rates, by name.
BOOST_AUTO_TEST_CASE(the_issue_rates_are_the_files_by_name) {
  auto rows = parse_issue_rates(read_file(kTable), kTable);
  BOOST_REQUIRE_EQUAL(rows.size(), 5u);
  BOOST_TEST(rows.front().arch == "sm_80");
  BOOST_TEST(rows.back().arch == "sm_120");
  for (const auto& r : rows) {
    const ArchRates& compiled = CostModel(r.arch).rates();
    BOOST_TEST_INFO(r.arch);
    BOOST_TEST(compiled.arch == r.arch);
    BOOST_TEST(compiled.tensor_macs == r.tensor_macs);
    BOOST_TEST(compiled.integer == r.integer);
    BOOST_TEST(compiled.l1_bytes == r.l1_bytes);
  }
  BOOST_TEST(CostModel("sm_90").rates().tensor_macs == 2048);                           // the H100 whitepaper's
  BOOST_TEST(CostModel("sm_120").rates().integer == 128);                               // at the FP32 rate
  BOOST_TEST(CostModel("sm_86").rates().fp64_tensor_macs == 2);                         // no FP64 tensor cores
  BOOST_TEST(arch_spec("sm_90").tensor_macs < CostModel("sm_90").rates().tensor_macs);  // achieved, not the datasheet's
}

BOOST_AUTO_TEST_CASE(a_malformed_issue_rate_is_a_located_error) {
  auto with = [](const std::string& arch, const std::string& key, const std::string& value) {
    auto table = parse_json(read_file(kTable), kTable);
    auto& row = table.at("issue_rates").at(arch);
    if (value.empty()) {
      row.erase(key);
    } else {
      row[key] = nlohmann::json::parse(value);
    }
    return table.dump();
  };
  auto refused = [](const std::string& text, const std::string& what) {
    try {
      parse_issue_rates(text, "t.json");
    } catch (const InputError& e) {
      BOOST_TEST(std::string(e.what()).find(what) != std::string::npos, e.what() << " names " << what);
      return;
    }
    BOOST_ERROR("accepted: " << what);
  };
  refused(with("sm_90", "mufu", ""), "t.json: issue_rates.sm_90.mufu must be a number");
  refused(with("sm_100", "tensor_macs", "\"4096\""), "issue_rates.sm_100.tensor_macs must be a number");
  refused("{\"format\": \"tileperf-archs/1\", \"archs\": {}}", "issue_rates must be an object");
}
