#define BOOST_TEST_MODULE tileir
#include <boost/test/unit_test.hpp>

#include "fixtures.h"
#include "metrics/tileir_metrics.h"
#include "readers/tileir.h"

using namespace tileperf;
using namespace tileperf::testing;

namespace {

std::string error_of_tileir(const std::string& text) {
  return error_message([&] { parse_tileir(text, "t.tileir"); });
}

const std::string kLoop =
    "entry @k(%arg0: tile<ptr<f16>>) optimization_hints=<default = {}> {\n"
    "  %0 = make_token : token\n"
    "  %for:2 = for %i in (%a to %b, step %c) : tile<i32> iter_values(%t = %0) -> (token) {\n"
    "    %tile, %tok = load_view_tko weak %v[%i] token = %t : x -> tile<16xf16>, token\n"
    "    %s = store_view_tko weak %tile, %w[%i] token = %tok : tile<16xf16>, y -> token\n"
    "    %j = join_tokens %tok, %s : token\n"
    "    continue %j : token\n"
    "  }\n"
    "  %r = reduce %x dim=0 identities=[0.0 : f32] : tile<16xf32> -> tile<f32>\n"
    "  (%lhs: tile<f32>, %rhs: tile<f32>) {\n"
    "    %y = addf %lhs, %rhs : tile<f32>\n"
    "    yield %y : tile<f32>\n"
    "  }\n"
    "  return\n"
    "}\n";

}  // namespace

BOOST_AUTO_TEST_CASE(real_listing) {
  auto stats = parse_tileir(fixture("gelu.f16_1024.tileir"), "gelu.tileir");
  BOOST_TEST(stats.entries == 1);
  BOOST_TEST(stats.ops.at("make_token") == 1);
  BOOST_TEST(stats.ops.at("load_view_tko") == 1);
  BOOST_TEST(stats.ops.at("store_view_tko") == 1);
  BOOST_TEST(stats.ops.at("tanh") == 1);
  BOOST_TEST(stats.ops.at("return") == 1);
  BOOST_TEST(stats.token_ordered == 2);
  BOOST_TEST(stats.token_chained == 0);  // both use the fresh token
  auto m = tileir_metrics(stats);
  BOOST_TEST(m.at("tileir.op.tanh") == 1);
  BOOST_TEST(m.at("tileir.tokens.ordered") == 2);
}

BOOST_AUTO_TEST_CASE(regions_and_token_chains) {
  auto stats = parse_tileir(kLoop, "t.tileir");
  BOOST_TEST(stats.ops.at("for") == 1);
  BOOST_TEST(stats.ops.at("reduce") == 1);
  BOOST_TEST(stats.ops.at("addf") == 1);
  BOOST_TEST(stats.ops.at("join_tokens") == 1);
  BOOST_TEST(stats.ops.at("continue") == 1);
  BOOST_TEST(stats.token_ordered == 2);
  BOOST_TEST(stats.token_chained == 2);  // from the loop-carried token, then from the load
  BOOST_TEST(tileir_metrics(stats).at("tileir.ops") == 10);
}

BOOST_AUTO_TEST_CASE(real_listing_with_reductions) {
  auto stats = parse_tileir(fixture("softmax.f16_1024.tileir"), "softmax.tileir");
  BOOST_TEST(stats.ops.at("reduce") == 2);
  BOOST_TEST(stats.ops.at("yield") == 2);
  BOOST_TEST(stats.ops.at("exp2") == 1);
}

BOOST_AUTO_TEST_CASE(truncated_listing) {
  std::string cut = first_lines(fixture("softmax.f16_1024.tileir"), 40);
  BOOST_TEST(error_of_tileir(cut) == "tileperf: error: t.tileir:40: TileIR is truncated: 1 region(s) not closed\n");
}

BOOST_AUTO_TEST_CASE(malformed_listing) {
  BOOST_TEST(error_of_tileir("  %0 = make_token : token\n") ==
             "tileperf: error: t.tileir:1: operation outside an entry\n  %0 = make_token : token\n");
  std::string bad = kLoop;
  bad.insert(bad.find("  return"), "  @@@ nonsense\n");
  BOOST_TEST(error_of_tileir(bad) == "tileperf: error: t.tileir:14: unrecognized line in TileIR\n  @@@ nonsense\n");
  BOOST_TEST(error_of_tileir(kLoop + "}\n") == "tileperf: error: t.tileir:16: '}' closes no region\n}\n");
  BOOST_TEST(error_of_tileir("") == "tileperf: error: t.tileir: no entry in TileIR\n");
}

BOOST_AUTO_TEST_CASE(real_listing_with_loops_and_a_token_chain) {
  auto stats = parse_tileir(fixture("persistent_matmul.bf16_128x128x64.tileir"), "pm.tileir");
  BOOST_TEST(stats.ops.at("for") == 2);  // the persistent loop and the K loop
  BOOST_TEST(stats.ops.at("mmaf") == 1);
  BOOST_TEST(stats.ops.at("load_view_tko") == 2);
  BOOST_TEST(stats.ops.at("store_view_tko") == 1);
  BOOST_TEST(stats.token_ordered == 3);
  BOOST_TEST(stats.token_chained == 1);  // the store follows the previous tile's store
}

BOOST_AUTO_TEST_CASE(with_locations_each_memory_operation_has_its_bytes_line_and_loops) {
  auto stats = parse_tileir(fixture_of("13.5.37", "matmul.f16_128x128x64.g.tileir"), "mm.tileir");
  // The same operations as without -g.
  BOOST_TEST(stats.ops.at("load_view_tko") == 2);
  BOOST_TEST(stats.ops.at("store_view_tko") == 1);
  BOOST_REQUIRE(stats.memory.size() == 3u);
  const auto& a = stats.memory[0];
  BOOST_TEST(a.name == "load_view_tko");
  BOOST_TEST(!a.store);
  BOOST_TEST(a.bytes == 128 * 64 * 2);  // tile<128x64xf16>
  BOOST_TEST(a.file == "/src/kernels/matmul.py");
  BOOST_TEST(a.line == 36);
  BOOST_TEST(a.loops == std::vector<int>{35});  // for k in range(...)
  BOOST_TEST(stats.memory[1].line == 37);
  BOOST_TEST(stats.memory[1].bytes == 64 * 128 * 2);
  const auto& c = stats.memory[2];
  BOOST_TEST(c.store);
  BOOST_TEST(c.bytes == 128 * 128 * 2);
  BOOST_TEST(c.line == 39);
  BOOST_TEST(c.loops.empty());
}

BOOST_AUTO_TEST_CASE(nested_loops_are_listed_outermost_first) {
  auto stats = parse_tileir(fixture_of("13.5.37", "persistent_matmul.bf16_128x128x64.g.tileir"), "pm.tileir");
  BOOST_TEST(stats.ops.at("for") == 2);
  std::vector<std::vector<int>> loops;
  for (const auto& m : stats.memory) loops.push_back(m.loops);
  // The tiles of A and B inside both loops (tile, then k); C's store in the tile loop.
  BOOST_TEST(loops.size() == 3u);
  BOOST_TEST(loops[0].size() == 2u);
  BOOST_TEST(loops[0][0] < loops[0][1]);
  BOOST_TEST(loops[2].size() == 1u);
  BOOST_TEST(loops[2][0] == loops[0][0]);
}

BOOST_AUTO_TEST_CASE(tile_types_give_their_bytes) {
  BOOST_TEST(tile_type_bytes("tile<128x64xf16>") == 16384);
  BOOST_TEST(tile_type_bytes("tile<64xbf16>") == 128);
  BOOST_TEST(tile_type_bytes("tile<32x32xf32>") == 4096);
  BOOST_TEST(tile_type_bytes("tile<16x16xf8E4M3FN>") == 256);
  BOOST_TEST(tile_type_bytes("tile<64xf4E2M1FN>") == 32);
  BOOST_TEST(tile_type_bytes("tile<f32>") == 4);
  BOOST_TEST(tile_type_bytes("tile<4x4xptr<f16>>") == 128);
  BOOST_TEST(tile_type_bytes("token") == 0);
}
