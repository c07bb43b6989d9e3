// Running a program: its output and exit status captured, a deadline kept,
// output past the cap stopped, the environment and working folder set.
#define BOOST_TEST_MODULE process
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>

#include "fixtures.h"
#include "support/error.h"
#include "support/process.h"

using namespace tileperf;
namespace fs = std::filesystem;

namespace {

ProcessResult sh(const std::string& script, ProcessOptions options = {}) {
  return run_process({"/bin/sh", "-c", script}, options);
}

}  // namespace

BOOST_AUTO_TEST_CASE(captures_both_streams_and_the_exit_status) {
  auto r = sh("printf 'out\\n'; printf 'err\\n' >&2; exit 5");
  BOOST_TEST(r.out == "out\n");
  BOOST_TEST(r.err == "err\n");
  BOOST_TEST(r.exit_code == 5);
  BOOST_TEST(!r.ok());
  BOOST_TEST(r.describe() == "exit 5");
  BOOST_TEST(sh("true").ok());
}

BOOST_AUTO_TEST_CASE(a_signal_is_reported_by_name) {
  auto r = sh("kill -SEGV $$");
  BOOST_TEST(r.signal == 11);
  BOOST_TEST(!r.ok());
  BOOST_TEST(r.describe() == "killed by signal 11 (Segmentation fault)");
}

BOOST_AUTO_TEST_CASE(the_deadline_kills_a_hung_program_and_its_children) {
  ProcessOptions o;
  o.timeout_seconds = 0.5;
  auto start = std::chrono::steady_clock::now();
  // The background sleep keeps the pipes open after the shell is killed.
  auto r = sh("sleep 30 & sleep 30", o);
  double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  BOOST_TEST(r.timed_out);
  BOOST_TEST(!r.ok());
  BOOST_TEST(waited < 10.0);
  BOOST_TEST(r.describe().rfind("timed out after ", 0) == 0);
}

BOOST_AUTO_TEST_CASE(output_past_the_cap_stops_the_program) {
  ProcessOptions o;
  o.max_output_bytes = 1024;
  auto r = sh("yes 1>&2", o);
  BOOST_TEST(r.flooded == "standard error");
  BOOST_TEST(!r.ok());
  BOOST_TEST(r.err.size() <= 1024u + 65536u);
}

BOOST_AUTO_TEST_CASE(environment_input_and_working_folder) {
  testing::TempFolder folder("process");
  const fs::path& dir = folder.root;
  std::ofstream(dir / "in.txt") << "from the file\n";
  ::setenv("TILEPERF_PROCESS_TEST_GONE", "here", 1);
  ProcessOptions o;
  o.set_env = {{"TILEPERF_PROCESS_TEST_SET", "set"}};
  o.unset_env = {"TILEPERF_PROCESS_TEST_GONE"};
  o.input_file = (dir / "in.txt").string();
  o.working_dir = dir.string();
  auto r = sh("echo \"$TILEPERF_PROCESS_TEST_SET:${TILEPERF_PROCESS_TEST_GONE-unset}\"; cat; pwd -P", o);
  BOOST_TEST(r.ok());
  BOOST_TEST(r.out == "set:unset\nfrom the file\n" + fs::canonical(dir).string() + "\n");
}

BOOST_AUTO_TEST_CASE(a_program_that_cannot_start_is_a_tool_error) {
  BOOST_CHECK_EXCEPTION(run_process({"/nonexistent/tool"}), ToolError, [](const ToolError& e) {
    return std::string(e.what()) == "cannot run /nonexistent/tool: No such file or directory";
  });
}

BOOST_AUTO_TEST_CASE(a_timeout_must_be_positive_and_finite) {
  for (double t : {0.0, -1.0, std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()}) {
    ProcessOptions o;
    o.timeout_seconds = t;
    BOOST_CHECK_THROW(sh("true", o), UsageError);
  }
}

BOOST_AUTO_TEST_CASE(a_fixed_layout_turns_the_randomisation_off_for_the_program) {
  // /proc/self/personality: ADDR_NO_RANDOMIZE is 0x0040000.
  ProcessOptions fixed;
  fixed.fixed_layout = true;
  auto r = sh("cat /proc/self/personality; grep 'Max stack size' /proc/self/limits", fixed);
  BOOST_TEST(r.ok());
  BOOST_TEST(r.layout_errno == 0);
  BOOST_TEST(r.out.substr(0, 9) == "00040000\n");
  BOOST_TEST(r.out.find(" 8388608 ") != std::string::npos);
  auto plain = sh("cat /proc/self/personality");
  BOOST_TEST(plain.out == "00000000\n");
}

BOOST_AUTO_TEST_CASE(a_cleared_environment_holds_only_what_is_set) {
  ProcessOptions o;
  o.clear_env = true;
  o.set_env["ONLY"] = "this";
  o.program = "/usr/bin/env";
  auto r = run_process({"env"}, o);
  BOOST_TEST(r.out == "ONLY=this\n");
}
