// The C++ side of the defaults and rules that tools/tileperf_dump/defaults.json
// holds: the values the build passed in are the file's, and the code uses them.
#define BOOST_TEST_MODULE defaults
#include <boost/test/unit_test.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include "support/defaults.h"
#include "support/error.h"
#include "support/json_input.h"
#include "support/text.h"
#include "support/work_paths.h"

using namespace tileperf;

namespace {

nlohmann::json defaults_file() {
  std::string file = std::string(TILEPERF_SOURCE_DIR) + "/tools/tileperf_dump/defaults.json";
  return parse_json(read_file(file), file);
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_constants_are_the_files_values) {
  nlohmann::json j = defaults_file();
  BOOST_TEST(std::string(kNamePattern) == j.at("name_pattern").get<std::string>());
  BOOST_TEST(std::string(kArchPattern) == j.at("arch_pattern").get<std::string>());
  BOOST_TEST(kSkipExitCode == j.at("skip_exit_code").get<int>());
  BOOST_TEST(static_cast<int>(kExitSkipped) == j.at("skip_exit_code").get<int>());
}

BOOST_AUTO_TEST_CASE(names_and_architectures_follow_the_files_rules) {
  BOOST_TEST(name_problem("bf16_2048") == "");
  BOOST_TEST(name_problem("bf16-2048") == "'bf16-2048' must match " + std::string(kNamePattern));
  BOOST_TEST(name_problem("") != "");
  BOOST_TEST(arch_problem("sm_90") == "");
  BOOST_TEST(arch_problem("sm_100a") == "");
  BOOST_TEST(arch_problem("sm_1000000") == "");  // digits without a bound, as the file's rule has it
  BOOST_TEST(arch_problem("sm_90ab") == "'sm_90ab' must look like sm_120");
  BOOST_TEST(arch_problem("sm_") != "");
  BOOST_TEST(arch_problem("compute_90") != "");
}

BOOST_AUTO_TEST_CASE(every_exit_code_is_listed_once_with_a_meaning) {
  std::string seen;
  for (const auto& e : kExitCodes) {
    std::string code = "," + std::to_string(static_cast<int>(e.code)) + ",";
    BOOST_TEST(seen.find(code) == std::string::npos, "exit code listed twice: " << code);
    BOOST_TEST(std::string(e.meaning) != "");
    seen += code;
  }
  BOOST_TEST(seen == ",0,,1,,2,,3,,4,,5,,6,,7,,8,,9,,10,,11,,77,");
}
