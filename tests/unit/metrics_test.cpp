#define BOOST_TEST_MODULE metrics
#include <boost/test/unit_test.hpp>

#include "readers/elf.h"
#include "metrics/extract.h"
#include "fixtures.h"
#include "metrics/metrics.h"
#include "readers/resusage.h"
#include "readers/sass.h"

using namespace tileperf;
using namespace tileperf::testing;

namespace {

Metrics sample() {
  Metrics m;
  m.id = {"gelu", "f16_1024", "sm_120"};
  m.toolchain = {{"tileiras", "13.4.92"}, {"cuobjdump", "13.4.92"}};
  m.flags["tileiras"] = {"--gpu-name", "sm_120", "-O3"};
  m.generator = "test";
  m.values = {{"sass.instructions", 143}, {"regs", 27}, {"sass.mufu.TANH", 8}};
  return m;
}

std::string error_of_json(const std::string& text) {
  return error_message([&] { metrics_from_json(parse_json(text, "m.json"), "m.json"); });
}

}  // namespace

BOOST_AUTO_TEST_CASE(round_trip_is_stable) {
  std::string text = to_json_text(sample());
  Metrics back = metrics_from_json(parse_json(text, "m.json"), "m.json");
  BOOST_TEST(to_json_text(back) == text);
  BOOST_TEST(back.id.name() == "perf.gelu.f16_1024.sm_120");
  BOOST_TEST(back.get("regs") == 27);
  BOOST_TEST(back.get("absent") == 0);
  // Sorted keys: "regs" before "sass.instructions" before "sass.mufu.TANH".
  BOOST_TEST(text.find("\"regs\"") < text.find("\"sass.instructions\""));
  BOOST_TEST(text.find("\"sass.instructions\"") < text.find("\"sass.mufu.TANH\""));
  BOOST_TEST(text.back() == '\n');
}

BOOST_AUTO_TEST_CASE(malformed_json_names_file_and_line) {
  BOOST_TEST(error_of_json("{\n  \"format\": \"tileperf-metrics/1\",\n  \"kernel\" \"x\"\n}\n") ==
             "tileperf: error: m.json:3: invalid JSON: syntax error while parsing object separator"
             " - unexpected string literal; expected ':'\n  \"kernel\" \"x\"\n");
  BOOST_TEST(error_of_json("{\"format\": \"other/2\"}") ==
             "tileperf: error: m.json: unknown format 'other/2', expected tileperf-metrics/1\n");
  BOOST_TEST(error_of_json("{\"format\": \"tileperf-metrics/1\", \"kernel\": \"k\"}") ==
             "tileperf: error: m.json: missing key 'config'\n");
  auto j = to_json(sample());
  j["metrics"]["regs"] = "many";
  BOOST_TEST(error_of_json(j.dump()) ==
             "tileperf: error: m.json: key 'metrics.regs' must be an integer from 0 to 9007199254740991, "
             "got \"many\"\n");
}

BOOST_AUTO_TEST_CASE(counts_are_exact_or_refused) {
  auto with_regs = [](const std::string& value) {
    std::string text = to_json_text(sample());
    return error_of_json(text.replace(text.find("\"regs\": 27"), 10, "\"regs\": " + value));
  };
  const std::string refused =
      "tileperf: error: m.json: key 'metrics.regs' must be an integer from 0 to "
      "9007199254740991, got ";
  BOOST_TEST(with_regs("27.9") == refused + "27.9\n");
  BOOST_TEST(with_regs("1e20") == refused + "1e+20\n");
  BOOST_TEST(with_regs("-5") == refused + "-5\n");
  BOOST_TEST(with_regs("18446744073709551615") == refused + "18446744073709551615\n");
  BOOST_TEST(with_regs("9007199254740991").empty());
  BOOST_TEST(with_regs("1e400") ==
             "tileperf: error: m.json:15: invalid JSON: number overflow parsing '1e400'\n"
             "    \"regs\": 1e400,\n");
}

BOOST_AUTO_TEST_CASE(duplicate_keys_and_deep_nesting_are_refused) {
  std::string text = to_json_text(sample());
  std::string twice = text;
  twice.replace(twice.find("\"regs\": 27,"), 12, "\"regs\": 27,\n    \"regs\": 40,");
  BOOST_TEST(error_of_json(twice) == "tileperf: error: m.json: key 'metrics.regs' appears twice\n");
  std::string deep = "{\"a\": " + std::string(100000, '[') + std::string(100000, ']') + "}";
  BOOST_TEST(error_of_json(deep).rfind("tileperf: error: m.json:1: JSON nested deeper than 64 levels\n", 0) == 0);
}

BOOST_AUTO_TEST_CASE(names_that_would_leave_their_folder_are_refused) {
  auto j = to_json(sample());
  j["kernel"] = "../../etc/passwd";
  BOOST_TEST(error_of_json(j.dump()) ==
             "tileperf: error: m.json: key 'kernel': '../../etc/passwd' must match [A-Za-z0-9_]+\n");
}

BOOST_AUTO_TEST_CASE(truncated_json) {
  std::string text = to_json_text(sample());
  std::string cut = text.substr(0, text.find("\"metrics\": {") + 11);
  BOOST_TEST(error_of_json(cut) ==
             "tileperf: error: m.json:14: invalid JSON: syntax error while parsing value - "
             "unexpected end of input; expected '[', '{', or a literal\n  \"metrics\": \n");
}

BOOST_AUTO_TEST_CASE(test_names_are_validated) {
  BOOST_CHECK_NO_THROW(validate_test_id({"softmax", "f16_4096", "sm_120"}));
  BOOST_CHECK_THROW(validate_test_id({"soft-max", "f16", "sm_120"}), UsageError);
  BOOST_CHECK_THROW(validate_test_id({"softmax", "f16.4096", "sm_120"}), UsageError);
  BOOST_CHECK_THROW(validate_test_id({"softmax", "f16", "120"}), UsageError);
}

BOOST_AUTO_TEST_CASE(metrics_from_real_tool_output) {
  std::istringstream sass(fixture("gelu.f16_1024.sm_120.sass"));
  std::istringstream res(fixture("gelu.f16_1024.sm_120.res-usage.txt"));
  auto values = extract_metrics(parse_sass(sass, "s"), parse_resource_usage(res, "r"),
                                parse_elf(fixture("gelu.f16_1024.sm_120.cubin"), "c"));
  BOOST_TEST(values.at("sass.instructions") == 143);
  BOOST_TEST(values.at("sass.mufu") == 9);
  BOOST_TEST(values.at("sass.mufu.TANH") == 8);
  BOOST_TEST(values.at("sass.opcode.MUFU.TANH") == 8);
  BOOST_TEST(values.at("regs") == 27);
  BOOST_TEST(values.at("local.bytes") == 0);
  BOOST_TEST(values.at("stack.bytes") == 0);
  BOOST_TEST(values.at("shared.bytes") == 0);
  BOOST_TEST(values.at("cubin.text_bytes") == 2432);
  BOOST_TEST(values.at("cubin.bytes") == 14241);
}

BOOST_AUTO_TEST_CASE(two_functions_take_the_larger_resources) {
  std::istringstream sass(fixture("two_functions.sm_120.sass"));
  std::istringstream res(fixture("two_functions.sm_120.res-usage.txt"));
  auto values = extract_metrics(parse_sass(sass, "s"), parse_resource_usage(res, "r"),
                                parse_elf(fixture("two_functions.sm_120.cubin"), "c"));
  BOOST_TEST(values.at("shared.bytes") == 9268);
  BOOST_TEST(values.at("regs") == 255);
}

BOOST_AUTO_TEST_CASE(the_library_and_the_model_are_provenance_that_older_files_lack) {
  // A file of a release that recorded neither loads, and is written back as it was.
  std::string old = to_json_text(sample());
  BOOST_TEST(old.find("\"library\"") == std::string::npos);
  BOOST_TEST(old.find("\"model\"") == std::string::npos);
  Metrics back = metrics_from_json(parse_json(old, "m.json"), "m.json");
  BOOST_TEST(back.library.empty());
  BOOST_TEST(back.model == "");
  Metrics m = sample();
  m.library = {{"flashinfer-python", "0.7.4"}};
  m.model = "2";
  std::string text = to_json_text(m);
  BOOST_TEST(text.find("\"library\": {\n    \"flashinfer-python\": \"0.7.4\"\n  }") != std::string::npos, text);
  BOOST_TEST(text.find("\"model\": \"2\"") != std::string::npos);
  back = metrics_from_json(parse_json(text, "m.json"), "m.json");
  BOOST_TEST(back.library == m.library);
  BOOST_TEST(back.model == "2");
  BOOST_TEST(error_of_json(R"({"format": "tileperf-metrics/1", "kernel": "k", "config": "c", "arch": "sm_90",
    "toolchain": {}, "model": 2, "metrics": {}})") == "tileperf: error: m.json: key 'model' has the wrong type\n");
  Metrics bumped = m;
  bumped.library["flashinfer-python"] = "0.7.5";
  bumped.library["cuda-tile"] = "1.8.0";
  BOOST_TEST(library_changes(m, bumped) ==
                 (std::vector<std::string>{"cuda-tile none -> 1.8.0", "flashinfer-python 0.7.4 -> 0.7.5"}),
             boost::test_tools::per_element());
  BOOST_TEST(library_changes(m, m).empty());
}
