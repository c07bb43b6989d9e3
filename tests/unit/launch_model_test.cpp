// The launch model and what it is made of: warp roles, the replay of a
// warp's schedule, occupancy, waves and the terms, on listings written with
// known answers, on the captured matmul, and the architecture table against
// the H200 calibration it cites.
#define BOOST_TEST_MODULE launch_model
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdio>

#include "model/launch_model.h"
#include "analysis/loops.h"
#include "model/timeline.h"
#include "analysis/warps.h"
#include "fixtures.h"
#include "metrics/dump_record.h"
#include "metrics/measure.h"
#include "metrics/metrics.h"
#include "readers/elf.h"
#include "readers/line_table.h"
#include "readers/resusage.h"
#include "support/json_input.h"
#include "report/launch_picture.h"
#include "metrics/model_metrics.h"

using namespace tileperf;
using namespace tileperf::testing;

namespace {

using Insn = ListingInsn;

SassListing listing_of(const std::vector<Insn>& code) { return synthetic_listing_with_bits(code); }

struct Analysed {
  SassListing listing;
  LoopAnalysis loops;
  std::vector<FunctionFlow> flows;
};

// `listing` is kept in the result: the flows point into it.
void analyse(Analysed& a, int warps) { a.loops = analyze_loops(a.listing, {nullptr, nullptr, 0, warps}, &a.flows); }

Latencies latencies() {
  Latencies l;
  l.global_load = 600;
  l.shared = 30;
  l.other = 20;
  l.operand_read = 10;
  l.barrier = 70;
  l.tma_load = 400;
  l.mma_macs_per_cycle = 2048;
  return l;
}

double replay(const Analysed& a) {
  TimelineInputs in{&a.listing, &a.flows, &a.loops, nullptr, nullptr, latencies(), 0, true};
  return replay_block(in).cycles;
}

}  // namespace

BOOST_AUTO_TEST_CASE(warp_roles_follow_the_thread_index_through_shifts_comparisons_and_branches) {
  Analysed a;
  a.listing = listing_of({
      {"S2R R0, SR_TID.X"},                      // 0x00
      {"SHF.R.U32.HI R1, RZ, 0x5, R0"},          // 0x10: the warp index
      {"ISETP.GT.U32.AND P0, PT, R1, 0x3, PT"},  // 0x20
      {"@P0 BRA 0x60"},                          // 0x30: warps 4-7 to the producer
      {"FFMA R2, R2, R2, R2"},                   // 0x40: consumers
      {"EXIT"},                                  // 0x50
      {"ISETP.NE.U32.AND P1, PT, R1, 0x4, PT"},  // 0x60
      {"@P1 EXIT"},                              // 0x70: warps 5-7 leave
      {"MOV R3, RZ"},                            // 0x80: warp 4 alone
      {"EXIT"},                                  // 0x90
  });
  analyse(a, 8);
  const FunctionFlow& f = a.flows.front();
  auto mask_at = [&](std::uint64_t address) {
    for (std::size_t b = 0; b < f.graph.blocks.size(); ++b) {
      if (f.graph.block_address(b) == address) return f.warps[b];
    }
    return WarpMask(0xdead);
  };
  BOOST_TEST(mask_at(0x00) == 0xffu);
  BOOST_TEST(mask_at(0x40) == 0x0fu);
  BOOST_TEST(mask_at(0x60) == 0xf0u);
  BOOST_TEST(mask_at(0x80) == 0x10u);
  BOOST_TEST(format_warps(0x0fu) == "warps 0-3");
  BOOST_TEST(format_warps(0x10u) == "warp 4");
  BOOST_TEST(format_warps(0x13u) == "warps 0-1, 4");
}

BOOST_AUTO_TEST_CASE(a_predicate_copied_through_plop3_still_splits_the_warps) {
  Analysed a;
  a.listing = listing_of({
      {"S2R R0, SR_TID.X"},
      {"SHF.R.U32.HI R1, RZ, 0x5, R0"},
      {"R2UR UR4, R1"},
      {"UISETP.GT.U32.AND UP0, UPT, UR4, 0x3, UPT"},
      {"PLOP3.LUT P0, PT, PT, PT, UP0, 0x80, 0x0"},  // P0 = UP0
      {"@P0 BRA 0x80"},
      {"FFMA R2, R2, R2, R2"},
      {"EXIT"},
      {"MOV R3, RZ"},  // 0x80
      {"EXIT"},
  });
  analyse(a, 8);
  const FunctionFlow& f = a.flows.front();
  BOOST_TEST(f.warps.back() == 0xf0u);  // the block at 0x80
}

namespace {

// One warp-specialised kernel in the two forms register allocation gives it
// (FlashInfer's MXFP8 grouped quantizer and `_i64` GEMMs): the warp index
// moved to a uniform register and compared there (R2UR UR21, R2 ...
// UISETP ... UR21, 0x4), or kept in a plain one (ISETP ... R3, 0x4); the
// consumer warps 0-3 run one loop, warp 4 the producer loop, warps 5-7
// leave.
std::vector<Insn> specialised_kernel(bool uniform) {
  auto pick = [&](const char* u, const char* p) { return Insn{uniform ? u : p}; };
  return {
      {"S2R R0, SR_TID.X"},                                  // 0x00
      {"SHF.R.U32.HI R2, RZ, 0x5, R0"},                      // 0x10
      pick("R2UR UR21, R2", "IMAD.MOV.U32 R3, RZ, RZ, R2"),  // 0x20
      pick("UISETP.GT.U32.AND UP0, UPT, UR21, 0x3, UPT",     // 0x30
           "ISETP.GT.U32.AND P3, PT, R3, 0x3, PT"),
      pick("BRA.U UP0, 0xa0", "@P3 BRA 0xa0"),            // 0x40
      {"FFMA R4, R4, R4, R4"},                            // 0x50: consumers
      {"IADD3 R5, R5, 0x1, RZ"},                          // 0x60
      {"ISETP.NE.AND P1, PT, R5, R6, PT"},                // 0x70
      {"@P1 BRA 0x50"},                                   // 0x80
      {"EXIT"},                                           // 0x90
      pick("UISETP.NE.U32.AND UP1, UPT, UR21, 0x4, UPT",  // 0xa0
           "ISETP.NE.U32.AND P2, PT, R3, 0x4, PT"),
      pick("PLOP3.LUT P0, PT, PT, PT, UP1, 0x80, 0x0",  // 0xb0
           "PLOP3.LUT P0, PT, PT, PT, P2, 0x80, 0x0"),
      {"@P0 EXIT"},                         // 0xc0
      {"LDG.E R7, desc[UR4][R8.64]"},       // 0xd0: the producer
      {"IADD3 R9, R9, 0x1, RZ"},            // 0xe0
      {"ISETP.NE.AND P1, PT, R9, R6, PT"},  // 0xf0
      {"@P1 BRA 0xd0"},                     // 0x100
      {"EXIT"},                             // 0x110
  };
}

}  // namespace

BOOST_AUTO_TEST_CASE(warp_roles_are_the_same_whether_the_warp_index_is_in_a_uniform_or_a_plain_register) {
  Analysed in_uniform, in_plain;
  in_uniform.listing = listing_of(specialised_kernel(true));
  in_plain.listing = listing_of(specialised_kernel(false));
  analyse(in_uniform, 8);
  analyse(in_plain, 8);
  BOOST_TEST(in_uniform.flows.front().warps == in_plain.flows.front().warps);
  BOOST_REQUIRE(in_uniform.loops.loops.size() == 2u);
  BOOST_TEST(format_warps(in_uniform.loops.loops[0].warps) == "warps 0-3");
  BOOST_TEST(format_warps(in_uniform.loops.loops[1].warps) == "warp 4");
  BOOST_TEST(format_warps(in_plain.loops.loops[1].warps) == "warp 4");
  double uniform = replay(in_uniform), plain = replay(in_plain);
  BOOST_TEST(uniform == plain, boost::test_tools::tolerance(0.01));
}

BOOST_AUTO_TEST_CASE(a_branch_on_an_unknown_predicate_keeps_every_warp_on_both_sides) {
  Analysed a;
  a.listing = listing_of({
      {"LDC R0, c[0x0][0x0]"},
      {"ISETP.GT.U32.AND P0, PT, R0, 0x3, PT"},
      {"@P0 BRA 0x40"},
      {"FFMA R2, R2, R2, R2"},
      {"EXIT"},  // 0x40
  });
  analyse(a, 4);
  for (WarpMask m : a.flows.front().warps) BOOST_TEST(m == 0xfu);
}

BOOST_AUTO_TEST_CASE(a_load_waited_for_at_once_costs_its_latency_and_one_issued_early_hides_it) {
  // load, wait, use: the warp waits the load's latency.
  Analysed serial;
  serial.listing = listing_of({
      {"LDG.E R2, desc[UR4][R4.64]", 1, 0},
      {"FADD R3, R2, R2", 4, -1, -1, 0x1},
      {"EXIT"},
  });
  analyse(serial, 1);
  BOOST_TEST(replay(serial) >= 600);
  // load, 40 independent instructions of 16 cycles, then use: hidden.
  std::vector<Insn> early{{"LDG.E R2, desc[UR4][R4.64]", 1, 0}};
  for (int i = 0; i < 40; ++i) early.push_back({"FFMA R5, R5, R5, R5", 15});
  early.push_back({"FADD R3, R2, R2", 4, -1, -1, 0x1});
  early.push_back({"EXIT"});
  Analysed hidden;
  hidden.listing = listing_of(early);
  analyse(hidden, 1);
  double t = replay(hidden);
  BOOST_TEST(t >= 40 * 15);
  BOOST_TEST(t < 40 * 15 + 100);
}

BOOST_AUTO_TEST_CASE(a_scoreboard_field_of_6_names_no_scoreboard) {
  // The wait mask has six bits: a write or read field of 6 (once written
  // past the replay's six scoreboards) is released when written and waited
  // for by nobody; the wait on SB0 still costs the load's latency.
  Analysed a;
  a.listing = listing_of({
      {"LDG.E R2, desc[UR4][R4.64]", 1, 0},
      {"LDG.E R6, desc[UR4][R8.64]", 1, 6, 6},
      {"FADD R3, R2, R2", 4, -1, -1, 0x3f},
      {"EXIT"},
  });
  analyse(a, 1);
  BOOST_TEST(a.listing.functions[0].instructions[1].control.write_scoreboard == 6);
  double t = replay(a);
  BOOST_TEST(t >= 600);
  BOOST_TEST(t < 700);
}

BOOST_AUTO_TEST_CASE(a_loop_body_is_replayed_and_its_steady_iteration_drawn) {
  // The default 16 trips of a loop that loads, waits and adds.
  Analysed a;
  a.listing = listing_of({
      {"MOV R1, RZ"},                         // 0x00
      {"LDG.E R2, desc[UR4][R4.64]", 1, 0},   // 0x10 header
      {"FADD R3, R2, R3", 4, -1, -1, 0x1},    // 0x20
      {"IADD3 R1, R1, 0x1, RZ"},              // 0x30
      {"ISETP.GE.AND P0, PT, R1, 0x10, PT"},  // 0x40
      {"@!P0 BRA 0x10"},                      // 0x50
      {"EXIT"},                               // 0x60
  });
  analyse(a, 1);
  TimelineInputs in{&a.listing, &a.flows, &a.loops, nullptr, nullptr, latencies(), 0, true};
  BlockTimeline t = replay_block(in);
  BOOST_REQUIRE(a.loops.main >= 0);
  const LoopTimeline& loop = t.loops.at(static_cast<std::size_t>(a.loops.main));
  BOOST_TEST(loop.cycles_per_iteration >= 600);
  BOOST_TEST(t.cycles >= 16 * 600);
  BOOST_TEST(loop_overlap(loop) < 0.1);  // load, wait, compute: nothing overlaps
  std::string picture = format_gantt(loop, 40);
  BOOST_TEST(picture.find("LDG.E") != std::string::npos);
  BOOST_TEST(picture.find("waits") != std::string::npos);
  BOOST_TEST(picture.find("<- 0x0010 (this iteration)") != std::string::npos);
  auto j = timeline_json(loop);
  BOOST_TEST(j.at("events").size() == 5u);
}

BOOST_AUTO_TEST_CASE(latencies_are_set_by_name_and_an_unknown_name_is_refused) {
  Latencies l;
  BOOST_TEST(set_latency(l, "mma_result", 42));
  BOOST_TEST(l.mma_result == 42);
  BOOST_TEST(!set_latency(l, "mma", 1));
}

BOOST_AUTO_TEST_CASE(the_architecture_table_is_the_calibration_it_cites) {
  auto cal = parse_json(read_file(std::string(TILEPERF_SOURCE_DIR) + "/tools/bench/h200_calibration.json"),
                        "h200_calibration.json");
  auto m = [&](const char* key) { return cal.at("measurements").at(key).at("value").get<double>(); };
  const ArchSpec& s = arch_spec("sm_90a");
  BOOST_TEST(s.arch == "sm_90");
  BOOST_TEST(s.sms == cal.at("multiprocessors").get<int>());
  auto near = [](double a, double b, double rel) { return std::abs(a - b) <= rel * std::abs(b); };
  BOOST_TEST(near(s.clock_ghz, m("sm_clock_ghz"), 0.01));
  BOOST_TEST(near(s.dram_read_gbs, std::max(m("dram_read_gbs"), m("dram_bulk2_gbs")), 0.01));
  BOOST_TEST(near(s.dram_write_gbs, m("dram_write_gbs"), 0.01));
  BOOST_TEST(near(s.dram_copy_gbs, m("dram_copy_gbs"), 0.01));
  BOOST_TEST(near(s.l2_gbs, m("l2_bulk2_gbs"), 0.01));
  BOOST_TEST(near(s.launch_us, m("launch_empty_us"), 0.05));
  BOOST_TEST(near(s.dispatch_ns, m("block_dispatch_ns_per_sm"), 0.02));
  BOOST_TEST(near(s.latency.global_load, m("dram_latency_cycles"), 0.02));
  BOOST_TEST(near(s.l2_latency, m("l2_latency_cycles"), 0.02));
  BOOST_TEST(near(s.latency.shared, m("shared_latency_cycles"), 0.03));
  BOOST_TEST(near(s.latency.shuffle, m("shfl_latency_cycles"), 0.03));
  BOOST_TEST(near(s.latency.mufu, m("mufu_latency_cycles"), 0.03));
  BOOST_TEST(near(s.latency.barrier, m("bar_sync_cycles"), 0.03));
  BOOST_TEST(near(s.latency.tma_load + 4 * s.latency.tma_load_per_kib, m("tma_load_latency_4k_cycles"), 0.01));
  BOOST_TEST(near(s.latency.tma_load + 16 * s.latency.tma_load_per_kib, m("tma_load_latency_16k_cycles"), 0.01));
  BOOST_TEST(near(s.latency.tma_store + 4 * s.latency.tma_store_per_kib, m("tma_store_latency_4k_cycles"), 0.01));
  BOOST_TEST(near(s.latency.tma_store + 16 * s.latency.tma_store_per_kib, m("tma_store_latency_16k_cycles"), 0.01));
  double tensor = m("gemm_fp16_tflops") * 1e12 / (2 * s.sms * s.clock_ghz * 1e9);
  BOOST_TEST(near(s.tensor_macs, tensor, 0.01));
  double chain128 = 64.0 * 128 * 64 / (m("wgmma_64x128_accumulate_ns") * m("sm_clock_ghz"));
  double chain64 = 64.0 * 64 * 64 / (m("wgmma_64x64_accumulate_ns") * m("sm_clock_ghz"));
  BOOST_TEST(near(s.latency.mma_macs_per_cycle, (chain128 + chain64) / 2, 0.01));
}

namespace {

const std::string kMatmul = "matmul.f16_128x128x64.sm_90";

// The captured matmul's listing and resource usage (tileiras 13.4.92, sm_90).
ToolOutputs matmul_outputs() {
  ToolOutputs o;
  o.sass_text = fixture(kMatmul + ".sass");
  o.sass_name = kMatmul + ".sass";
  o.res_usage_text = fixture(kMatmul + ".res-usage.txt");
  o.res_usage_name = kMatmul + ".res-usage.txt";
  return o;
}

// The captured matmul measured as a check would.
Measurement captured_matmul() {
  const std::string& base = kMatmul;
  ToolOutputs o = matmul_outputs();
  o.remarks_text = fixture(base + ".remarks.yaml");
  o.remarks_name = base + ".remarks.yaml";
  static std::optional<Problem> problem;
  problem = problem_from_record(parse_json(fixture("matmul.f16_128x128x64.dump.json"), "dump.json"), "dump.json");
  return measure(o, fixture_path(base + ".cubin"), &*problem, true);
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_captured_matmul_is_tensor_bound_one_block_per_sm_in_32_waves) {
  Measurement m = captured_matmul();
  const LaunchEstimate& e = m.launch;
  BOOST_TEST(e.threads == 256);
  BOOST_TEST(e.resident == 1);
  BOOST_TEST(e.occupancy_limit == "registers");
  BOOST_TEST(e.ctas == 4096);
  BOOST_TEST(e.waves == 32);  // 4096 CTAs over 132 SMs
  BOOST_TEST(e.busiest_pipe == "tensor");
  // 128 steps of eight 64x128x16 MMAs per CTA at the measured rate (and the
  // first step's, peeled before the loop).
  double step = 8.0 * 64 * 128 * 16 / e.spec->tensor_macs;
  BOOST_TEST(e.pipes.at("tensor") >= 128 * step - 1);
  BOOST_TEST(e.pipes.at("tensor") <= 129 * step + 1);
  BOOST_TEST(e.overlap == 1.0);  // the producer warp's TMA pipeline feeds the MMA warps
  auto metrics = launch_metrics(e);
  BOOST_TEST(metrics.at("launch.blocks_per_sm") == 1);
  BOOST_TEST(metrics.at("loop.main.overlap_pct") == 100);
  BOOST_TEST(metrics.count("cost.limit." + e.limit) == 1u);
  // The cost model's cycles of every block: one class, the block's times 4096.
  BOOST_TEST(metrics.at("cost.launch") == std::llround(m.loops.block_cost * 4096));
  BOOST_TEST(m.values.at("cost.launch") == metrics.at("cost.launch"));
  BOOST_TEST(describe_launch(e).find("tensor-bound: 1 block(s)/SM (registers), 32 wave(s)") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(fewer_registers_let_more_blocks_reside_and_the_waves_fall) {
  Measurement m = captured_matmul();
  // The same code with a fourth of the registers and shared memory: the
  // occupancy a hint would buy.
  ToolOutputs o;
  const std::string base = "matmul.f16_128x128x64.sm_90";
  o.sass_text = fixture(base + ".sass");
  o.sass_name = base + ".sass";
  o.res_usage_text =
      "Resource usage:\n Function matmul:\n  REG:64 STACK:0 SHARED:49152 LOCAL:0 CONSTANT[0]:1024 "
      "TEXTURE:0 SURFACE:0 SAMPLER:0\n";
  o.res_usage_name = "res-usage.txt";
  auto problem = problem_from_record(parse_json(fixture("matmul.f16_128x128x64.dump.json"), "dump.json"), "dump.json");
  Measurement four = measure(o, fixture_path(base + ".cubin"), &*problem);
  BOOST_TEST(four.launch.resident == 4);
  BOOST_TEST(four.launch.waves == 8);
  BOOST_TEST(four.launch.total_us <= m.launch.total_us);
}

BOOST_AUTO_TEST_CASE(every_figure_of_a_legal_launch_however_large_reads_back) {
  // The captured matmul over a grid of [2^20, 2^20] whose loop runs 2^31 - 1
  // times: cost.time_ns once came out as INT64_MIN, and a K of 2^31 - 64
  // wrote a baseline the next check refused. Figures past kMaxCount hold
  // there, and the metrics file reads back.
  ToolOutputs o = matmul_outputs();
  nlohmann::json record = parse_json(fixture("matmul.f16_128x128x64.dump.json"), "dump.json");
  record["problem"]["grid"] = {1 << 20, 1 << 20};
  record["problem"]["trips"][0]["trips"] = 2147483647;
  Problem problem = *problem_from_record(record, "dump.json");
  Measurement m = measure(o, fixture_path(kMatmul + ".cubin"), &problem);
  BOOST_TEST(m.values.at("cost.time_ns") == kMaxCount);
  for (const auto& [name, value] : m.values) {
    BOOST_TEST((value >= 0 && value <= kMaxCount), name << " = " << value);
  }
  Metrics metrics;
  metrics.id = {"matmul", "f16_128x128x64", "sm_90"};
  metrics.values = m.values;
  Metrics back = metrics_from_json(parse_json(to_json_text(metrics), "m.json"), "m.json");
  BOOST_TEST((back.values == metrics.values));
}
