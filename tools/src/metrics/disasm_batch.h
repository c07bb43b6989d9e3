// The SASS listings of many cubins of one architecture from one nvdisasm
// process instead of one process per cubin (nvdisasm costs about 0.3 s to
// start, whatever the cubin holds).
//
// nvdisasm's raw mode (-b SMxx) disassembles a buffer of instruction bytes:
// the .text sections of every cubin, one after the other at 128-byte
// boundaries, in one call. tileperf's ELF reader knows what the ELF would
// have told nvdisasm: where each function begins and ends and its name. Each
// function's part of the raw listing is then rebased to address 0 (the
// instruction addresses, and the targets that branches, calls, returns and
// BSSY print as absolute addresses) and framed by the header and trailer
// nvdisasm prints in ELF mode, learned from the ELF-mode listing of one
// cubin with the same ELF flags and kept for later batches. One raw call
// per architecture and 2 MiB of code (its listing stays below what a tool
// may print). The instructions, their
// encodings (control bits included), branch targets, the line structure and
// function names are those of run_disassembler(); the padding between an
// instruction and its encoding can differ (nvdisasm pads to a width of its
// own), which no metric reads. unit.disasm_batch_test and
// disasm.batch_identical check this on the captured and every shipped cubin.
//
// A cubin the raw mode cannot stand for (not exactly one .text section,
// relocations against its code, an odd size) is disassembled alone, as is
// every cubin when the raw call or its parse fails.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "toolchain/toolchain.h"

namespace tileperf {

// What the ELF-mode listing of a one-function cubin prints around the
// instructions: `before_name` + name + `after_name`, the instruction lines,
// then `trailer`.
struct ListingFrame {
  std::string before_name, after_name, trailer;
  std::string raw_arch;  // nvdisasm -b value: "sm_90a" -> "SM90a"
};

// The frame of `listing` (run_disassembler's output for a cubin whose one
// function is `function`); nullopt when the listing has another shape.
std::optional<ListingFrame> listing_frame(const std::string& listing, const std::string& function);

// One instruction of a raw-mode listing.
struct RawInstruction {
  std::uint64_t address = 0;
  std::string body;       // predicate, opcode, operands and ';', with nvdisasm's leading spaces
  std::string low, high;  // "/* 0x... */" of each encoding word
};

// The instruction lines of a raw-mode nvdisasm listing; other lines (the
// .headerflags) are left out.
std::vector<RawInstruction> parse_raw_listing(const std::string& text);

// The listing of one function: `instructions` (from a raw listing, where the
// function began at `base`) rebased to 0 and framed. nullopt when an
// instruction's rebased branch target falls outside the function.
std::optional<std::string> render_function(const ListingFrame& frame, const std::string& function,
                                           const std::vector<RawInstruction>& instructions, std::uint64_t base,
                                           std::uint64_t size);

// Where a cubin's code lies for the raw mode: its one .text section.
struct CubinCode {
  std::string function;  // the section name after ".text."
  std::string bytes;
  std::uint32_t flags = 0;
  std::uint16_t abi = 0;
};

// nullopt when the cubin is not one the raw mode can stand for.
std::optional<CubinCode> cubin_code(const std::string& data, const std::string& filename);

// The listing of each cubin, as run_disassembler(tc, cubin) gives it, or the
// error message of that call for a cubin it fails on.
struct BatchListing {
  std::optional<std::string> listing;
  std::string error;
};
struct Disassembled {
  std::vector<BatchListing> listings;  // one per cubin, in order
  std::size_t processes = 0;           // nvdisasm (or cuobjdump) processes run
};
// `frame_dir` ("": none) keeps the frames learned from ELF-mode listings for
// later batches, so that a batch whose frames are known runs one nvdisasm
// process per architecture. The nvdisasm calls run up to `workers` at a
// time: an architecture's call is split in two (or more) while there are
// fewer calls than workers.
Disassembled disassemble_many(const Toolchain& tc, const std::vector<std::string>& cubins,
                              const std::string& frame_dir = "", int workers = 1);

}  // namespace tileperf
