#define BOOST_TEST_MODULE remarks
#include <boost/test/unit_test.hpp>

#include "fixtures.h"
#include "metrics/remark_metrics.h"
#include "readers/remarks.h"

#include <regex>
#include <set>

using namespace tileperf;
using namespace tileperf::testing;

namespace {

std::string error_of_remarks(const std::string& text) {
  return error_message([&] { parse_remarks(text, "r.yaml"); });
}

const std::string kMma =
    "--- !Passed\n"
    "Pass:            Tensor-core\n"
    "Name:            RemarkTensorCoreMMA\n"
    "DebugLoc:        { File: '/src/k.py', Line: 13, Column: 14 }\n"
    "Function:        matmul\n"
    "Args:\n"
    "  - RemarkId:    2\n"
    "  - Remark:      MMA operation successfully optimized to use Tensor Cores\n"
    "  - Instruction: Tensor-core SM90\n"
    "  - Shape:       '[64, 128, 16]'\n"
    "...\n";

}  // namespace

BOOST_AUTO_TEST_CASE(duplicated_documents_are_folded) {
  auto text = fixture("gelu.f16_1024.sm_120.remarks.yaml");
  auto remarks = parse_remarks(text, "gelu.yaml");
  BOOST_REQUIRE(remarks.size() == 1u);  // tileiras wrote the one remark twice
  BOOST_TEST(remarks[0].kind == "Passed");
  BOOST_TEST(remarks[0].name == "RemarkMemoryLoadInstructionSelected");
  BOOST_TEST(remarks[0].function == "gelu");
  BOOST_TEST(remarks[0].arg("Instruction") == "Global-memory load instruction");
  BOOST_TEST(remarks[0].where().find("gelu.py:") == 0u);
}

BOOST_AUTO_TEST_CASE(tma_loads_and_stores_with_shapes) {
  auto m = remark_metrics(parse_remarks(fixture("softmax.f16_1024.sm_100.remarks.yaml"), "s.yaml"));
  BOOST_TEST(m.at("remarks.load.tma") == 1);
  BOOST_TEST(m.at("remarks.store.tma") == 1);
  BOOST_TEST(m.at("remarks.load.global") == 0);
  BOOST_TEST(m.at("remarks.load.tma_shape.256x1") == 1);
  BOOST_TEST(m.at("remarks.tensor_core.passed") == 0);
}

BOOST_AUTO_TEST_CASE(global_loads) {
  auto m = remark_metrics(parse_remarks(fixture("vector_add.f32_4096.sm_120.remarks.yaml"), "v.yaml"));
  BOOST_TEST(m.at("remarks.load.global") == 2);
  BOOST_TEST(m.at("remarks.load.tma") == 0);
}

BOOST_AUTO_TEST_CASE(tensor_core_passed_and_failed) {
  std::string failed = kMma;
  failed.replace(failed.find("!Passed"), 7, "!Failure");
  failed.replace(failed.find("MMA operation successfully"), 26, "MMA operation failed to");
  failed.replace(failed.find("Tensor-core SM90"), 16, "FMA");
  auto m = remark_metrics(parse_remarks(kMma + kMma + failed, "m.yaml"));
  BOOST_TEST(m.at("remarks.tensor_core.passed") == 1);
  BOOST_TEST(m.at("remarks.tensor_core.failed") == 1);
  BOOST_TEST(m.at("remarks.tensor_core.instruction.SM90") == 1);
  BOOST_TEST(m.at("remarks.tensor_core.instruction.FMA") == 1);
  BOOST_TEST(m.at("remarks.tensor_core.shape.64x128x16") == 2);
  auto notes = remark_diagnostics(parse_remarks(failed, "m.yaml"));
  BOOST_REQUIRE(notes.size() == 1u);
  BOOST_TEST(notes[0] == "k.py:13:14: MMA operation failed to optimized to use Tensor Cores");
}

BOOST_AUTO_TEST_CASE(unknown_remarks_are_counted_not_dropped) {
  std::string other = kMma;
  other.replace(other.find("RemarkTensorCoreMMA"), 19, "RemarkLoopPipeline");
  auto m = remark_metrics(parse_remarks(other, "o.yaml"));
  BOOST_TEST(m.at("remarks.other.RemarkLoopPipeline.Passed") == 1);
}

BOOST_AUTO_TEST_CASE(empty_file_has_no_remarks) {
  BOOST_TEST(parse_remarks("", "e.yaml").empty());
  BOOST_TEST(remark_metrics({}).at("remarks.tensor_core.failed") == 0);
}

BOOST_AUTO_TEST_CASE(truncated_remarks) {
  std::string text = first_lines(fixture("softmax.f16_1024.sm_100.remarks.yaml"), 14);
  BOOST_TEST(error_of_remarks(text) ==
             "tileperf: error: r.yaml:14: remarks are truncated: the last document has no end "
             "marker '...'\n");
}

BOOST_AUTO_TEST_CASE(malformed_remarks) {
  BOOST_TEST(error_of_remarks("--- !Passed\nName: [unclosed\n...\n") ==
             "tileperf: error: r.yaml:3: invalid YAML: end of sequence flow not found\n...\n");
  std::string no_name = kMma;
  no_name.erase(no_name.find("Name:"), no_name.find("DebugLoc:") - no_name.find("Name:"));
  BOOST_TEST(error_of_remarks(kMma + no_name) == "tileperf: error: r.yaml:12: remark lacks 'Name'\n");
  std::string bad_args = "--- !Passed\nName: X\nFunction: f\nArgs: 3\n...\n";
  BOOST_TEST(error_of_remarks(bad_args) == "tileperf: error: r.yaml:1: remark 'Args' is not a list\n");
}

BOOST_AUTO_TEST_CASE(real_matmul_remarks_per_arch) {
  const std::pair<const char*, const char*> per_arch[] = {{"sm_120", "SM80"}, {"sm_100", "SM100"}, {"sm_90", "SM90"}};
  for (const auto& [arch, instruction] : per_arch) {
    std::string name = std::string("matmul.f16_128x128x64.") + arch + ".remarks.yaml";
    auto m = remark_metrics(parse_remarks(fixture(name), name));
    BOOST_TEST_CONTEXT(arch) {
      BOOST_TEST(m.at("remarks.tensor_core.passed") == 1);
      BOOST_TEST(m.at("remarks.tensor_core.failed") == 0);
      BOOST_TEST(m.at(std::string("remarks.tensor_core.instruction.") + instruction) == 1);
      BOOST_TEST(m.at("remarks.load.tma") == 2);
      BOOST_TEST(m.at("remarks.load.global") == 0);
      BOOST_TEST(m.at("remarks.load.tma_shape.64x128") == 1);  // A: 128x64 tile, K innermost
      BOOST_TEST(m.at("remarks.load.tma_shape.64x64") == 1);   // B: 64x128 tile, split by the swizzle
      BOOST_TEST(m.at("remarks.store.tma_shape.64x128") == 1);
    }
  }
  auto sm90 = remark_metrics(parse_remarks(fixture("matmul.f16_128x128x64.sm_90.remarks.yaml"), "m"));
  BOOST_TEST(sm90.at("remarks.tensor_core.shape.64x128x16") == 1);
  auto sm100 = remark_metrics(parse_remarks(fixture("matmul.f16_128x128x64.sm_100.remarks.yaml"), "m"));
  BOOST_TEST(sm100.at("remarks.tensor_core.shape.128x128x16") == 1);
}

BOOST_AUTO_TEST_CASE(real_tensor_core_fallback) {
  for (const char* arch : {"sm_120", "sm_90"}) {
    std::string name = std::string("matmul_fp32_mma_fallback.f16_128x128x64.") + arch + ".remarks.yaml";
    auto remarks = parse_remarks(fixture(name), name);
    auto m = remark_metrics(remarks);
    BOOST_TEST(m.at("remarks.tensor_core.passed") == 0);
    BOOST_TEST(m.at("remarks.tensor_core.failed") == 1);
    BOOST_TEST(m.at("remarks.tensor_core.instruction.FMA") == 1);
    auto notes = remark_diagnostics(remarks);
    BOOST_REQUIRE(notes.size() == 1u);
    BOOST_TEST(notes[0] ==
               "matmul.py:38:14: MMA operation failed to optimize to use Tensor Cores, "
               "it is using FMA instructions instead");
  }
}

BOOST_AUTO_TEST_CASE(real_tma_load_failure_with_repeated_reasons) {
  auto remarks = parse_remarks(fixture("rope.f16_t1_h32_d128.sm_90.remarks.yaml"), "rope.yaml");
  auto m = remark_metrics(remarks);
  BOOST_TEST(m.at("remarks.load.tma_failed") == 1);
  BOOST_TEST(m.at("remarks.load.global") == 3);
  auto notes = remark_diagnostics(remarks);
  BOOST_REQUIRE(notes.size() == 1u);
  BOOST_TEST(notes[0] ==
             "rope.py:28:20: Failed to select TMA load instruction (leading tile "
             "dimension not 16-byte aligned)");
}

BOOST_AUTO_TEST_CASE(real_attention_remarks) {
  auto m = remark_metrics(parse_remarks(fixture("attention.f16_d64_causal.sm_100.remarks.yaml"), "a"));
  BOOST_TEST(m.at("remarks.tensor_core.passed") == 4);  // QK^T and PV, unmasked and masked loops
  BOOST_TEST(m.at("remarks.tensor_core.failed") == 0);
  BOOST_TEST(m.at("remarks.load.global") == 0);
}

// The command-line format of the same compile lists the same remarks: the YAML
// that tileperf reads loses nothing.
BOOST_AUTO_TEST_CASE(yaml_matches_command_line_format) {
  std::string text = fixture("matmul.f16_128x128x64.sm_90.remarks.txt");
  std::set<std::string> listed;
  std::regex entry(R"re(--> "[^"]*/([^/"]+)":([0-9]+):([0-9]+)\s*\n\s*\|\s*\n\s*= name: (\w+))re");
  for (std::sregex_iterator it(text.begin(), text.end(), entry), end; it != end; ++it) {
    listed.insert((*it)[4].str() + "@" + (*it)[1].str() + ":" + (*it)[2].str() + ":" + (*it)[3].str());
  }
  std::set<std::string> parsed;
  for (const auto& r : parse_remarks(fixture("matmul.f16_128x128x64.sm_90.remarks.yaml"), "m")) {
    parsed.insert(r.name + "@" + r.where());
  }
  BOOST_TEST(listed.size() == 4u);
  BOOST_TEST((listed == parsed));
}

BOOST_AUTO_TEST_CASE(huge_remarks_are_refused_before_yaml_reads_them) {
  std::string huge(std::size_t(17) << 20, '#');
  BOOST_TEST(error_of_remarks(huge + "\n...\n") ==
             "tileperf: error: r.yaml: remarks larger than 16 MiB: tileiras writes a few kilobytes\n");
}

BOOST_AUTO_TEST_CASE(each_document_is_read_on_its_own) {
  // yaml-cpp 0.7's LoadAll never returns on a stray ',' document.
  std::string doc = first_lines(fixture("gelu.f16_1024.sm_120.remarks.yaml"), 10);
  BOOST_TEST(error_of_remarks(doc + "--- !Passed\n,\n...\n") ==
             "tileperf: error: r.yaml:11: remark document is not a mapping\n");
}

// tileiras 13.5.37 writes each document once (13.4.92 twice) and reports
// lost optimizations of its own.
const std::string kRelease135 = "13.5.37";

BOOST_AUTO_TEST_CASE(real_13_5_documents_written_once) {
  std::string text = fixture_of(kRelease135, "batched_matmul.f16_128x128x64.sm_90.remarks.yaml");
  auto remarks = parse_remarks(text, "b.yaml");
  std::size_t documents = 0;
  for (std::size_t at = text.find("--- !"); at != std::string::npos; at = text.find("--- !", at + 1)) ++documents;
  BOOST_TEST(remarks.size() == documents);
  BOOST_TEST(documents == 5u);
}

BOOST_AUTO_TEST_CASE(real_index_narrowing_missed) {
  auto remarks = parse_remarks(fixture_of(kRelease135, "batched_matmul.f16_128x128x64.sm_90.remarks.yaml"), "b");
  auto m = remark_metrics(remarks);
  BOOST_TEST(m.at("remarks.index_narrowing_missed") == 1);
  BOOST_TEST(m.at("remarks.tensor_core.passed") == 1);
  BOOST_TEST(m.at("remarks.load.tma") == 2);
  BOOST_TEST(m.count("remarks.other.RemarkTensorViewIndexTypeNarrowing.Missed") == 0u);
  // Missed in most kernels: counted, not a note each time.
  BOOST_TEST(remark_diagnostics(remarks).empty());
  // With 64-bit indices declared there is nothing to narrow: the remark goes
  // away, and the TMA loads and the store with it.
  auto wide = remark_metrics(
      parse_remarks(fixture_of(kRelease135, "batched_matmul_int64_index.f16_128x128x64.sm_90.remarks.yaml"), "w"));
  BOOST_TEST(wide.at("remarks.index_narrowing_missed") == 0);
  BOOST_TEST(wide.at("remarks.load.tma_failed") == 2);
  BOOST_TEST(wide.at("remarks.store.tma_failed") == 1);
}

BOOST_AUTO_TEST_CASE(real_register_pressure_warning) {
  for (const char* arch : {"sm_120", "sm_90"}) {
    std::string name = std::string("matmul_fp32_mma_fallback.f16_128x128x64.") + arch + ".remarks.yaml";
    auto remarks = parse_remarks(fixture_of(kRelease135, name), name);
    auto m = remark_metrics(remarks);
    BOOST_TEST(m.at("remarks.register_pressure") == 1);
    BOOST_TEST(m.at("remarks.tensor_core.failed") == 1);
    auto notes = remark_diagnostics(remarks);
    BOOST_REQUIRE(notes.size() == 2u);
    BOOST_TEST(notes[0] ==
               "matmul.py:20:0: W0001 High register usage (Estimated per-thread register usage exceeds the "
               "available budget. This is usually caused by a large tile size, which increases per-CTA work, "
               "or by high requested occupancy, which reduces the register budget per thread.; suggestion: "
               "Reduce the tile size or lower the occupancy hint.)");
  }
}

BOOST_AUTO_TEST_CASE(spill_and_local_memory_remarks) {
  // Named in tileiras 13.5's binary ("ptxas detected register spills",
  // "... local memory usage"); no shipped kernel or mutant makes them fire,
  // so the documents here are written in the shape of the others.
  std::string spill =
      "--- !Missed\nPass:            Performance\nName:            RemarkPerfRegisterSpill\n"
      "DebugLoc:        { File: '/src/k.py', Line: 7, Column: 0 }\nFunction:        k\nArgs:\n"
      "  - Remark:      ptxas detected register spills\n...\n";
  std::string local = spill;
  local.replace(local.find("RemarkPerfRegisterSpill"), 23, "RemarkPerfLocalMemoryUsage");
  local.replace(local.find("register spills"), 15, "local memory usage");
  auto remarks = parse_remarks(spill + local, "p.yaml");
  auto m = remark_metrics(remarks);
  BOOST_TEST(m.at("remarks.register_spill") == 1);
  BOOST_TEST(m.at("remarks.local_memory") == 1);
  auto notes = remark_diagnostics(remarks);
  BOOST_REQUIRE(notes.size() == 2u);
  BOOST_TEST(notes[0] == "k.py:7:0: ptxas detected local memory usage");
  BOOST_TEST(notes[1] == "k.py:7:0: ptxas detected register spills");
  // 13.4 wrote none of them: present as 0, so baselines of either release hold them.
  BOOST_TEST(remark_metrics({}).at("remarks.register_pressure") == 0);
}
