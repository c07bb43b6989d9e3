#define BOOST_TEST_MODULE tileir
#include <boost/test/unit_test.hpp>

#include <fmt/format.h>

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

namespace {

std::string in_entry(const std::string& body) {
  return "entry @k(%arg0: tile<i32>) optimization_hints=<default = {}> {\n" + body + "  return\n}\n";
}

std::string repeated(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_bound_of_a_listing_is_a_located_error) {
  // Regions nested past 64 (the entry's is the first): 20,000 nested `if`s
  // once overflowed the stack.
  std::string ifs =
      "  %c = constant <i1: true> : tile<i1>\n" + repeated("  if %c {\n", 20000) + repeated("  }\n", 20000);
  BOOST_TEST(error_of_tileir(in_entry(ifs)) ==
             "tileperf: error: t.tileir:66: regions nested deeper than 64 levels\n  if %c {\n");
  std::string fors = repeated("  for %i in (%z to %n, step %o) : tile<i32> {\n", 63) + repeated("  }\n", 63);
  BOOST_CHECK_NO_THROW(parse_tileir(in_entry(fors), "t.tileir"));  // 64 levels: read
  // Results one line declares: "%a:65536" on a line of 13 KB once asked for 7 GB.
  BOOST_TEST(error_of_tileir(in_entry("  %a:65536 = get_tile_block_id : tile<i32>\n")) ==
             "tileperf: error: t.tileir:2: more than 1024 results declared on one line\n");
  BOOST_TEST(error_of_tileir(in_entry("  %a:600, %b:600 = get_tile_block_id : tile<i32>\n")) ==
             "tileperf: error: t.tileir:2: more than 1024 results declared on one line\n");
  BOOST_TEST(error_of_tileir(in_entry("  %a:x = get_tile_block_id : tile<i32>\n")) ==
             "tileperf: error: t.tileir:2: '%a:x' declares no number of results\n");
  // A location that names itself, or a chain of call sites that doubles at each step.
  std::string loc = in_entry("  %a = make_token : token loc(#loc1)\n") + "#loc1 = loc(callsite(#loc1 at #loc1))\n";
  BOOST_TEST(error_of_tileir(loc) ==
             "tileperf: error: t.tileir:5: location #loc1 refers to locations nested deeper than 64 (or to itself)\n");
  std::string chain = in_entry("  %a = make_token : token loc(#loc0)\n");
  for (int i = 0; i < 40; ++i) chain += fmt::format("#loc{} = loc(callsite(#loc{} at #loc{}))\n", i, i + 1, i + 1);
  chain += "#loc40 = loc(\"k.py\":1:1)\n";
  BOOST_TEST(error_of_tileir(chain) ==
             "tileperf: error: t.tileir:39: location #loc34 is inlined through more than 32 call sites\n");
}

BOOST_AUTO_TEST_CASE(scalar_literals_are_read_exactly_or_refused) {
  auto value = [](const std::string& literal, const std::string& type) {
    TileIrStats s = parse_tileir(in_entry("  %x = constant " + literal + " : tile<" + type + ">\n"), "t.tileir");
    return s.program.ops[0];
  };
  BOOST_TEST(value("<i64: 010>", "i64").int_value == 10);  // decimal, as MLIR reads it
  BOOST_TEST(value("<i64: 0x10>", "i64").int_value == 16);
  BOOST_TEST(value("<i64: -9223372036854775808>", "i64").int_value == INT64_MIN);
  BOOST_TEST(value("<i32: 4294967295>", "i32").int_value == 4294967295);  // unsigned: wrapped to -1 when used
  BOOST_TEST(value("<f16: 0x3C00>", "f16").float_value == 1.0);
  BOOST_TEST(value("<bf16: 0xC000>", "bf16").float_value == -2.0);
  BOOST_TEST(value("<f32: 2.500000e+00>", "f32").float_value == 2.5);
  BOOST_TEST(!value("<f32: 0.0>", "128xf32").has_value);  // a tile's constant is not a scalar's
  auto refused = [](const std::string& literal, const std::string& type) {
    return error_of_tileir(in_entry("  %x = constant " + literal + " : tile<" + type + ">\n"));
  };
  BOOST_TEST(refused("<i64: 99999999999999999999999>", "i64") ==
             "tileperf: error: t.tileir:2: constant <i64: 99999999999999999999999> does not fit 64 bits\n");
  BOOST_TEST(refused("<i32: 4294967296>", "i32") ==
             "tileperf: error: t.tileir:2: constant <i32: 4294967296> does not fit 32 bits\n");
  BOOST_TEST(refused("<i32: -2147483649>", "i32") ==
             "tileperf: error: t.tileir:2: constant <i32: -2147483649> does not fit 32 bits\n");
  BOOST_TEST(refused("<i32: 12abc>", "i32") ==
             "tileperf: error: t.tileir:2: constant <i32: 12abc> is not an integer\n");
  BOOST_TEST(refused("<f32: 1.5x>", "f32") == "tileperf: error: t.tileir:2: constant <f32: 1.5x> is not a number\n");
  BOOST_TEST(refused("<f16: 0x10000>", "f16") ==
             "tileperf: error: t.tileir:2: constant <f16: 0x10000> is not the bits of a 16-bit float\n");
}
