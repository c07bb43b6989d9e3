// The work folder's and the baselines' file names, against the rows written
// out by hand that both path modules (C++ and Python, which read their kinds
// from tools/tileperf_dump/work_paths.json) are tested on:
// tests/fixtures/work_paths.json.
#define BOOST_TEST_MODULE work_paths
#include <boost/test/unit_test.hpp>

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "support/error.h"
#include "support/json_input.h"
#include "support/text.h"
#include "support/work_paths.h"

using namespace tileperf;

namespace {

nlohmann::json table_rows() {
  std::string file = std::string(TILEPERF_FIXTURES) + "/work_paths.json";
  return parse_json(read_file(file), file).at("rows");
}

std::string field(const nlohmann::json& row, const char* key) {
  return row.at(key).is_null() ? "" : row.at(key).get<std::string>();
}

FileId id_of(const nlohmann::json& row) {
  auto kind = file_kind_named(row.at("kind").get<std::string>());
  BOOST_REQUIRE_MESSAGE(kind, "a kind work_paths.h does not know: " << row.at("kind"));
  return FileId{*kind, field(row, "kernel"), field(row, "config"), field(row, "arch"), field(row, "part")};
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_row_is_built_and_parsed_back) {
  auto rows = table_rows();
  BOOST_TEST(rows.size() >= 16u);
  for (const auto& row : rows) {
    FileId id = id_of(row);
    std::string path = row.at("path");
    bool baselines = row.at("root") == "baselines";
    BOOST_TEST_INFO(path);
    BOOST_TEST(relative_path(id) == path);
    auto parsed = parse_relative_path(path, baselines);
    BOOST_REQUIRE(parsed);
    BOOST_TEST(file_kind_name(parsed->kind) == row.at("kind").get<std::string>());
    BOOST_TEST((*parsed == id));
  }
}

BOOST_AUTO_TEST_CASE(every_kind_has_a_row) {
  auto rows = table_rows();
  BOOST_TEST(file_kind_count() >= 25u);
  for (std::size_t k = 0; k < file_kind_count(); ++k) {
    std::string name = file_kind_name(static_cast<FileKind>(k));
    bool found = false;
    for (const auto& row : rows) found = found || row.at("kind") == name;
    BOOST_TEST(found, name);
  }
}

BOOST_AUTO_TEST_CASE(what_is_no_file_of_the_rule_is_refused) {
  BOOST_TEST(!parse_relative_path("softmax/bf16_2048.sm_90.cubin", true));  // not a baseline
  BOOST_TEST(!parse_relative_path("softmax/bf16_2048.sm_90.json", false));  // not a work file
  BOOST_TEST(!parse_relative_path("softmax/bf16_2048.sm90.cubin", false));  // no architecture
  BOOST_TEST(!parse_relative_path("soft-max/bf16.sm_90.cubin", false));     // kernel name
  BOOST_TEST(!parse_relative_path("a/softmax/bf16.sm_90.cubin", false));    // too deep
  BOOST_TEST(!parse_relative_path("bf16.sm_90.cubin", false));              // no kernel folder
  BOOST_TEST(!parse_relative_path("softmax/b.f16.sm_90.metrics.json", false));
  BOOST_TEST(!file_kind_named("listing"));
}

BOOST_AUTO_TEST_CASE(a_detail_file_is_no_baseline_of_a_config_named_detail) {
  auto id = parse_relative_path("softmax/bf16.sm_90.detail.json", true);
  BOOST_REQUIRE(id);
  BOOST_TEST((id->kind == FileKind::kBaselineDetail));
  BOOST_TEST(id->config == "bf16");
}

BOOST_AUTO_TEST_CASE(prefixed_files_and_their_prefix) {
  std::string prefix = test_prefix("build/tileperf/softmax", "bf16_2048", "sm_90");
  BOOST_TEST(prefix == "build/tileperf/softmax/bf16_2048.sm_90");
  BOOST_TEST(prefixed_file(prefix, FileKind::kResUsage) == prefix + ".res-usage.txt");
  BOOST_TEST(prefix_of(prefix + ".result.json", FileKind::kResult).value_or("?") == prefix);
  BOOST_TEST(!prefix_of(prefix + ".result.json", FileKind::kMetrics));
  BOOST_TEST(!prefix_of("softmax/bf16.tileirbc", FileKind::kBytecode));  // not a file of an architecture
}

BOOST_AUTO_TEST_CASE(names_follow_the_name_rule) {
  BOOST_TEST(name_problem("bf16_2048").empty());
  BOOST_TEST(name_problem("bf16-2048") == "'bf16-2048' must match [A-Za-z0-9_]+");
  BOOST_TEST(!name_problem(std::string(201, 'a')).empty());
  BOOST_TEST(arch_problem("sm_100a").empty());
  BOOST_TEST(arch_problem("sm90") == "'sm90' must look like sm_120");
}

BOOST_AUTO_TEST_CASE(the_run_files_lie_in_the_work_folder) {
  BOOST_TEST(work_file("build/tileperf", FileKind::kRun) == "build/tileperf/run.json");
  BOOST_TEST(work_file("w", FileKind::kCompileBatchLock, "sm_90") == "w/compile-batch.json.sm_90.lock");
  BOOST_TEST(work_file("w", FileKind::kDumpBatch, "kernels.2") == "w/dump-batch.kernels.2.json");
  BOOST_CHECK_THROW(work_file("w", FileKind::kDumpBatch, "kernels/2"), UsageError);
  BOOST_CHECK_THROW(work_file("w", FileKind::kDumpBatch), UsageError);
  BOOST_TEST(kernel_file("w/softmax", FileKind::kConfigs) == "w/softmax/configs.json");
  BOOST_TEST(kernel_file("w/softmax", FileKind::kDumpRecord, "bf16") == "w/softmax/bf16.tileirbc.json");
  BOOST_CHECK_THROW(kernel_file("w/softmax", FileKind::kRun), UsageError);
  BOOST_CHECK_THROW(prefixed_file("w/softmax/bf16.sm_90", FileKind::kBytecode), UsageError);
}
