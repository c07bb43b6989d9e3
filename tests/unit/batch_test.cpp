// The compile batch's list, its worker processes, and the ctest selection
// it compiles for.
#define BOOST_TEST_MODULE batch
#include <boost/test/unit_test.hpp>

#include <sys/mman.h>

#include <atomic>
#include <cerrno>
#include <string>
#include <vector>

#include "fixtures.h"
#include "metrics/compile_batch.h"
#include "support/text.h"
#include "toolchain/ctest_selection.h"
#include "support/error.h"
#include "support/forked.h"
#include "support/states.h"

using namespace tileperf;

BOOST_AUTO_TEST_CASE(a_batch_list_is_read_from_its_records_and_a_bad_one_is_refused) {
  testing::TempFolder tmp("batch-list");
  auto write = [&](const std::string& name, const std::string& text) {
    std::string path = (tmp.root / name).string();
    write_file_atomic(path, text, Durability::kRenamed);
    return path;
  };
  std::string one = write("one.json", R"({"compile_batch": [
    {"test": "perf.k.a.sm_90", "arch": "sm_90", "bytecode": "/b/a.tileirbc", "dump_info": "/b/a.tileirbc.json"}]})");
  std::string two = write("two.json", R"({"compile_batch": [
    {"test": "perf.l.b.sm_120", "arch": "sm_120", "bytecode": "/b/b.tileirbc", "dump_info": "/b/b.tileirbc.json"}]})");
  std::string list =
      write("list.json", R"({"format": "tileperf-compile-batch/2", "records": [")" + one + R"(", ")" + two + R"("]})");
  auto entries = read_batch_list(list);
  BOOST_REQUIRE_EQUAL(entries.size(), 2u);
  BOOST_TEST(entries[0].test == "perf.k.a.sm_90");
  BOOST_TEST(entries[0].dump_info == "/b/a.tileirbc.json");
  BOOST_TEST(entries[1].arch == "sm_120");
  std::string bad = write("bad.json", R"({"format": "x", "records": []})");
  BOOST_TEST(testing::error_message([&] { read_batch_list(bad); }) ==
             "tileperf: error: " + bad + ": not a tileperf-compile-batch/2 list\n");
  std::string broken = write("broken.json", R"({"compile_batch": [{"test": "t"}]})");
  std::string naming =
      write("naming.json", R"({"format": "tileperf-compile-batch/2", "records": [")" + broken + R"("]})");
  BOOST_TEST(testing::error_message([&] { read_batch_list(naming); }) ==
             "tileperf: error: " + broken + ": each entry needs a string 'arch'\n");
}

namespace {

void count(std::size_t i, void* context) {
  auto* seen = static_cast<std::atomic<unsigned>*>(context);
  seen[i].fetch_add(1);
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_job_runs_once_in_the_worker_processes) {
  constexpr std::size_t kJobs = 50;
  void* shared =
      ::mmap(nullptr, sizeof(std::atomic<unsigned>) * kJobs, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  BOOST_REQUIRE(shared != MAP_FAILED);
  auto* seen = new (shared) std::atomic<unsigned>[kJobs]();
  run_forked(kJobs, 3, count, seen);
  for (std::size_t i = 0; i < kJobs; ++i) BOOST_TEST(seen[i].load() == 1u);
  ::munmap(shared, sizeof(std::atomic<unsigned>) * kJobs);
}

BOOST_AUTO_TEST_CASE(texts_made_in_worker_processes_come_back_in_order_with_their_errors) {
  auto make = [](std::size_t i) -> std::string {
    if (i == 3) throw Error(State::kToolchainFailure, "item 3 failed");
    if (i == 5) ::_exit(9);  // a worker that dies takes its item down, not the others
    return std::string(i * 1000, static_cast<char>('a' + i));
  };
  auto got = texts_forked(8, 3, make);
  BOOST_REQUIRE_EQUAL(got.size(), 8u);
  for (std::size_t i = 0; i < 8; ++i) {
    if (i == 3) {
      BOOST_TEST(!got[i].text);
      BOOST_TEST(got[i].error == "item 3 failed");
    } else if (i == 5) {
      BOOST_TEST(!got[i].text);
      BOOST_TEST(got[i].error == "its worker process ended without a result");
    } else {
      BOOST_REQUIRE(got[i].text);
      BOOST_TEST(*got[i].text == std::string(i * 1000, static_cast<char>('a' + i)));
    }
  }
  // One job: made in this process, errors caught the same way.
  auto here = texts_forked(4, 1, [](std::size_t i) -> std::string {
    if (i == 2) throw Error(State::kToolchainFailure, "two");
    return std::to_string(i);
  });
  BOOST_TEST(*here[1].text == "1");
  BOOST_TEST(here[2].error == "two");
}

BOOST_AUTO_TEST_CASE(the_selection_keeps_what_selects_and_drops_what_runs_or_reports) {
  std::vector<std::string> argv = {"ctest", "--test-dir", "build",          "-L",           "perf", "-j2",
                                   "-I",    "2,,4",       "--output-junit", "j.xml",        "-R",   "^perf\\.",
                                   "-V",    "-T",         "Test",           "--preset=perf"};
  std::vector<std::string> expected = {
      "-L", "perf", "-I", "2,,4", "-R", "^perf\\.", "--preset=perf", "--show-only=json-v1"};
  BOOST_TEST(show_only_arguments(argv) == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(an_io_failure_has_a_state_and_exit_code_of_its_own) {
  BOOST_TEST(state_name(IoError("/x", ENOSPC, "cannot write").state()) == std::string("I/O failure"));
  BOOST_TEST(state_info(State::kIoFailure).exit_code == 10);
  for (const auto& s : all_states()) {
    if (s.state != State::kIoFailure) BOOST_TEST(s.exit_code != 10);
  }
  try {
    throw_file_error("/full/x", ENOSPC, "cannot write");
  } catch (const IoError& e) {
    BOOST_TEST(std::string(e.what()) == "/full/x: cannot write: No space left on device");
  }
  BOOST_CHECK_THROW(throw_file_error("/none", ENOENT, "cannot read"), InputError);
}
