// The cost model's table and the opcode classes behind it.
#define BOOST_TEST_MODULE cost_model
#include <boost/test/unit_test.hpp>

#include "analysis/cost_model.h"
#include "analysis/isa.h"

using namespace tileperf;

namespace {

double cost(const char* arch, const char* opcode, std::int64_t hint = 0) {
  SassInstruction insn;
  insn.opcode = opcode;
  return CostModel(arch, hint).cycles(insn);
}

}  // namespace

BOOST_AUTO_TEST_CASE(alu_instructions_cost_32_lanes_at_the_unit_rate_or_one_issue_slot) {
  BOOST_TEST(cost("sm_90a", "FFMA") == 0.25);        // 128 lanes/clk: the issue slot
  BOOST_TEST(cost("sm_90a", "IMAD.WIDE") == 0.5);    // 64/clk
  BOOST_TEST(cost("sm_90a", "MUFU.EX2") == 2.0);     // 16/clk
  BOOST_TEST(cost("sm_90a", "HFMA2") == 0.25);       // 64 fp16 results at 256/clk
  BOOST_TEST(cost("sm_100a", "FFMA2") == 0.5);       // 64 fp32 results at 128/clk
  BOOST_TEST(cost("sm_90a", "F2F.F64.F32") == 2.0);  // conversion to fp64: 16/clk
  BOOST_TEST(cost("sm_90a", "F2I.U32.TRUNC.NTZ") == 2.0);
  BOOST_TEST(cost("sm_90a", "F2FP.F16.F32.PACK_AB") == 0.5);
  BOOST_TEST(cost("sm_90a", "SHFL.BFLY") == 1.0);
}

BOOST_AUTO_TEST_CASE(fp64_is_half_rate_on_data_centre_parts_and_1_64_on_sm_120) {
  BOOST_TEST(cost("sm_90a", "DFMA") == 0.5);
  BOOST_TEST(cost("sm_100a", "DFMA") == 0.5);
  BOOST_TEST(cost("sm_120a", "DFMA") == 16.0);
  BOOST_TEST(cost("sm_120a", "F2F.F32.F64") == 16.0);
  BOOST_TEST(cost("sm_120a", "IMAD") == 0.25);  // unified fp32/int32 cores
}

BOOST_AUTO_TEST_CASE(tensor_core_instructions_cost_their_multiply_accumulates) {
  // 64x128x16 MACs for a warpgroup of four warps at 2048 MAC/clk/SM.
  BOOST_TEST(cost("sm_90a", "HGMMA.64x128x16.F32") == 16.0);
  // m16n8k16 per warp at 512 MAC/clk/SM.
  BOOST_TEST(cost("sm_120a", "HMMA.16816.F32.BF16") == 4.0);
  BOOST_TEST(cost("sm_120a", "HMMA.1688.F32.TF32") == 4.0);  // half the MACs at half the rate
  // tcgen05 names no shape: the remark's 128x128x16 at 4096 MAC/clk/SM.
  BOOST_TEST(cost("sm_100a", "UTCHMMA", 128 * 128 * 16) == 64.0);
  BOOST_TEST(cost("sm_100a", "UTCHMMA") == 0.25);         // no shape known: an issue slot
  BOOST_TEST(cost("sm_90a", "IMMA.16832.S8.S8") == 1.0);  // 8-bit: twice the rate
  BOOST_TEST(cost("sm_90a", "DMMA.884") == 2.0);
}

BOOST_AUTO_TEST_CASE(loads_and_stores_cost_their_bytes_at_l1_bandwidth) {
  BOOST_TEST(cost("sm_90a", "LDG.E.128") == 4.0);  // 32 lanes x 16 bytes / 128 B/clk
  BOOST_TEST(cost("sm_90a", "STS.64") == 2.0);
  BOOST_TEST(cost("sm_90a", "LDS") == 1.0);
  BOOST_TEST(cost("sm_90a", "LDSM.16.M88.4") == 4.0);
  BOOST_TEST(cost("sm_90a", "LDG.E.U8") == 0.25);
  BOOST_TEST(cost("sm_90a", "LDC.64") == 0.25);      // constant cache: a broadcast
  BOOST_TEST(cost("sm_90a", "UTMALDG.2D") == 0.25);  // TMA: the copy runs by itself
}

BOOST_AUTO_TEST_CASE(an_architecture_without_a_row_takes_the_nearest_below) {
  BOOST_TEST(CostModel("sm_89").rates().arch == "sm_86");
  BOOST_TEST(CostModel("sm_103a").rates().arch == "sm_100");
  BOOST_TEST(CostModel("sm_121a").rates().arch == "sm_120");
  BOOST_TEST(CostModel("sm_90").rates().arch == "sm_90");
}

BOOST_AUTO_TEST_CASE(opcode_classes_and_shapes) {
  auto cls = [](const char* op) { return std::string(op_class_name(op_class(op))); };
  BOOST_TEST(cls("UIADD3") == "uniform");
  BOOST_TEST(cls("UTMALDG.2D") == "async_copy");
  BOOST_TEST(cls("HGMMA.64x128x16.F32") == "tensor");
  BOOST_TEST(cls("SYNCS.PHASECHK.TRANS64.TRYWAIT") == "barrier");
  BOOST_TEST(cls("F2F.F64.F32") == "convert64");
  BOOST_TEST(cls("NOTANOPCODE") == "other");
  BOOST_TEST(mma_shape_macs("HGMMA.64x256x16.F32.BF16") == 64 * 256 * 16);
  BOOST_TEST(mma_shape_macs("HMMA.16816.F32") == 16 * 8 * 16);
  BOOST_TEST(mma_shape_macs("UTCHMMA") == 0);
  BOOST_TEST(access_bytes("LDG.E.64.CONSTANT") == 8);
  BOOST_TEST(is_poll("NANOSLEEP.SYNCS"));
  BOOST_TEST(!is_poll("SYNCS.ARRIVE.TRANS64"));
}
