// The external tools: tileiras (TileIR bytecode -> cubin) and cuobjdump
// (cubin -> SASS listing, resource usage). Every failure of a tool becomes a
// ToolError (exit 4) with what the tool said; an architecture the installed
// tileiras does not know becomes a SkipError (exit 77).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tileperf {

struct Toolchain {
  std::string tileiras;
  std::string cuobjdump;
  double timeout_seconds = 600;
  // tileiras runs with address-space randomisation on (the measurement of
  // how its output varies, or TILEPERF_COMPILER_ASLR=on): see compile_bytecode.
  bool randomized = false;
  // tileirdisasm ships beside tileiras; it prints a bytecode file's TileIR.
  std::string tileirdisasm() const;
  // nvdisasm, which cuobjdump runs for --dump-sass, ships beside cuobjdump.
  std::string nvdisasm() const;
};

// A UsageError unless the timeout is a positive, finite number of seconds.
void check_timeout(const Toolchain& tc);

// "13.4.92" from the tool's --version banner ("... release 13.4, V13.4.92").
std::string tool_version(const std::string& path);
std::string parse_version_banner(const std::string& banner, const std::string& tool);

// Architectures listed by `tileiras --help` (--gpu-name values).
std::vector<std::string> tileiras_architectures(const std::string& tileiras);
std::vector<std::string> parse_architectures(const std::string& help_text);

// The flags tileperf passes to tileiras, as cuTile itself compiles a kernel
// (file names excluded, so they can be recorded in metrics).
std::vector<std::string> tileiras_flags(const std::string& arch);

struct CompileOutput {
  double seconds = 0;
  std::string diagnostics;  // what tileiras printed
  // How tileiras's process ran: "fixed" (randomisation off), or why its
  // addresses were random ("randomized: personality refused: Operation not
  // permitted", "randomized: asked"); compile_process_text() says it in words.
  std::string process;
};

// Compiles `bytecode` to `cubin`, writing YAML remarks to `remarks`.
//
// tileiras 13.5.37 can give two different cubins for one bytecode and one
// set of flags, following the addresses its process gets. So it runs in a
// controlled process, the same on every machine: address-space
// randomisation off and an 8 MiB stack limit (process.h), an environment of
// its own (kCompilerEnvironment, with TMPDIR in the working folder), a
// working folder of a fixed name (/tmp/tileperf-tileiras/NN, NN the first
// free of kCompilerSlots; a private temporary folder where none can be
// had), the input, output and remarks under fixed names in it, and the
// bytecode's folders (the roots it names, cache_paths.h) shown to it as
// fixed_roots(): the cubin's line tables name those, the remarks are
// written back with the real ones. The platform may refuse to turn the
// randomisation off: the compilation then runs all the same, and
// CompileOutput::process says so.
CompileOutput compile_bytecode(const Toolchain& tc, const std::string& bytecode, const std::string& arch,
                               const std::string& cubin, const std::string& remarks);

// The environment tileiras runs with, besides TMPDIR and the variables named
// in TILEPERF_COMPILER_ENV (space-separated names, passed on as they are set:
// for a site whose tileiras needs one, or a test's fake tool).
inline const char* const kCompilerEnvironment[][2] = {{"LC_ALL", "C"}, {"PATH", "/usr/bin:/bin"}};
inline constexpr int kCompilerSlots = 100;

// "fixed" -> "address-space randomisation off"; "randomized: <why>" ->
// "address-space randomisation on (<why>)".
std::string compile_process_text(const std::string& process);

// TILEPERF_COMPILER_ASLR: "on" leaves tileiras's randomisation on, "off" or
// unset turns it off; UsageError otherwise.
bool randomized_from_environment();

// Whether this platform lets tileperf turn a child's address-space
// randomisation off: "fixed", or "randomized: personality refused: <why>".
std::string probe_compile_process();

// TileIR text of a bytecode file, from tileirdisasm, with each operation's
// source location (-g: where the launch model finds a tile's line and loops).
std::string run_tileirdisasm(const Toolchain& tc, const std::string& bytecode);
inline const char* const kTileirdisasmArgs[] = {"-g"};

// The SASS listing of `cubin`, byte for byte what `cuobjdump --dump-sass`
// prints, made the cheaper way: cuobjdump's own header line, then nvdisasm
// run directly with the arguments cuobjdump passes it (-pb -hex -novliw) and
// -ndf (no dataflow analysis, which only adds labels to branches through the
// branch stack, and takes a quarter of nvdisasm's time). unit.disassembly_test
// checks the identity on every captured cubin. Without an nvdisasm beside
// cuobjdump, cuobjdump --dump-sass itself.
std::string run_disassembler(const Toolchain& tc, const std::string& cubin);
inline const char* const kNvdisasmArgs[] = {"-ndf", "-pb", "-hex", "-novliw"};

// nvdisasm's raw mode over a file of instruction bytes for `raw_arch`
// ("SM90a"): the listing, with the arguments of run_disassembler but -pb
// (which only adds a heading in raw mode). See disasm_batch.h.
std::string run_nvdisasm_raw(const Toolchain& tc, const std::string& raw_arch, const std::string& file);

// Runs cuobjdump with `args` on `cubin` and returns its standard output.
std::string run_cuobjdump(const Toolchain& tc, const std::vector<std::string>& args, const std::string& cubin);

}  // namespace tileperf
