// A line diff of two pieces of SASS, for `tileperf diff`: the instructions
// as text that leaves out what moves when nothing changed (addresses,
// encodings, control bits, branch targets as addresses, optionally register
// numbers), the shortest edit script between two such texts (Myers' O(ND)
// algorithm, bounded), and its hunks in the unified format.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "readers/sass.h"

namespace tileperf {

// "R12" -> "R?", "UR4" -> "UR?", "P0" -> "P?", "UP1" -> "UP?" wherever a
// register stands as a word of its own ("R2.64", "[R4+0x10]"); RZ, URZ,
// PT, UPT, SR_* and constants stay.
std::string mask_registers(std::string_view text);

struct SassTextOptions {
  bool mask_registers = false;  // see mask_registers()
};

// The instructions [first, last) of `f`, one line each: predicate, opcode
// and operands without `.reuse`. A branch, call or BSSY whose target lies
// in the range names it by label ("BRA L1"), a label being the target's
// rank among the range's targets, and the instruction at a target starts
// with its label ("L1: FFMA ..."); a target outside the range is "<out>".
// Addresses, encodings and control bits are left out.
std::vector<std::string> instruction_texts(const SassFunction& f, std::size_t first, std::size_t last,
                                           const SassTextOptions& options = {});

enum class DiffOp { kKeep, kDelete, kInsert };

// One line of an edit script: `base` is the line's index in the base text
// (for kKeep and kDelete), `head` its index in the head text (kKeep and
// kInsert); the other is the position the line takes in that text.
struct Edit {
  DiffOp kind = DiffOp::kKeep;
  std::size_t base = 0, head = 0;
};

// The largest number of deleted plus inserted lines diff_lines looks for by
// default: past it, two texts are too different for a line diff to help.
inline constexpr std::size_t kMaxEdits = 2000;

// A shortest edit script turning `base` into `head` (every line of both,
// in order), or nothing when it needs more than `max_edits` deletions and
// insertions. Time O((N + M) D) and memory O(D^2) for D edits, after the
// common head and tail are set aside.
std::optional<std::vector<Edit>> diff_lines(const std::vector<std::string>& base, const std::vector<std::string>& head,
                                            std::size_t max_edits = kMaxEdits);

// Deletions and insertions of a script.
struct EditCounts {
  std::size_t deleted = 0, inserted = 0;
};
EditCounts count_edits(const std::vector<Edit>& script);

// A run of changes with up to `context` unchanged lines around it.
struct Hunk {
  std::size_t base_begin = 0, base_count = 0;  // 0-based; the header shows base_begin + 1
  std::size_t head_begin = 0, head_count = 0;
  std::vector<Edit> edits;
  std::string header() const;  // "@@ -12,6 +12,9 @@"
};

// The hunks of a script; changes closer than 2 * context + 1 lines share one.
std::vector<Hunk> make_hunks(const std::vector<Edit>& script, std::size_t context);

// One side of a diff as it is printed: its lines and, per line, a note put
// after it ("gelu.py:21"), or none.
struct DiffSide {
  std::vector<std::string> lines;
  std::vector<std::string> notes;  // empty, or one per line
};

// The hunks in the unified format, each line indented by `indent`, with
// the notes of deleted and inserted lines in a column after them; after
// `max_lines` lines (0: no limit), "... K more lines".
std::string format_hunks(const std::vector<Hunk>& hunks, const DiffSide& base, const DiffSide& head,
                         std::size_t max_lines, std::string_view indent = "  ");

}  // namespace tileperf
