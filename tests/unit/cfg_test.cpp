// Control-flow graphs, dominators and natural loops: small listings written
// for the test, then the real ones of the fixtures.
#define BOOST_TEST_MODULE cfg
#include <boost/test/unit_test.hpp>

#include "analysis/cfg.h"
#include "analysis/counted_loops.h"
#include "fixtures.h"
#include "analysis/isa.h"
#include "readers/sass.h"

using namespace tileperf;
using namespace tileperf::testing;

namespace {

// The graph points into its listing: keep both.
struct Graph {
  SassListing listing;
  FunctionGraph g;
};

Graph graph_of(const std::vector<std::string>& code) {
  Graph out{synthetic_listing(code), {}};
  out.g = build_graph(out.listing.functions.at(0));
  return out;
}

std::size_t block_at(const FunctionGraph& g, std::uint64_t address) {
  for (std::size_t b = 0; b < g.blocks.size(); ++b) {
    if (g.block_address(b) == address) return b;
  }
  BOOST_FAIL("no block at " << address);
  return 0;
}

bool has_opcode(const FunctionGraph& g, const Loop& loop, std::string_view base) {
  for (std::size_t b : loop.blocks) {
    for (std::size_t i = g.blocks[b].begin; i < g.blocks[b].end; ++i) {
      if (base_opcode(g.instruction(i).opcode) == base) return true;
    }
  }
  return false;
}

SassListing fixture_listing(const std::string& name) {
  std::istringstream in(fixture(name));
  return parse_sass(in, name);
}

}  // namespace

BOOST_AUTO_TEST_CASE(straight_line_code_is_one_block_without_loops) {
  auto graph = graph_of({"MOV R1, 0x1", "IADD3 R2, R1, R1, RZ", "EXIT"});
  const auto& g = graph.g;
  BOOST_TEST(g.blocks.size() == 1u);
  BOOST_TEST(g.loops.empty());
  BOOST_TEST(g.blocks[0].successors.empty());
}

BOOST_AUTO_TEST_CASE(a_backward_branch_to_a_dominator_is_a_loop) {
  auto graph = graph_of({
      "MOV R1, RZ",                        // 0x00
      "IADD3 R1, R1, 0x1, RZ",             // 0x10 header
      "ISETP.GE.AND P0, PT, R1, 0x8, PT",  // 0x20
      "@!P0 BRA 0x10",                     // 0x30 back edge
      "EXIT",                              // 0x40
  });
  const auto& g = graph.g;
  BOOST_REQUIRE(g.loops.size() == 1u);
  const Loop& loop = g.loops[0];
  BOOST_TEST(g.block_address(loop.header) == 0x10u);
  BOOST_TEST(loop.blocks.size() == 1u);  // 0x10..0x30 is one block
  BOOST_TEST(loop.depth == 1);
  BOOST_TEST(!loop.spin);
  BOOST_TEST(g.dominates(block_at(g, 0x0), block_at(g, 0x10)));
  BOOST_TEST(!g.dominates(block_at(g, 0x40), block_at(g, 0x10)));
  // The predicated branch also falls through to the EXIT.
  BOOST_TEST(g.blocks[block_at(g, 0x10)].successors.size() == 2u);
}

BOOST_AUTO_TEST_CASE(nested_loops_have_parents_and_depths) {
  auto graph = graph_of({
      "MOV R1, RZ",                        // 0x00
      "MOV R2, RZ",                        // 0x10 outer header
      "IADD3 R2, R2, 0x1, RZ",             // 0x20 inner header
      "ISETP.GE.AND P0, PT, R2, 0x4, PT",  // 0x30
      "@!P0 BRA 0x20",                     // 0x40 inner back edge
      "IADD3 R1, R1, 0x1, RZ",             // 0x50
      "ISETP.GE.AND P1, PT, R1, 0x4, PT",  // 0x60
      "@!P1 BRA 0x10",                     // 0x70 outer back edge
      "EXIT",                              // 0x80
  });
  const auto& g = graph.g;
  BOOST_REQUIRE(g.loops.size() == 2u);
  const Loop& outer = g.loops[0];
  const Loop& inner = g.loops[1];
  BOOST_TEST(g.block_address(outer.header) == 0x10u);
  BOOST_TEST(g.block_address(inner.header) == 0x20u);
  BOOST_TEST(inner.parent == 0);
  BOOST_TEST(inner.depth == 2);
  BOOST_TEST(outer.children.size() == 1u);
  BOOST_TEST(g.innermost_loop[block_at(g, 0x20)] == 1);
  BOOST_TEST(g.innermost_loop[block_at(g, 0x50)] == 0);
  BOOST_TEST(g.innermost_loop[block_at(g, 0x80)] == -1);
  BOOST_TEST(g.own_blocks(0).size() == 2u);  // 0x10 and 0x50
}

BOOST_AUTO_TEST_CASE(an_out_of_line_retry_block_is_a_small_loop_of_its_own) {
  // The shape tileiras emits for a barrier wait: try once in line, branch to
  // a retry loop placed after the EXIT, and branch back when it succeeds.
  auto graph = graph_of({
      "MOV R2, RZ",                                            // 0x00
      "SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [UR4+0x30000], R2",  // 0x10
      "@!P0 BRA 0x50",                                         // 0x20 to the retry
      "FADD R3, R2, R2",                                       // 0x30 back here
      "EXIT",                                                  // 0x40
      "SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [UR4+0x30000], R2",  // 0x50 retry loop
      "@!P0 NANOSLEEP.SYNCS 0x989680",                         // 0x60
      "@!P0 BRA 0x50",                                         // 0x70
      "BRA 0x30",                                              // 0x80 back: not a loop
  });
  const auto& g = graph.g;
  BOOST_REQUIRE(g.loops.size() == 1u);
  BOOST_TEST(g.loops[0].spin);
  BOOST_TEST(g.block_address(g.loops[0].header) == 0x50u);
  BOOST_TEST(g.backward_non_loop_edges == 1u);
  BOOST_TEST(g.cold[block_at(g, 0x50)]);
  BOOST_TEST(g.cold[block_at(g, 0x80)]);  // reached only from the retry loop
  BOOST_TEST(!g.cold[block_at(g, 0x30)]);
  BOOST_TEST(g.innermost_loop[block_at(g, 0x30)] == -1);
}

BOOST_AUTO_TEST_CASE(a_loop_doing_work_beside_a_poll_is_not_a_retry_loop) {
  auto graph = graph_of({
      "SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [UR4+0x30000], R2",  // 0x00
      "LDS R4, [R2]",                                          // 0x10
      "@!P0 BRA 0x0",                                          // 0x20
      "EXIT",                                                  // 0x30
  });
  const auto& g = graph.g;
  BOOST_REQUIRE(g.loops.size() == 1u);
  BOOST_TEST(!g.loops[0].spin);
}

BOOST_AUTO_TEST_CASE(uniform_and_operand_predicates_make_a_branch_conditional) {
  auto graph = graph_of({
      "BRA.U !UP0, 0x30",  // 0x00: taken or falls through
      "MOV R1, RZ",        // 0x10
      "@P0 BRA P1, 0x40",  // 0x20: taken or falls through
      "MOV R2, RZ",        // 0x30
      "EXIT",              // 0x40
  });
  const auto& g = graph.g;
  BOOST_TEST(g.blocks[block_at(g, 0x00)].successors.size() == 2u);
  BOOST_TEST(g.blocks[block_at(g, 0x10)].successors.size() == 2u);
  auto unconditional = synthetic_listing({"BRA PT, 0x20", "MOV R1, RZ", "EXIT"});
  BOOST_TEST(!conditional(unconditional.functions[0].instructions[0]));
}

BOOST_AUTO_TEST_CASE(exits_returns_and_indirect_branches_end_blocks) {
  auto graph = graph_of({
      "@P0 EXIT",      // 0x00: predicated, falls through
      "BRX R4 -0x30",  // 0x10: indirect
      "MOV R1, RZ",    // 0x20: only reachable through the unknown target
      "EXIT",          // 0x30
  });
  const auto& g = graph.g;
  BOOST_TEST(g.blocks[block_at(g, 0x00)].successors.size() == 1u);
  BOOST_TEST(g.blocks[block_at(g, 0x10)].unknown_successors);
  BOOST_TEST(g.blocks[block_at(g, 0x10)].successors.empty());
  BOOST_TEST(!g.blocks[block_at(g, 0x20)].reachable);
}

BOOST_AUTO_TEST_CASE(a_call_target_is_a_subroutine_entry_with_its_own_dominators) {
  auto graph = graph_of({
      "CALL.REL.NOINC 0x30",    // 0x00
      "MOV R1, RZ",             // 0x10
      "EXIT",                   // 0x20
      "IADD3 R5, R5, 0x1, RZ",  // 0x30 subroutine, with a loop
      "@!P0 BRA 0x30",          // 0x40
      "RET.REL.NODEC R20 0x0",  // 0x50
  });
  const auto& g = graph.g;
  BOOST_TEST(g.entries.size() == 2u);
  BOOST_TEST(g.blocks[block_at(g, 0x30)].reachable);
  BOOST_TEST(g.idom[block_at(g, 0x30)] == -1);  // an entry
  BOOST_REQUIRE(g.loops.size() == 1u);
  BOOST_TEST(g.block_address(g.loops[0].header) == 0x30u);
  // The call does not end its block: 0x00..0x20 is one block.
  BOOST_TEST(g.blocks[0].end == 3u);
}

BOOST_AUTO_TEST_CASE(the_matmul_pipelines_have_their_loops_and_retry_loops) {
  struct Expect {
    const char* name;
    std::size_t loops, retry_loops, backward_non_loop;
    const char* mma;
  };
  // sm_100's ninth retry loop (of the tensor-memory allocation) sits in line.
  for (const Expect& e : {Expect{"matmul.f16_128x128x64.sm_90.sass", 2, 9, 9, "HGMMA"},
                          Expect{"matmul.f16_128x128x64.sm_100.sass", 2, 8, 7, "UTCHMMA"},
                          Expect{"matmul.f16_128x128x64.sm_120.sass", 2, 16, 16, "HMMA"}}) {
    auto listing = fixture_listing(e.name);
    auto g = build_graph(listing.functions.at(0));
    std::size_t loops = 0, retry = 0, with_mma = 0;
    for (const auto& loop : g.loops) {
      BOOST_TEST_INFO(e.name << " loop at " << g.block_address(loop.header));
      BOOST_TEST(!loop.contains(0));  // no loop swallows the kernel's entry
      if (loop.spin) {
        ++retry;
        BOOST_TEST(loop.blocks.size() == 1u);
        BOOST_TEST(g.blocks[loop.header].end - g.blocks[loop.header].begin <= 6u);
        continue;
      }
      ++loops;
      with_mma += has_opcode(g, loop, e.mma);
    }
    BOOST_TEST_INFO(e.name);
    BOOST_TEST(loops == e.loops);
    BOOST_TEST(retry == e.retry_loops);
    BOOST_TEST(with_mma == 1u);  // the consumer loop; the producer loop issues TMA copies
    BOOST_TEST(g.backward_non_loop_edges == e.backward_non_loop);
  }
}

// A loop the compiler counts with constants (a counter from zero, stepped
// by one, compared with 3) runs 3 trips; one compared with a register runs
// an unknown count.
BOOST_AUTO_TEST_CASE(a_loop_counted_with_constants_has_their_trips) {
  auto counted = graph_of({
      "MOV R5, RZ",                            // 0x00
      "IADD3 R5, R5, 0x1, RZ",                 // 0x10: the loop
      "FFMA R2, R2, R2, R2",                   // 0x20
      "ISETP.NE.U32.AND P2, PT, R5, 0x3, PT",  // 0x30
      "@P2 BRA 0x10",                          // 0x40
      "EXIT",                                  // 0x50
  });
  BOOST_REQUIRE(counted.g.loops.size() == 1u);
  auto trips = constant_trips(counted.g, 0);
  BOOST_REQUIRE(trips.has_value());
  BOOST_TEST(*trips == 3);
  auto bounded = graph_of({
      "MOV R5, RZ",
      "IADD3 R5, R5, 0x1, RZ",
      "FFMA R2, R2, R2, R2",
      "ISETP.NE.U32.AND P2, PT, R5, R6, PT",
      "@P2 BRA 0x10",
      "EXIT",
  });
  BOOST_TEST(!constant_trips(bounded.g, 0).has_value());
}
