// Loop metrics and the cost estimate: written listings with known answers,
// then the real pipelines of the fixtures with their declared problems.
#define BOOST_TEST_MODULE loops
#include <boost/test/unit_test.hpp>

#include <cmath>

#include "model/launch_model.h"
#include "analysis/loops.h"
#include "fixtures.h"
#include "metrics/dump_record.h"
#include "metrics/measure.h"
#include "metrics/metrics.h"
#include "readers/elf.h"
#include "readers/line_table.h"
#include "support/json_input.h"
#include "metrics/model_metrics.h"

using namespace tileperf;
using namespace tileperf::testing;

namespace {

struct Fixture {
  SassListing listing;
  LineTable lines;
  std::optional<Problem> problem;
  LoopAnalysis analysis;
};

// The loops of a fixture listing, with its cubin's line table and, if
// `dump` is given, the problem its dump record declares.
Fixture analyze(const std::string& base, const std::string& dump = "", std::int64_t tensor_macs_hint = 0) {
  Fixture f;
  std::istringstream in(fixture(base + ".sass"));
  f.listing = parse_sass(in, base + ".sass");
  std::string cubin = fixture(base + ".cubin");
  f.lines = read_line_table(cubin, parse_elf(cubin, base + ".cubin"), base + ".cubin");
  if (!dump.empty()) f.problem = problem_from_record(parse_json(fixture(dump), dump), dump);
  f.analysis = analyze_loops(f.listing, {&f.lines, f.problem ? &*f.problem : nullptr, tensor_macs_hint});
  return f;
}

const LoopInfo& main_loop(const LoopAnalysis& r) {
  BOOST_REQUIRE(r.main >= 0);
  return r.loops[static_cast<std::size_t>(r.main)];
}

LoopAnalysis analyze_code(const std::vector<std::string>& code, const std::string& arch = "sm_90a") {
  static SassListing listing;  // the analysis keeps no pointer into it, but keep it alive anyway
  listing = synthetic_listing(code, arch);
  return analyze_loops(listing, {});
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_loop_body_is_measured_and_weighted_by_the_assumed_trips) {
  auto r = analyze_code({
      "MOV R1, RZ",                        // 0x00
      "FFMA R2, R2, R2, R2",               // 0x10 header
      "MUFU.EX2 R3, R2",                   // 0x20
      "IADD3 R1, R1, 0x1, RZ",             // 0x30
      "ISETP.GE.AND P0, PT, R1, 0x8, PT",  // 0x40
      "@!P0 BRA 0x10",                     // 0x50
      "EXIT",                              // 0x60
  });
  const LoopInfo& l = main_loop(r);
  BOOST_TEST(l.instructions == 5);
  BOOST_TEST(l.stall_cycles == 5);  // stall 1 each
  BOOST_TEST(l.mufu == 1);
  BOOST_TEST(l.trips == kAssumedTrips);
  BOOST_TEST(l.trips_from == "assumed");
  // FFMA .25 + MUFU 2 + IADD3 .5 + ISETP .5 + BRA .25 per iteration.
  BOOST_TEST(l.cost == 3.5);
  BOOST_TEST(r.block_cost == 0.5 + 16 * 3.5 + 0.25);  // MOV, the loop, EXIT
  auto m = loop_metrics(r);
  BOOST_TEST(m.at("loop.main.ii") == 5);
  BOOST_TEST(m.at("loop.count") == 1);
  BOOST_TEST(m.at("cost.block") == std::llround(r.block_cost));
}

BOOST_AUTO_TEST_CASE(the_main_loop_holds_the_most_tensor_core_instructions) {
  auto r = analyze_code(
      {
          "FFMA R2, R2, R2, R2",             // 0x00 loop 1: larger, no MMA
          "FFMA R2, R2, R2, R2",             // 0x10
          "FFMA R2, R2, R2, R2",             // 0x20
          "@!P0 BRA 0x0",                    // 0x30
          "HMMA.16816.F32 R4, R8, R12, R4",  // 0x40 loop 2: the MMA
          "@!P1 BRA 0x40",                   // 0x50
          "EXIT",                            // 0x60
      },
      "sm_120a");
  BOOST_TEST(main_loop(r).begin == 0x40u);
  BOOST_TEST(main_loop(r).mma == 1);
  BOOST_TEST(main_loop(r).cost == 4.25);  // HMMA 16x8x16 at 512 MAC/clk, BRA
}

BOOST_AUTO_TEST_CASE(without_tensor_cores_the_deepest_loop_is_main) {
  auto r = analyze_code({
      "MOV R1, RZ",       // 0x00
      "FADD R2, R2, R2",  // 0x10 outer header
      "FADD R3, R3, R3",  // 0x20 inner
      "@!P0 BRA 0x20",    // 0x30
      "FADD R2, R2, R2",  // 0x40
      "FADD R2, R2, R2",  // 0x50
      "@!P1 BRA 0x10",    // 0x60
      "EXIT",             // 0x70
  });
  BOOST_TEST(main_loop(r).begin == 0x20u);
  BOOST_TEST(main_loop(r).depth == 2);
  // The inner body runs 16 x 16 times, the outer body 16 times.
  BOOST_TEST(r.block_cost == 0.5 + 16 * (0.25 + 16 * 0.5 + 0.75) + 0.25);
}

BOOST_AUTO_TEST_CASE(retry_loops_of_barrier_waits_are_cold) {
  auto r = analyze_code({
      "SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [UR4+0x30000], R2",  // 0x00
      "@!P0 BRA 0x30",                                         // 0x10
      "EXIT",                                                  // 0x20
      "SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [UR4+0x30000], R2",  // 0x30 retry loop
      "@!P0 NANOSLEEP.SYNCS 0x989680",                         // 0x40
      "@!P0 BRA 0x30",                                         // 0x50
      "BRA 0x20",                                              // 0x60
  });
  BOOST_TEST(r.main == -1);
  BOOST_REQUIRE(r.loops.size() == 1u);
  BOOST_TEST(r.loops[0].spin);
  BOOST_TEST(r.block_cost == 0.75);  // the in-line try, the branch, the EXIT
  auto m = loop_metrics(r);
  BOOST_TEST(m.at("loop.count") == 0);
  BOOST_TEST(m.at("loop.spin") == 1);
  BOOST_TEST(m.count("loop.main.ii") == 0u);
  BOOST_TEST(m.at("loop.all.ii") == 0);
}

BOOST_AUTO_TEST_CASE(calls_cost_their_subroutine_each_time) {
  auto r = analyze_code({
      "CALL.REL.NOINC 0x30",    // 0x00
      "CALL.REL.NOINC 0x30",    // 0x10
      "EXIT",                   // 0x20
      "MUFU.EX2 R1, R1",        // 0x30 subroutine: 2 cycles
      "MUFU.EX2 R1, R1",        // 0x40
      "RET.REL.NODEC R20 0x0",  // 0x50
  });
  BOOST_TEST(r.block_cost == 2 * (0.25 + 4.25) + 0.25);
}

BOOST_AUTO_TEST_CASE(matmul_main_loops_take_the_declared_trips_on_every_architecture) {
  struct Expect {
    const char* arch;
    std::int64_t mma, hint;
  };
  for (const Expect& e : {Expect{"sm_90", 8, 0}, Expect{"sm_100", 4, 128 * 128 * 16}, Expect{"sm_120", 128, 0}}) {
    auto f = analyze("matmul.f16_128x128x64." + std::string(e.arch), "matmul.f16_128x128x64.dump.json", e.hint);
    const LoopInfo& main = main_loop(f.analysis);
    BOOST_TEST_INFO(e.arch);
    BOOST_TEST(main.mma == e.mma);
    BOOST_TEST(main.trips == 128);  // K 8192 / TILE_K 64
    BOOST_TEST(main.trips_from == "k");
    BOOST_TEST(main.lines.has_value());
    for (const auto& l : f.analysis.loops) {
      if (!l.spin) BOOST_TEST(l.trips_from == "k");  // the producer loop too
    }
    auto m = loop_metrics(f.analysis);
    BOOST_TEST(m.at("loop.main.mma") == e.mma);
    BOOST_TEST(f.analysis.notes.empty());
  }
}

BOOST_AUTO_TEST_CASE(declared_trips_that_match_no_loop_are_noted) {
  // Causal attention: the first `for j` loop runs 31 times on average, the
  // second (the diagonal, two iterations) is unrolled by the compiler.
  auto f = analyze("attention.f16_d64_causal.sm_90", "attention.f16_d64_causal.dump.json");
  BOOST_TEST(main_loop(f.analysis).trips == 31);
  BOOST_TEST(main_loop(f.analysis).trips_from == "j#1");
  BOOST_REQUIRE(f.analysis.notes.size() == 1u);
  BOOST_TEST(f.analysis.notes[0].find("'j#2'") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(fp64_trigonometry_calls_a_subroutine_with_a_loop) {
  auto f = analyze("rope_fp64_angles.bf16_t4_h8_d128.sm_90");
  BOOST_REQUIRE(f.analysis.main >= 0);
  BOOST_TEST(main_loop(f.analysis).trips_from == "assumed");
  auto m = loop_metrics(f.analysis);
  BOOST_TEST(m.at("loop.count") >= 1);
  // The subroutine runs once per call: far more than the kernel's own code.
  BOOST_TEST(f.analysis.block_cost > 5 * main_loop(f.analysis).cost * kAssumedTrips);
}

BOOST_AUTO_TEST_CASE(a_malformed_problem_is_an_error_naming_the_record) {
  auto bad = [](const char* text) {
    return error_message([&] { problem_from_record(parse_json(text, "r.json"), "r.json"); });
  };
  BOOST_TEST(bad(R"({"problem": {"grid": [0], "trips": []}})") ==
             "tileperf: error: r.json: problem: each grid dimension must be an integer from 1 to 2147483647\n");
  BOOST_TEST(bad(R"({"problem": {"grid": [4], "trips": [{"loop": "k"}]}})") ==
             "tileperf: error: r.json: problem: each trips entry needs 'loop', 'file', 'lines' and 'trips'\n");
  BOOST_TEST(!problem_from_record(parse_json("{}", "r.json"), "r.json").has_value());
}

BOOST_AUTO_TEST_CASE(a_helper_inlined_twice_takes_the_count_of_each_call) {
  // tile_sum's `for j` is inlined at two calls: 4 trips at the first, 8 at
  // the second (each copy is two compiled loops: the body and its remainder).
  const std::string base = "inlined_twice.f32_128.sm_90";
  std::istringstream in(fixture_of("13.5.37", base + ".sass"));
  SassListing listing = parse_sass(in, base + ".sass");
  std::string cubin = fixture_of("13.5.37", base + ".cubin");
  LineTable lines = read_line_table(cubin, parse_elf(cubin, base + ".cubin"), base + ".cubin");
  std::string dump = fixture_of("13.5.37", "inlined_twice.f32_128.dump.json");
  auto problem = problem_from_record(parse_json(dump, "dump.json"), "dump.json");
  BOOST_REQUIRE(problem.has_value());
  BOOST_TEST(problem->trips.at(1).calls.size() == 1u);
  auto analysis = analyze_loops(listing, {&lines, &*problem, 0});
  std::map<std::string, int> loops_of;
  for (const auto& l : analysis.loops) {
    ++loops_of[l.trips_from];
    BOOST_TEST(l.trips == (l.trips_from == "tile_sum.j@1" ? 4 : 8));
  }
  BOOST_TEST(loops_of["tile_sum.j@1"] == 2);
  BOOST_TEST(loops_of["tile_sum.j@2"] == 2);
  BOOST_TEST(analysis.notes.empty());
}

BOOST_AUTO_TEST_CASE(a_problem_that_no_longer_fits_is_an_error_at_its_declaration) {
  const char* record = R"({"problem_error": {"file": "tileperf/gemm.py", "line": 12,
      "message": "CONFIGS['f16'].problem.trips: trips key 'k': no 'for k in' loop"}})";
  BOOST_TEST(error_message([&] { problem_from_record(parse_json(record, "r.json"), "r.json"); }) ==
             "tileperf: error: tileperf/gemm.py:12: CONFIGS['f16'].problem.trips: trips key 'k': no 'for k in' loop\n");
}

BOOST_AUTO_TEST_CASE(a_record_per_architecture_gives_each_its_own_problem) {
  const char* text = R"({"problem": {"grid": [132], "trips": []}, "signature": {"a": "1"},
      "archs": {"sm_90": {"problem": {"grid": [132], "trips": []}},
                "sm_120": {"problem": {"grid": [188], "trips": []}, "signature": {"a": "2"},
                           "bytecode": "f.sm_120.tileirbc"}}})";
  auto record = parse_json(text, "r.json");
  auto sm_120 = record_for_arch(record, "sm_120", "r.json");
  BOOST_TEST(problem_from_record(sm_120, "r.json")->blocks == 188);
  BOOST_TEST(sm_120.at("signature").at("a") == "2");
  BOOST_TEST(sm_120.at("bytecode") == "f.sm_120.tileirbc");
  auto sm_90 = record_for_arch(record, "sm_90", "r.json");
  BOOST_TEST(problem_from_record(sm_90, "r.json")->blocks == 132);
  BOOST_TEST(sm_90.at("signature").at("a") == "1");
  BOOST_TEST(!sm_90.contains("bytecode"));
  BOOST_TEST(error_message([&] { record_for_arch(record, "sm_100", "r.json"); }) ==
             "tileperf: error: r.json: the configuration was exported for sm_120, sm_90 but not for "
             "sm_100: re-run the dump step\n");
}
