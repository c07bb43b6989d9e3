#include "analysis/sass_diff.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <unordered_map>

#include <fmt/format.h>

#include "analysis/isa.h"

namespace tileperf {

namespace {

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// The length of a register name ("R12", "UR4", "P0", "UP1") at `at`, or 0.
std::size_t register_at(std::string_view s, std::size_t at) {
  if (at > 0 && (word_char(s[at - 1]) || s[at - 1] == '.')) return 0;
  std::size_t i = at;
  if (i < s.size() && s[i] == 'U') ++i;
  if (i >= s.size() || (s[i] != 'R' && s[i] != 'P')) return 0;
  std::size_t digits = ++i;
  while (i < s.size() && digit(s[i])) ++i;
  if (i == digits || (i < s.size() && word_char(s[i]))) return 0;
  return i - at;
}

std::string without_reuse(std::string_view s) {
  constexpr std::string_view kReuse = ".reuse";
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    if (s.substr(i, kReuse.size()) == kReuse && (i + kReuse.size() == s.size() || !word_char(s[i + kReuse.size()]))) {
      i += kReuse.size();
    } else {
      out += s[i++];
    }
  }
  return out;
}

// The instruction's code address operand, for those that have one.
std::optional<std::uint64_t> code_target(const SassInstruction& insn) {
  Flow f = flow(insn);
  if (f != Flow::kBranch && f != Flow::kCall && insn.opcode.rfind("BSSY", 0) != 0) return std::nullopt;
  return branch_target(insn);
}

// `operands` with its last "0x..." (the code address) replaced by `label`.
std::string retarget(const std::string& operands, const std::string& label) {
  auto at = operands.rfind("0x");
  return at == std::string::npos ? operands : operands.substr(0, at) + label;
}

}  // namespace

std::string mask_registers(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    if (std::size_t n = register_at(text, i)) {
      out += text.substr(i, text[i] == 'U' ? 2 : 1);
      out += '?';
      i += n;
    } else {
      out += text[i++];
    }
  }
  return out;
}

std::vector<std::string> instruction_texts(const SassFunction& f, std::size_t first, std::size_t last,
                                           const SassTextOptions& options) {
  last = std::min(last, f.instructions.size());
  first = std::min(first, last);
  std::map<std::uint64_t, std::size_t> labels;  // target address -> rank
  std::uint64_t lo = first < last ? f.instructions[first].address : 0;
  std::uint64_t hi = first < last ? f.instructions[last - 1].address : 0;
  for (std::size_t i = first; i < last; ++i) {
    auto target = code_target(f.instructions[i]);
    if (target && *target >= lo && *target <= hi) labels.emplace(*target, 0);
  }
  std::size_t rank = 0;
  for (auto& [address, n] : labels) n = rank++;

  std::vector<std::string> out;
  for (std::size_t i = first; i < last; ++i) {
    const SassInstruction& insn = f.instructions[i];
    std::string operands = without_reuse(insn.operands);
    if (auto target = code_target(insn)) {
      auto label = labels.find(*target);
      operands = retarget(operands, label == labels.end() ? "<out>" : fmt::format("L{}", label->second));
    }
    std::string text;
    if (auto label = labels.find(insn.address); label != labels.end()) text = fmt::format("L{}: ", label->second);
    if (!insn.predicate.empty()) text += insn.predicate + " ";
    text += insn.opcode;
    if (!operands.empty()) text += " " + operands;
    out.push_back(options.mask_registers ? mask_registers(text) : text);
  }
  return out;
}

namespace {

// Two sides' lines as numbers (equal text, equal number), past their common
// head (`prefix` lines) and tail (`suffix`), which need no search.
struct Sides {
  std::vector<int> a, b;
  std::size_t prefix = 0, suffix = 0;
  long n = 0, m = 0;  // the lines between, on each side

  Sides(const std::vector<std::string>& base, const std::vector<std::string>& head) {
    std::unordered_map<std::string_view, int> ids;
    auto intern = [&](const std::vector<std::string>& lines) {
      std::vector<int> out;
      out.reserve(lines.size());
      for (const auto& l : lines) out.push_back(ids.emplace(l, static_cast<int>(ids.size())).first->second);
      return out;
    };
    a = intern(base);
    b = intern(head);
    while (prefix < a.size() && prefix < b.size() && a[prefix] == b[prefix]) ++prefix;
    while (suffix < a.size() - prefix && suffix < b.size() - prefix &&
           a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix]) {
      ++suffix;
    }
    n = static_cast<long>(a.size() - prefix - suffix);
    m = static_cast<long>(b.size() - prefix - suffix);
  }
  int A(long x) const { return a[prefix + static_cast<std::size_t>(x)]; }
  int B(long y) const { return b[prefix + static_cast<std::size_t>(y)]; }
};

// Myers's search forward: after round d, trace[d] holds the furthest x
// reached on each diagonal k = x - y in [-d, d] with d edits. The edits of
// the shortest script, or -1 when it takes more than max_d.
long forward_search(const Sides& s, long max_d, std::vector<std::vector<long>>& trace) {
  std::vector<long> v(static_cast<std::size_t>(2 * max_d + 3), 0);
  const long offset = max_d + 1;
  auto V = [&](long k) -> long& { return v[static_cast<std::size_t>(k + offset)]; };
  long found = -1;
  for (long d = 0; d <= max_d && found < 0; ++d) {
    for (long k = -d; k <= d; k += 2) {
      long x = (k == -d || (k != d && V(k - 1) < V(k + 1))) ? V(k + 1) : V(k - 1) + 1;
      long y = x - k;
      while (x < s.n && y < s.m && s.A(x) == s.B(y)) ++x, ++y;
      V(k) = x;
      if (x >= s.n && y >= s.m) found = d;
    }
    trace.emplace_back(v.begin() + (offset - d), v.begin() + (offset + d + 1));
  }
  return found;
}

// Back from (n, m) to (0, 0) through the trace, one edit per round: the
// script of the lines between, last edit first.
std::vector<Edit> backtrack(const Sides& s, const std::vector<std::vector<long>>& trace, long found) {
  std::vector<Edit> middle;
  auto keep = [&](long x, long y) {
    middle.push_back({DiffOp::kKeep, static_cast<std::size_t>(x), static_cast<std::size_t>(y)});
  };
  long x = s.n, y = s.m;
  for (long d = found; d > 0; --d) {
    const std::vector<long>& prev = trace[static_cast<std::size_t>(d - 1)];
    auto P = [&](long k) { return prev[static_cast<std::size_t>(k + d - 1)]; };
    long k = x - y;
    bool down = k == -d || (k != d && P(k - 1) < P(k + 1));
    long prev_k = down ? k + 1 : k - 1;
    long prev_x = P(prev_k), prev_y = prev_x - prev_k;
    while (x > prev_x && y > prev_y) keep(--x, --y);
    middle.push_back(
        {down ? DiffOp::kInsert : DiffOp::kDelete, static_cast<std::size_t>(prev_x), static_cast<std::size_t>(prev_y)});
    x = prev_x, y = prev_y;
  }
  while (x > 0 && y > 0) keep(--x, --y);
  return middle;
}

}  // namespace

std::optional<std::vector<Edit>> diff_lines(const std::vector<std::string>& base, const std::vector<std::string>& head,
                                            std::size_t max_edits) {
  Sides s(base, head);
  if (static_cast<std::size_t>(std::labs(s.n - s.m)) > max_edits) return std::nullopt;  // at least |n - m| edits
  const long max_d = std::min<long>(s.n + s.m, static_cast<long>(max_edits));
  std::vector<std::vector<long>> trace;
  long found = forward_search(s, max_d, trace);
  if (found < 0) return std::nullopt;
  std::vector<Edit> middle = backtrack(s, trace, found);
  std::vector<Edit> script;
  script.reserve(s.prefix + middle.size() + s.suffix);
  for (std::size_t i = 0; i < s.prefix; ++i) script.push_back({DiffOp::kKeep, i, i});
  for (auto it = middle.rbegin(); it != middle.rend(); ++it) {
    script.push_back({it->kind, it->base + s.prefix, it->head + s.prefix});
  }
  for (std::size_t i = 0; i < s.suffix; ++i) {
    script.push_back({DiffOp::kKeep, s.a.size() - s.suffix + i, s.b.size() - s.suffix + i});
  }
  return script;
}

EditCounts count_edits(const std::vector<Edit>& script) {
  EditCounts c;
  for (const auto& e : script) {
    c.deleted += e.kind == DiffOp::kDelete;
    c.inserted += e.kind == DiffOp::kInsert;
  }
  return c;
}

std::string Hunk::header() const {
  // As diff -u: a range of one line is its number alone, an empty one the line before it.
  auto range = [](std::size_t begin, std::size_t count) {
    std::size_t first = count == 0 ? begin : begin + 1;
    return count == 1 ? fmt::format("{}", first) : fmt::format("{},{}", first, count);
  };
  return fmt::format("@@ -{} +{} @@", range(base_begin, base_count), range(head_begin, head_count));
}

std::vector<Hunk> make_hunks(const std::vector<Edit>& script, std::size_t context) {
  std::vector<Hunk> hunks;
  std::size_t i = 0;
  while (i < script.size()) {
    while (i < script.size() && script[i].kind == DiffOp::kKeep) ++i;
    if (i == script.size()) break;
    std::size_t begin = i >= context ? i - context : 0;
    // Extend past changes whose gap of kept lines is at most 2 * context.
    std::size_t end = i;
    for (;;) {
      while (end < script.size() && script[end].kind != DiffOp::kKeep) ++end;
      std::size_t gap = end;
      while (gap < script.size() && script[gap].kind == DiffOp::kKeep) ++gap;
      if (gap < script.size() && gap - end <= 2 * context) {
        end = gap;
        continue;
      }
      end = std::min(script.size(), end + context);
      break;
    }
    Hunk h;
    h.edits.assign(script.begin() + static_cast<long>(begin), script.begin() + static_cast<long>(end));
    h.base_begin = h.edits.front().base;
    h.head_begin = h.edits.front().head;
    for (const auto& e : h.edits) {
      h.base_count += e.kind != DiffOp::kInsert;
      h.head_count += e.kind != DiffOp::kDelete;
    }
    hunks.push_back(std::move(h));
    i = end;
  }
  return hunks;
}

std::string format_hunks(const std::vector<Hunk>& hunks, const DiffSide& base, const DiffSide& head,
                         std::size_t max_lines, std::string_view indent) {
  auto text_of = [&](const Edit& e) -> const std::string& {
    return e.kind == DiffOp::kInsert ? head.lines[e.head] : base.lines[e.base];
  };
  auto note_of = [&](const Edit& e) -> std::string {
    if (e.kind == DiffOp::kInsert) return e.head < head.notes.size() ? head.notes[e.head] : "";
    if (e.kind == DiffOp::kDelete) return e.base < base.notes.size() ? base.notes[e.base] : "";
    return "";
  };
  std::size_t width = 0;
  for (const auto& h : hunks) {
    for (const auto& e : h.edits) width = std::max(width, text_of(e).size());
  }
  width = std::min<std::size_t>(width, 64);

  std::vector<std::string> lines;
  for (const auto& h : hunks) {
    lines.push_back(fmt::format("{}{}", indent, h.header()));
    for (const auto& e : h.edits) {
      char op = e.kind == DiffOp::kKeep ? ' ' : e.kind == DiffOp::kDelete ? '-' : '+';
      std::string note = note_of(e);
      lines.push_back(note.empty() ? fmt::format("{}{} {}", indent, op, text_of(e))
                                   : fmt::format("{}{} {:<{}}  {}", indent, op, text_of(e), width, note));
    }
  }
  std::string out;
  std::size_t shown = max_lines == 0 ? lines.size() : std::min(lines.size(), max_lines);
  for (std::size_t i = 0; i < shown; ++i) out += lines[i] + "\n";
  if (shown < lines.size()) out += fmt::format("{}... {} more lines\n", indent, lines.size() - shown);
  return out;
}

}  // namespace tileperf
