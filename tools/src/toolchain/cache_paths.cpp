#include "toolchain/cache_paths.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string_view>

#include <fmt/format.h>

#include "support/sha256.h"

namespace tileperf {

namespace {

// The layout cuTile's bytecode writer gives a file: a 12-byte header (magic,
// version, tag), then sections, each an id byte (0x80: aligned), a LEB128
// length, for an aligned one a LEB128 alignment and 0xcb bytes up to it, and
// the body; a 0x00 byte ends the file.
constexpr std::string_view kMagic("\x7fTileIR\x00", 8);
constexpr std::size_t kHeaderBytes = 12;
constexpr int kStringSection = 0x01;
constexpr int kDebugSection = 0x03;
constexpr std::uint8_t kDIFile = 0x02;
constexpr char kPad = '\xcb';
constexpr std::string_view kTokenStart = "<tileperf-root-";

struct Section {
  int id = 0;
  std::size_t start = 0, body = 0, end = 0;  // the id byte, the body, past the body
  std::uint64_t alignment = 1;
};

// Bounds-checked reads; a read past the end, or a LEB128 number over 64
// bits, clears ok and reads zero from then on.
struct Cursor {
  std::string_view bytes;
  std::size_t at = 0;
  bool ok = true;

  std::uint64_t varint() {
    std::uint64_t v = 0;
    for (int shift = 0; ok; shift += 7) {
      if (shift > 63 || at >= bytes.size()) break;
      auto b = static_cast<unsigned char>(bytes[at++]);
      v |= std::uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
    ok = false;
    return 0;
  }
  std::uint64_t fixed(int size) {
    if (!ok || bytes.size() - std::min(at, bytes.size()) < static_cast<std::size_t>(size)) {
      ok = false;
      return 0;
    }
    std::uint64_t v = 0;
    for (int i = size - 1; i >= 0; --i)
      v = v << 8 | static_cast<unsigned char>(bytes[at + static_cast<std::size_t>(i)]);
    at += static_cast<std::size_t>(size);
    return v;
  }
  // Up to a multiple of `alignment` counted from `base`.
  void align(std::size_t base, std::uint64_t alignment) {
    if (alignment == 0) return;
    std::size_t pad = static_cast<std::size_t>((alignment - (at - base) % alignment) % alignment);
    if (pad > bytes.size() - std::min(at, bytes.size())) ok = false;
    at += pad;
  }
};

void put_varint(std::string& out, std::uint64_t v) {
  do {
    auto b = static_cast<unsigned char>(v & 0x7f);
    v >>= 7;
    out.push_back(static_cast<char>(v ? (b | 0x80) : b));
  } while (v);
}

void pad_to(std::string& out, std::size_t base, std::uint64_t alignment) {
  while ((out.size() - base) % alignment) out.push_back(kPad);
}

std::optional<std::vector<Section>> read_sections(std::string_view b) {
  if (b.size() < kHeaderBytes || b.substr(0, kMagic.size()) != kMagic) return std::nullopt;
  std::vector<Section> sections;
  Cursor c{b, kHeaderBytes};
  while (c.ok && c.at < b.size()) {
    Section s;
    s.start = c.at;
    auto id = static_cast<unsigned char>(b[c.at++]);
    if (id == 0) return c.at == b.size() ? std::optional(sections) : std::nullopt;
    s.id = id & 0x7f;
    std::uint64_t length = c.varint();
    if (id & 0x80) {
      s.alignment = c.varint();
      if (s.alignment == 0 || s.alignment > 4096) return std::nullopt;
      c.align(0, s.alignment);
    }
    s.body = c.at;
    if (!c.ok || length > b.size() - s.body) return std::nullopt;
    s.end = s.body + static_cast<std::size_t>(length);
    c.at = s.end;
    sections.push_back(s);
  }
  return std::nullopt;  // no end byte
}

// A table as the writer lays it out: a count, an offset per item (of
// `index_size` bytes, aligned to it), then the items' bytes.
std::optional<std::vector<std::string_view>> read_table(Cursor& c, std::size_t base, int index_size, std::size_t end) {
  std::uint64_t n = c.varint();
  c.align(base, static_cast<std::uint64_t>(index_size));
  if (!c.ok || n > (end - std::min(c.at, end)) / static_cast<std::size_t>(index_size)) return std::nullopt;
  std::vector<std::uint64_t> offsets;
  for (std::uint64_t i = 0; i < n; ++i) offsets.push_back(c.fixed(index_size));
  std::size_t data = c.at;
  if (!c.ok || data > end) return std::nullopt;
  offsets.push_back(end - data);
  std::vector<std::string_view> items;
  for (std::uint64_t i = 0; i < n; ++i) {
    if (offsets[i] > offsets[i + 1]) return std::nullopt;
    items.push_back(c.bytes.substr(data + offsets[i], offsets[i + 1] - offsets[i]));
  }
  return items;
}

// The string section exactly as the writer would lay out `strings` at `start`.
std::string string_section(const std::vector<std::string_view>& strings, std::size_t start, std::uint64_t alignment) {
  std::string body;
  put_varint(body, strings.size());
  pad_to(body, 0, 4);
  std::uint64_t offset = 0;
  for (auto s : strings) {
    for (int i = 0; i < 4; ++i) body.push_back(static_cast<char>((offset >> (8 * i)) & 0xff));
    offset += s.size();
  }
  for (auto s : strings) body.append(s);
  std::string out(1, static_cast<char>(kStringSection | 0x80));
  put_varint(out, body.size());
  put_varint(out, alignment);
  while ((start + out.size()) % alignment) out.push_back(kPad);
  return out + body;
}

// The string ids the DIFile records of the debug section name as folders.
std::vector<std::uint64_t> file_folders(std::string_view b, const Section& debug) {
  Cursor c{b.substr(0, debug.end), debug.body};
  std::uint64_t functions = c.varint();
  c.align(debug.body, 4);
  c.at += static_cast<std::size_t>(std::min<std::uint64_t>(functions, b.size()) * 4);
  std::uint64_t ops = c.varint();
  c.align(debug.body, 8);
  if (!c.ok || ops > (debug.end - std::min(c.at, debug.end)) / 8) return {};
  c.at += static_cast<std::size_t>(ops * 8);
  auto items = read_table(c, debug.body, 4, debug.end);
  std::vector<std::uint64_t> folders;
  if (!items) return folders;
  for (auto item : *items) {
    if (item.empty() || static_cast<std::uint8_t>(item[0]) != kDIFile) continue;
    Cursor f{item, 1};
    f.varint();  // the file's name
    std::uint64_t folder = f.varint();
    if (f.ok) folders.push_back(folder);
  }
  std::sort(folders.begin(), folders.end());
  folders.erase(std::unique(folders.begin(), folders.end()), folders.end());
  return folders;
}

bool usable_root(std::string_view s) {
  return s.size() > 1 && s.front() == '/' && s.back() != '/' && s.find('\0') == std::string_view::npos &&
         s.find(kTokenStart) == std::string_view::npos;
}

// The root `s` lies in (the longest), or -1.
int root_of(std::string_view s, const std::vector<std::string>& roots) {
  int best = -1;
  for (std::size_t i = 0; i < roots.size(); ++i) {
    const std::string& r = roots[i];
    bool inside = s.substr(0, r.size()) == r && (s.size() == r.size() || s[r.size()] == '/');
    if (inside && (best < 0 || r.size() > roots[static_cast<std::size_t>(best)].size())) best = static_cast<int>(i);
  }
  return best;
}

void piece(Sha256& h, std::string_view tag, std::string_view bytes) {
  h.update(fmt::format("{}{}:", tag, bytes.size()));
  h.update(bytes);
}

BytecodePaths raw(const std::string& bytecode) {
  Sha256 h;
  h.update("tileperf-bytecode-raw/1\n");
  h.update(bytecode);
  return {h.hex(), {}};
}

// A path character: one that can continue a folder's name.
bool name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("._-+~@%").find(c) != std::string_view::npos;
}

}  // namespace

BytecodePaths bytecode_paths(const std::string& bytecode) {
  auto sections = read_sections(bytecode);
  if (!sections) return raw(bytecode);
  const Section* strings_at = nullptr;
  const Section* debug = nullptr;
  for (const auto& s : *sections) {
    if (s.id == kStringSection && !strings_at) strings_at = &s;
    if (s.id == kDebugSection && !debug) debug = &s;
  }
  if (!strings_at) return raw(bytecode);
  std::string_view b(bytecode);
  Cursor c{b.substr(0, strings_at->end), strings_at->body};
  auto strings = read_table(c, strings_at->body, 4, strings_at->end);
  // Only a table laid out exactly as the writer does is made of its strings
  // alone; any other is hashed as it is.
  if (!strings || string_section(*strings, strings_at->start, strings_at->alignment) !=
                      b.substr(strings_at->start, strings_at->end - strings_at->start)) {
    return raw(bytecode);
  }
  BytecodePaths out;
  if (debug) {
    for (auto id : file_folders(b, *debug)) {
      if (id < strings->size() && usable_root((*strings)[id])) out.roots.emplace_back((*strings)[id]);
    }
  }
  Sha256 h;
  h.update("tileperf-bytecode/1\n");
  piece(h, "before", b.substr(0, strings_at->start));
  piece(h, "after", b.substr(strings_at->end));
  h.update(fmt::format("strings {} aligned {}\n", strings->size(), strings_at->alignment));
  for (auto s : *strings) {
    int root = root_of(s, out.roots);
    if (root < 0) {
      piece(h, "S", s);
    } else {
      piece(h, fmt::format("R{}.", root), s.substr(out.roots[static_cast<std::size_t>(root)].size()));
    }
  }
  out.identity = h.hex();
  return out;
}

std::optional<std::string> bytecode_at(const std::string& bytecode, const std::vector<std::string>& roots) {
  BytecodePaths paths = bytecode_paths(bytecode);
  if (paths.roots.empty() || paths.roots.size() != roots.size()) return std::nullopt;
  auto sections = read_sections(bytecode);
  const Section* at = nullptr;
  for (const auto& s : *sections) {
    if (s.id == kStringSection) {
      at = &s;
      break;
    }
  }
  std::string_view b(bytecode);
  Cursor c{b.substr(0, at->end), at->body};
  auto strings = read_table(c, at->body, 4, at->end);
  std::vector<std::string> moved;
  for (auto s : *strings) {
    int root = root_of(s, paths.roots);
    moved.emplace_back(root < 0 ? std::string(s)
                                : roots[static_cast<std::size_t>(root)] +
                                      std::string(s.substr(paths.roots[static_cast<std::size_t>(root)].size())));
  }
  std::vector<std::string_view> views(moved.begin(), moved.end());
  return bytecode.substr(0, at->start) + string_section(views, at->start, at->alignment) + bytecode.substr(at->end);
}

std::vector<std::string> fixed_roots(std::size_t n) {
  std::vector<std::string> roots;
  for (std::size_t i = 0; i < n; ++i) roots.push_back(fmt::format("/tileperf/source-{}", i));
  return roots;
}

std::string moved_roots(const std::string& text, const std::vector<std::string>& from,
                        const std::vector<std::string>& to) {
  if (from.empty() || from.size() != to.size()) return text;
  // Through tokens, unless the text holds one already: then by plain replacement.
  if (auto tokens = roots_to_tokens(text, from)) {
    if (auto moved = tokens_to_roots(*tokens, to)) return *moved;
  }
  std::string out = text;
  for (std::size_t i = 0; i < from.size(); ++i) {
    for (std::size_t at = out.find(from[i]); at != std::string::npos; at = out.find(from[i], at + to[i].size())) {
      out.replace(at, from[i].size(), to[i]);
    }
  }
  return out;
}

std::optional<std::string> roots_to_tokens(const std::string& text, const std::vector<std::string>& roots) {
  if (text.find(kTokenStart) != std::string::npos) return std::nullopt;
  std::vector<std::size_t> order(roots.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return roots[a].size() > roots[b].size(); });
  std::string out;
  out.reserve(text.size());
  for (std::size_t at = 0; at < text.size();) {
    bool replaced = false;
    if (text[at] == '/' && (at == 0 || (!name_char(text[at - 1]) && text[at - 1] != '/'))) {
      for (auto i : order) {
        const std::string& r = roots[i];
        std::size_t end = at + r.size();
        if (r.empty() || text.compare(at, r.size(), r) != 0) continue;
        if (end < text.size() && name_char(text[end])) continue;
        out += fmt::format("{}{}>", kTokenStart, i);
        at = end;
        replaced = true;
        break;
      }
    }
    if (!replaced) out.push_back(text[at++]);
  }
  return out;
}

std::optional<std::string> tokens_to_roots(const std::string& text, const std::vector<std::string>& roots) {
  std::string out;
  out.reserve(text.size());
  std::size_t at = 0;
  while (true) {
    std::size_t token = text.find(kTokenStart, at);
    out.append(text, at, token == std::string::npos ? std::string::npos : token - at);
    if (token == std::string::npos) return out;
    std::size_t digits = token + kTokenStart.size(), end = digits;
    while (end < text.size() && end - digits < 6 && text[end] >= '0' && text[end] <= '9') ++end;
    if (end == digits || end >= text.size() || text[end] != '>') return std::nullopt;
    std::size_t index = std::stoul(text.substr(digits, end - digits));
    if (index >= roots.size()) return std::nullopt;
    out += roots[index];
    at = end + 1;
  }
}

}  // namespace tileperf
