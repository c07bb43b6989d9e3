// Where a checkout lives, left out of the result cache. A TileIR bytecode
// names the folders of the files it was traced from (the kernel's folder, a
// library's folder in site-packages) by absolute path, in its string table,
// whose sizes and offsets follow those paths' lengths; the tools' text output
// (the TileIR listing, the remarks) names them again. So:
//   - the bytecode's identity hashes every section as it is, but the string
//     table string by string, with each folder that a DIFile record names
//     (a "root") replaced by its index among them, so that two bytecodes
//     differing only in where those folders are have one identity, and two
//     differing in anything else (a string, an operation, a line) have two;
//   - an entry's text files are stored with each root written as
//     `<tileperf-root-N>` and read back with the fetching checkout's roots.
// A bytecode that does not parse (or whose string table is not laid out as
// cuTile writes it) keeps its bytes' hash and no roots: it is shared by
// nothing, but served correctly.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace tileperf {

struct BytecodePaths {
  std::string identity;            // SHA-256 of the canonical form
  std::vector<std::string> roots;  // absolute folders the DIFile records name, in string order
};

BytecodePaths bytecode_paths(const std::string& bytecode);

// The bytecode as the writer lays it out with its roots at `roots` instead
// (as many as it has): what a clone at another path exports. nullopt where
// bytecode_paths finds no roots, or another number of them.
std::optional<std::string> bytecode_at(const std::string& bytecode, const std::vector<std::string>& roots);

// `text` with every occurrence of a root that stands as a path (not inside a
// longer name) replaced by its token, the longest root first. nullopt when
// the text already holds something that reads as a token: it could not be
// told apart on the way back.
std::optional<std::string> roots_to_tokens(const std::string& text, const std::vector<std::string>& roots);

// The tokens of `text` replaced by `roots`; nullopt when a token names a root
// there is not (an entry made for another bytecode).
std::optional<std::string> tokens_to_roots(const std::string& text, const std::vector<std::string>& roots);

// The folders tileiras is shown instead of a bytecode's roots (compile_bytecode
// compiles the bytecode as bytecode_at(.., fixed_roots(n)) lays it out), the
// same in every checkout: "/tileperf/source-0", "/tileperf/source-1", ...
// So the cubin's line tables name these folders, whatever the checkout.
std::vector<std::string> fixed_roots(std::size_t n);

// `text` with each of the folders `from` (where it stands as a path, as for
// roots_to_tokens) written as the folder of the same index in `to`.
std::string moved_roots(const std::string& text, const std::vector<std::string>& from,
                        const std::vector<std::string>& to);

}  // namespace tileperf
