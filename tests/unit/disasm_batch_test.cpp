// The listings of one nvdisasm call for many cubins (disasm_batch.h) hold
// what the per-cubin listing holds: every instruction (address, predicate,
// opcode, operands, both encoding words and so the control bits), the branch
// targets, the line of each instruction and the functions, and the metrics
// made from them are byte for byte the same. On every captured cubin, and on
// every cubin in the folders of TILEPERF_CUBIN_DIRS (colon-separated,
// searched recursively). With TILEPERF_LISTINGS=beside the per-cubin listing
// of those is the <stem>.sass beside each cubin (what a check with the cache
// off wrote), else nvdisasm makes it now.
#define BOOST_TEST_MODULE disasm_batch
#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "metrics/disasm_batch.h"
#include "metrics/measure.h"
#include "metrics/metrics.h"
#include "readers/sass.h"
#include "real_tools.h"
#include "support/error.h"
#include "support/text.h"
#include "toolchain/toolchain.h"

using namespace tileperf;
namespace fs = std::filesystem;

namespace {

Toolchain toolchain() { return testing::real_toolchain(); }

struct Case {
  fs::path cubin;
  bool beside = false;  // the per-cubin listing is the .sass beside it
};

std::vector<Case> cases() {
  std::vector<fs::path> captured, extra;
  testing::add_cubins(TILEPERF_FIXTURES, captured);
  for (const auto& dir : testing::extra_cubin_dirs()) testing::add_cubins(dir, extra);
  const char* listings = std::getenv("TILEPERF_LISTINGS");
  bool beside = listings && std::string(listings) == "beside";
  std::vector<Case> found;
  for (const auto& c : captured) found.push_back({c, false});
  for (const auto& c : extra) found.push_back({c, beside});
  return found;
}

SassListing parsed(const std::string& text, const std::string& name) {
  std::istringstream in(text);
  return parse_sass(in, name);
}

// Everything a parsed listing holds, one line per instruction.
std::string fields(const SassListing& l) {
  std::string out = l.arch + "\n";
  for (const auto& f : l.functions) {
    out += "function " + f.name + " padding " + std::to_string(f.padding_begin) + "\n";
    for (const auto& i : f.instructions) {
      out += std::to_string(i.address) + " " + i.predicate + " " + i.opcode + " " + i.operands + " " +
             std::to_string(i.low_word) + " " + std::to_string(i.high_word) + " " + std::to_string(i.line) + "\n";
    }
  }
  return out;
}

// The metrics measured from `listing` with the cubin's resource usage, as
// JSON text.
std::string metrics_text(const Toolchain& tc, const std::string& cubin, const std::string& listing) {
  ToolOutputs o;
  o.sass_text = listing;
  o.sass_name = cubin + ".sass";
  o.res_usage_text = run_cuobjdump(tc, {"-res-usage"}, cubin);
  o.res_usage_name = cubin + ".res-usage.txt";
  Measurement m = measure(o, cubin);
  Metrics metrics;
  metrics.values = m.values;
  metrics.lines = m.lines.counts;
  return to_json_text(metrics);
}

}  // namespace

BOOST_AUTO_TEST_CASE(one_call_gives_every_cubins_instructions_and_metrics) {
  Toolchain tc = toolchain();
  BOOST_REQUIRE(fs::exists(tc.nvdisasm()));
  auto all = cases();
  BOOST_REQUIRE_GE(all.size(), 9u);
  std::vector<std::string> paths;
  for (const auto& c : all) paths.push_back(c.cubin.string());
  Disassembled batch = disassemble_many(tc, paths);
  BOOST_REQUIRE_EQUAL(batch.listings.size(), all.size());
  std::size_t same_bytes = 0;
  for (std::size_t i = 0; i < all.size(); ++i) {
    std::string cubin = paths[i];
    BOOST_TEST_CONTEXT(cubin) {
      BOOST_REQUIRE(batch.listings[i].listing);
      const std::string& mine = *batch.listings[i].listing;
      std::string alone = all[i].beside ? read_file(fs::path(all[i].cubin).replace_extension(".sass").string())
                                        : run_disassembler(tc, cubin);
      BOOST_TEST(fields(parsed(mine, "batch")) == fields(parsed(alone, "alone")));
      BOOST_TEST(metrics_text(tc, cubin, mine) == metrics_text(tc, cubin, alone));
      same_bytes += mine == alone;
    }
  }
  // The captured cubins are of 3 architectures and releases: far fewer
  // processes than cubins.
  BOOST_TEST(batch.processes < all.size());
  BOOST_TEST_MESSAGE(all.size() << " cubins in " << batch.processes << " nvdisasm processes: identical "
                                << "instructions and metrics; " << same_bytes << " byte-identical listings");
  // Side by side in worker processes, each architecture's call split among
  // them: more processes, the same instructions and metrics.
  Disassembled split = disassemble_many(tc, paths, "", 4);
  BOOST_REQUIRE_EQUAL(split.listings.size(), all.size());
  BOOST_TEST(split.processes >= std::min<std::size_t>(4, all.size()));
  BOOST_TEST(split.processes > batch.processes);
  for (std::size_t i = 0; i < all.size(); ++i) {
    BOOST_TEST_CONTEXT(paths[i]) {
      BOOST_REQUIRE(split.listings[i].listing);
      BOOST_TEST(fields(parsed(*split.listings[i].listing, "split")) ==
                 fields(parsed(*batch.listings[i].listing, "batch")));
      BOOST_TEST(metrics_text(tc, paths[i], *split.listings[i].listing) ==
                 metrics_text(tc, paths[i], *batch.listings[i].listing));
    }
  }
}

namespace {

const ListingFrame kFrame{"\n\tcode for sm_90a\n\t.target\tsm_90a\n\n\t\tFunction : ", "\n\t.headerflags\t@\"X\"\n",
                          "\t\t..........\n\n\n", "SM90a"};

RawInstruction raw(std::uint64_t address, const std::string& body) {
  return {address, body, "/* 0x0000000000007918 */", "/* 0x000fc00000000000 */"};
}

}  // namespace

BOOST_AUTO_TEST_CASE(branch_targets_and_addresses_are_rebased_to_the_function) {
  std::vector<RawInstruction> code = {raw(0x2380, "               @P1 BRA 0x23a0 ;"),
                                      raw(0x2390, "                   CALL.REL.NOINC 0x2380 ;"),
                                      raw(0x23a0, "                   UMOV UR4, 0x2390 ;")};
  auto text = render_function(kFrame, "softmax", code, 0x2380, 0x30);
  BOOST_REQUIRE(text);
  BOOST_TEST(text->find("/*0000*/               @P1 BRA 0x20 ;  ") != std::string::npos);
  BOOST_TEST(text->find("/*0010*/                   CALL.REL.NOINC 0x0 ;") != std::string::npos);
  // Not a PC-relative operand: left as printed.
  BOOST_TEST(text->find("/*0020*/                   UMOV UR4, 0x2390 ;") != std::string::npos);
  BOOST_TEST(text->rfind(kFrame.before_name + "softmax" + kFrame.after_name, 0) == 0);
  BOOST_TEST(text->substr(text->size() - kFrame.trailer.size()) == kFrame.trailer);
}

BOOST_AUTO_TEST_CASE(a_target_outside_the_function_is_refused) {
  std::vector<RawInstruction> code = {raw(0x100, "                   BRA 0x900;")};
  BOOST_TEST(!render_function(kFrame, "f", code, 0x100, 0x10));
}

BOOST_AUTO_TEST_CASE(the_frame_of_an_elf_listing) {
  std::string listing = kFrame.before_name + "gelu" + kFrame.after_name +
                        "        /*0000*/                   NOP ;  /* 0x0000000000007918 */\n"
                        "                                          /* 0x000fc00000000000 */\n" +
                        kFrame.trailer;
  auto frame = listing_frame(listing, "gelu");
  BOOST_REQUIRE(frame);
  BOOST_TEST(frame->before_name == kFrame.before_name);
  BOOST_TEST(frame->after_name == kFrame.after_name);
  BOOST_TEST(frame->trailer == kFrame.trailer);
  BOOST_TEST(frame->raw_arch == "SM90a");
  BOOST_TEST(!listing_frame(listing, "other"));
}

BOOST_AUTO_TEST_CASE(a_raw_listing_without_its_second_encoding_line_is_refused) {
  BOOST_CHECK_THROW(parse_raw_listing("        /*0000*/   NOP ;  /* 0x0000000000007918 */\nNOP\n"), InputError);
  auto two = parse_raw_listing("\t.headerflags\t@\"X\"\n        /*10000*/   NOP ;  /* 0x1 */\n   /* 0x2 */\n");
  BOOST_REQUIRE_EQUAL(two.size(), 1u);
  BOOST_TEST(two[0].address == 0x10000u);
  BOOST_TEST(two[0].high == "/* 0x2 */");
}
