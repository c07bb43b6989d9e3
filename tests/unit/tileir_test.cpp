#define BOOST_TEST_MODULE tileir
#include <boost/test/unit_test.hpp>

#include "fixtures.h"
#include "tileir.h"

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
  BOOST_TEST(error_of_tileir(cut) ==
             "tileperf: error: t.tileir:40: TileIR is truncated: 1 region(s) not closed\n");
}

BOOST_AUTO_TEST_CASE(malformed_listing) {
  BOOST_TEST(error_of_tileir("  %0 = make_token : token\n") ==
             "tileperf: error: t.tileir:1: operation outside an entry\n  %0 = make_token : token\n");
  std::string bad = kLoop;
  bad.insert(bad.find("  return"), "  @@@ nonsense\n");
  BOOST_TEST(error_of_tileir(bad) ==
             "tileperf: error: t.tileir:14: unrecognized line in TileIR\n  @@@ nonsense\n");
  BOOST_TEST(error_of_tileir(kLoop + "}\n") ==
             "tileperf: error: t.tileir:16: '}' closes no region\n}\n");
  BOOST_TEST(error_of_tileir("") == "tileperf: error: t.tileir: no entry in TileIR\n");
}

BOOST_AUTO_TEST_CASE(real_listing_with_loops_and_a_token_chain) {
  auto stats = parse_tileir(fixture("persistent_matmul.bf16_128x128x64.tileir"), "pm.tileir");
  BOOST_TEST(stats.ops.at("for") == 2);      // the persistent loop and the K loop
  BOOST_TEST(stats.ops.at("mmaf") == 1);
  BOOST_TEST(stats.ops.at("load_view_tko") == 2);
  BOOST_TEST(stats.ops.at("store_view_tko") == 1);
  BOOST_TEST(stats.token_ordered == 3);
  BOOST_TEST(stats.token_chained == 1);      // the store follows the previous tile's store
}
