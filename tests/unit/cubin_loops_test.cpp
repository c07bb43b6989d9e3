// What `tileperf loops` finds and shows, on captured tool output: the loop
// tree and the main loop's choice, the launch estimate with the resource
// usage, the JSON form, and the located errors of bad options and listings.
#define BOOST_TEST_MODULE cubin_loops
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include "fixtures.h"
#include "inspect/cubin_loops.h"
#include "report/loops_text.h"

using namespace tileperf;
using tileperf::testing::fixture_path;

namespace {

LoopsOptions matmul(bool with_res_usage) {
  LoopsOptions o;
  o.input = fixture_path("matmul.f16_128x128x64.sm_90.cubin");
  o.sass = fixture_path("matmul.f16_128x128x64.sm_90.sass");
  o.dump_info = fixture_path("matmul.f16_128x128x64.dump.json");
  if (with_res_usage) o.res_usage = fixture_path("matmul.f16_128x128x64.sm_90.res-usage.txt");
  o.tc.cuobjdump = "/nonexistent/cuobjdump";  // nothing is run
  return o;
}

// What the command prints.
std::string shown(const LoopsOptions& o) {
  CubinLoops r = cubin_loops(o);
  return o.json ? cubin_loops_json(r).dump(2) + "\n" : cubin_loops_text(r, o.gantt);
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_tree_names_the_main_loop_and_why) {
  std::string text = shown(matmul(false));
  BOOST_TEST(text.rfind("matmul (sm_90a): 2 loop(s), 9 retry loop(s), 9 backward branch(es) that are not loops; "
                        "cost 20806 per block, 85221376 per launch of 4096 blocks\n",
                        0) == 0,
             text);
  BOOST_TEST(text.find("  loop 0x0b10-0x0f60  depth 1  MAIN  trips 128 (k)  matmul.py:35-41  warps 0-3\n") !=
             std::string::npos);
  BOOST_TEST(text.find("  main loop 0x0b10-0x0f60: the most work per block, 7.462e+04 (next: 0x20b0-0x23a0, 1696); "
                       "retry loops are never the main loop\n") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(without_the_resource_usage_the_loops_stand_alone) {
  LoopsOptions o;
  o.input = fixture_path("matmul.f16_128x128x64.sm_120.cubin");  // its listing beside it, no resource usage
  o.tc.cuobjdump = "/nonexistent/cuobjdump";
  CubinLoops r = cubin_loops(o);
  BOOST_TEST(r.no_res_usage);
  BOOST_TEST(!r.measurement);
  std::string text = cubin_loops_text(r, false);
  BOOST_TEST(text.find("main loop 0x1300-0x27e0: the most work per block, 4.376e+04") != std::string::npos, text);
  BOOST_TEST(text.find("launch on") == std::string::npos);
  BOOST_TEST(
      text.ends_with("  (no resource usage of the cubin: no launch estimate; give --res-usage or --cuobjdump)\n"));
}

BOOST_AUTO_TEST_CASE(with_the_resource_usage_the_launch_is_estimated_and_drawn) {
  LoopsOptions o = matmul(true);
  o.gantt = true;
  std::string text = shown(o);
  BOOST_TEST(text.find("launch on sm_90 (NVIDIA H200 SXM, measured") != std::string::npos, text);
  BOOST_TEST(text.find("  256 threads (8 warps) per CTA, 255 registers, 197784 bytes of shared memory; 4096 CTAs") !=
             std::string::npos);
  BOOST_TEST(text.find("main loop 0x0b10-0x0f60 (warps 0-3), one steady iteration:\n") != std::string::npos);
  BOOST_TEST(text.find("producer loop 0x20b0-0x23a0 (warp 4), one steady iteration:\n") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(the_json_form_holds_each_loop_and_the_launch) {
  LoopsOptions o = matmul(true);
  o.json = true;
  auto j = nlohmann::json::parse(shown(o));
  BOOST_TEST(j.at("arch") == "sm_90a");
  BOOST_TEST(j.at("loops").size() == 11u);
  int main_loops = 0;
  for (const auto& l : j.at("loops")) main_loops += l.at("main").get<bool>() ? 1 : 0;
  BOOST_TEST(main_loops == 1);
  BOOST_TEST(j.at("loops")[0].contains("replay_cycles_per_iteration"));
  BOOST_TEST(j.contains("launch"));
}

BOOST_AUTO_TEST_CASE(a_latency_override_changes_the_replay) {
  LoopsOptions o = matmul(true);
  o.json = true;
  auto base = nlohmann::json::parse(shown(o));
  o.latencies = {"mma_result=2000"};
  auto slow = nlohmann::json::parse(shown(o));
  double before = base.at("loops")[0].at("replay_cycles_per_iteration"),
         after = slow.at("loops")[0].at("replay_cycles_per_iteration");
  BOOST_TEST(before == 623.41, boost::test_tools::tolerance(0.001));
  BOOST_TEST(after == 2131.0, boost::test_tools::tolerance(0.001));
}

BOOST_AUTO_TEST_CASE(bad_options_and_listings_are_named) {
  LoopsOptions o = matmul(false);
  o.latencies = {"mma=3"};
  BOOST_CHECK_EXCEPTION(shown(o), UsageError, [](const UsageError& e) {
    return std::string(e.what()).rfind("loops: --latency mma=3: expected NAME=CYCLES with NAME one of global_load, ",
                                       0) == 0;
  });
  LoopsOptions listing;
  listing.input = fixture_path("matmul.f16_128x128x64.sm_90.sass");
  listing.gantt = true;
  BOOST_CHECK_EXCEPTION(shown(listing), UsageError, [](const UsageError& e) {
    return std::string(e.what()) == "loops: --gantt needs a cubin (its threads per block and line table)";
  });
  LoopsOptions garbage;
  garbage.input = fixture_path("broken/gelu.garbage.sass");
  BOOST_TEST(testing::error_message([&] { shown(garbage); }) == "tileperf: error: " + garbage.input +
                                                                    ":13: unrecognized line in SASS listing\n" +
                                                                    line_at(read_file(garbage.input), 13) + "\n");
}
