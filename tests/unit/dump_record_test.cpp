// The dump record as the tileperf command reads it: the fixture the dump
// step's tests hold the writer to (tests/fixtures/dump_record/, made by its
// capture.py), read with the real reader; a record of another version or
// of none refused, saying to dump again; a field of the wrong type named by
// its place.
#define BOOST_TEST_MODULE dump_record
#include <boost/test/unit_test.hpp>

#include <filesystem>

#include "fixtures.h"
#include "metrics/compilation.h"
#include "metrics/dump_record.h"
#include "support/json_input.h"

using namespace tileperf;
using namespace tileperf::testing;

namespace {

const std::string kConfig = "mla_decode_split_h16_b16_s4096";
const std::string kFixture =
    std::string(TILEPERF_FIXTURES) + "/dump_record/flashinfer_attention." + kConfig + ".dump.json";
const std::string kKernelFile = "/site-packages/flashinfer/attention/kernels/cutile/fmha_decode_bsr_cutile.py";

nlohmann::json fixture_record() { return parse_json(read_file(kFixture), kFixture); }

// The terminal message of reading `record` as the file r.json.
std::string refused(const nlohmann::json& record) {
  return error_message([&] { parse_dump_record(record.dump(2), "r.json"); });
}

// The same for the fixture with the value at `pointer` replaced by `value`.
std::string refused(const std::string& pointer, const nlohmann::json& value) {
  nlohmann::json record = fixture_record();
  record[nlohmann::json::json_pointer(pointer)] = value;
  return refused(record);
}

std::string error_line(const std::string& what) { return "tileperf: error: r.json: " + what + "\n"; }

}  // namespace

BOOST_AUTO_TEST_CASE(the_fixture_reads_as_the_dump_step_wrote_it) {
  nlohmann::json record = parse_dump_record(read_file(kFixture), kFixture);
  BOOST_TEST(record.at("format") == kDumpRecordFormat);
  BOOST_TEST(record.at("config") == kConfig);
  BOOST_TEST(record.at("kernel") == "_decode_mla_kv_paged_kernel");
  BOOST_TEST(record.at("symbol") == "_decode_mla_kv_paged_kernel");
  BOOST_TEST(record.at("signature").at("symbol") == "_decode_mla_kv_paged_kernel");
  BOOST_TEST(record.at("library").at("flashinfer-python") == "0.7.4");
  BOOST_TEST(record.at("cuda_tile") == "1.7.0");
  BOOST_TEST(record.at("bytecode_version") == "13.4");
  BOOST_TEST(record.at("source") == "/src/examples/flashinfer/attention.py");
  BOOST_TEST(source_dir(record) == "/src/examples/flashinfer");

  std::optional<Problem> problem = problem_from_record(record, kFixture);
  BOOST_REQUIRE(problem.has_value());
  BOOST_TEST(problem->grid == (std::vector<std::int64_t>{16, 1, 8}), boost::test_tools::per_element());
  BOOST_TEST(problem->blocks == 128);
  BOOST_TEST(problem->floor_bytes == 77901888);
  BOOST_TEST(problem->floor_unknown.empty());
  BOOST_TEST(problem->declared_file == "/src/examples/flashinfer/attention.py");
  BOOST_TEST(problem->declared_line == 31);
  BOOST_REQUIRE(problem->trips.size() == 1u);
  const TripDeclaration& trips = problem->trips[0];
  BOOST_TEST(trips.key == "iter_idx");
  BOOST_TEST(trips.file == kKernelFile);
  BOOST_TEST(trips.lines == (std::vector<int>{923}), boost::test_tools::per_element());
  BOOST_TEST(trips.trips == 32);
  BOOST_TEST(trips.calls.empty());
  BOOST_TEST(!trips.override);
  BOOST_TEST(problem->no_arguments.empty());
  BOOST_REQUIRE(problem->arguments.size() == 58u);
  BOOST_TEST(!problem->arguments[0].known);  // an array's base address
  BOOST_TEST(problem->arguments[1].known);
  BOOST_TEST(problem->arguments[1].integer == 16);
}

BOOST_AUTO_TEST_CASE(each_architecture_reads_its_own_part_of_the_fixture) {
  // The record as a check reads it, beside the bytecode files it names.
  TempFolder folder("dump-record");
  std::string info = (folder.root / (kConfig + ".tileirbc.json")).string();
  std::string own = (folder.root / (kConfig + ".sm_100.tileirbc")).string();
  write_file_atomic(info, read_file(kFixture), Durability::kRenamed);
  for (const auto& file : {folder.root / (kConfig + ".tileirbc"), std::filesystem::path(own)}) {
    write_file_atomic(file.string(), "bytecode stand-in\n", Durability::kRenamed);
  }
  auto read_for = [&](const std::string& arch, std::string& bytecode) {
    bytecode = (folder.root / (kConfig + ".tileirbc")).string();
    return read_dump_record(bytecode, info, arch);
  };
  std::string bytecode;
  nlohmann::json sm_100 = read_for("sm_100", bytecode);
  BOOST_TEST(bytecode == own);
  BOOST_TEST(sm_100.at("signature").at("parameters[13].value") == "64");
  BOOST_TEST(!sm_100.contains("archs"));
  BOOST_TEST(problem_from_record(sm_100, info)->trips.at(0).trips == 8);
  nlohmann::json sm_90 = read_for("sm_90", bytecode);
  BOOST_TEST(bytecode == (folder.root / (kConfig + ".tileirbc")).string());
  BOOST_TEST(sm_90.at("signature").at("parameters[13].value") == "16");
  BOOST_TEST(problem_from_record(sm_90, info)->trips.at(0).trips == 32);
  BOOST_TEST(
      error_message([&] { read_for("sm_89", bytecode); }) ==
      "tileperf: error: " + info +
          ": the configuration was exported for sm_100, sm_120, sm_90 but not for sm_89: re-run the dump step\n");
}

BOOST_AUTO_TEST_CASE(a_record_without_a_version_is_an_older_dump_steps) {
  nlohmann::json record = fixture_record();
  record.erase("format");
  BOOST_TEST(refused(record) == error_line("key 'format' is missing: a record of an older dump step (this tileperf "
                                           "reads \"tileperf-dump-record/1\"): re-run the dump step"));
  // The captured records of older releases, read as the file they are.
  BOOST_TEST(refused(parse_json(R"({"config": "f16", "signature": {"symbol": "k"}})", "r.json")) ==
             error_line("key 'format' is missing: a record of an older dump step (this tileperf reads "
                        "\"tileperf-dump-record/1\"): re-run the dump step"));
}

BOOST_AUTO_TEST_CASE(a_record_of_another_version_is_refused) {
  BOOST_TEST(refused("/format", "tileperf-dump-record/2") ==
             error_line("key 'format' is \"tileperf-dump-record/2\": a record of another tileperf's dump step (this "
                        "tileperf reads \"tileperf-dump-record/1\"): re-run the dump step"));
  BOOST_TEST(refused("/format", 1) == error_line("key 'format' is 1: a record of another tileperf's dump step (this "
                                                 "tileperf reads \"tileperf-dump-record/1\"): re-run the dump step"));
  BOOST_TEST(refused(nlohmann::json::array()) == error_line("the dump record must be a JSON object"));
}

BOOST_AUTO_TEST_CASE(a_field_of_the_wrong_type_is_named_by_its_place) {
  struct Case {
    const char* pointer;
    nlohmann::json value;
    const char* message;
  };
  const Case cases[] = {
      {"/signature", 5, "key 'signature' must be an object of strings"},
      {"/signature/symbol", nullptr, "key 'signature' must be an object of strings"},
      {"/symbol", nlohmann::json::array(), "key 'symbol' must be a string"},
      {"/source", false, "key 'source' must be a string"},
      {"/seconds", "fast", "key 'seconds' must be a number"},
      {"/library", {{"flashinfer-python", 0.74}}, "key 'library' must be an object of strings"},
      {"/problem", "x", "key 'problem' must be an object"},
      {"/problem/grid", 16, "key 'problem.grid' must be a list"},
      {"/problem/declared_at/line", "31", "key 'problem.declared_at.line' must be a number"},
      {"/problem/trips/0", "iter_idx", "key 'problem.trips[0]' must be an object"},
      {"/problem/trips/0/loop", 7, "key 'problem.trips[0].loop' must be a string"},
      {"/problem_error",
       {{"file", "a.py"}, {"line", 3}, {"message", 4}},
       "key 'problem_error.message' must be a string"},
      {"/archs", "sm_90", "key 'archs' must be an object"},
      {"/archs/sm_90", 3, "key 'archs.sm_90' must be an object"},
      {"/archs/sm_90/problem", "x", "key 'archs.sm_90.problem' must be an object"},
      {"/archs/sm_100/bytecode", 5, "key 'archs.sm_100.bytecode' must be a string"},
      {"/archs/sm_100/signature", nlohmann::json::array(), "key 'archs.sm_100.signature' must be an object of strings"},
      {"/archs/sm_100/problem/trips/0/trips", "8", "key 'archs.sm_100.problem.trips[0].trips' must be a number"},
  };
  for (const auto& c : cases) BOOST_TEST(refused(c.pointer, c.value) == error_line(c.message), c.pointer);
}
