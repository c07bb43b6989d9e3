#include "metrics/disasm_batch.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "readers/elf.h"
#include "support/error.h"
#include "support/forked.h"
#include "analysis/isa.h"
#include "support/sha256.h"
#include "support/text.h"

namespace tileperf {

namespace {

namespace fs = std::filesystem;

constexpr std::string_view kFunction = "\t\tFunction : ";
constexpr std::string_view kInstruction = "        /*";
constexpr std::string_view kEncoding = "/* 0x";
constexpr std::uint64_t kAlign = 128;  // .text alignment of every cubin seen
constexpr std::uint64_t kSlot = 16;    // bytes per instruction from sm_70 on
// Code per raw-mode call: its listing (about 190 bytes per 16-byte
// instruction) stays well below the 64 MiB a tool may print.
constexpr std::uint64_t kRawCallBytes = std::uint64_t(2) << 20;

bool is_instruction_line(std::string_view line) {
  return line.substr(0, kInstruction.size()) == kInstruction && line.find(kEncoding) != std::string_view::npos;
}

// The lines of `text`, each without its '\n'; `ends[i]` is where line i's
// '\n' is (or text.size()).
std::vector<std::string_view> lines_of(std::string_view text, std::vector<std::size_t>* ends = nullptr) {
  std::vector<std::string_view> lines;
  for (std::size_t begin = 0; begin < text.size();) {
    std::size_t end = std::min(text.find('\n', begin), text.size());
    lines.push_back(text.substr(begin, end - begin));
    if (ends) ends->push_back(end);
    begin = end + 1;
  }
  return lines;
}

std::optional<std::uint64_t> parse_hex(std::string_view digits) {
  if (digits.empty() || digits.size() > 16) return std::nullopt;
  std::uint64_t v = 0;
  for (char c : digits) {
    int d = is_digit(c) ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
    if (d < 0) return std::nullopt;
    v = v * 16 + static_cast<std::uint64_t>(d);
  }
  return v;
}

std::string rtrim(std::string_view s) {
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return std::string(s);
}

// "sm_90a" -> "SM90a".
std::string raw_arch_of(std::string_view target) {
  if (target.substr(0, 3) != "sm_") return "";
  return "SM" + std::string(target.substr(3));
}

}  // namespace

std::optional<ListingFrame> listing_frame(const std::string& listing, const std::string& function) {
  std::vector<std::size_t> ends;
  auto lines = lines_of(listing, &ends);
  std::size_t first = lines.size(), last = lines.size();
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (!is_instruction_line(lines[i])) continue;
    if (first == lines.size()) first = i;
    last = i;
  }
  if (first == lines.size() || last + 1 >= lines.size()) return std::nullopt;
  std::size_t head_end = static_cast<std::size_t>(lines[first].data() - listing.data());
  std::string head = listing.substr(0, head_end);
  std::string marker = std::string(kFunction) + function + "\n";
  std::size_t at = head.find(marker);
  if (at == std::string::npos || head.find(kFunction, at + 1) != std::string::npos) return std::nullopt;
  ListingFrame frame;
  frame.before_name = head.substr(0, at + kFunction.size());
  frame.after_name = head.substr(at + marker.size() - 1);
  std::size_t trailer_begin = std::min(ends[last + 1] + 1, listing.size());
  frame.trailer = listing.substr(trailer_begin);
  constexpr std::string_view kTarget = "\tcode for ";
  std::size_t t = head.find(kTarget);
  if (t == std::string::npos) return std::nullopt;
  std::size_t t_end = head.find('\n', t);
  frame.raw_arch = raw_arch_of(std::string_view(head).substr(t + kTarget.size(), t_end - t - kTarget.size()));
  if (frame.raw_arch.empty()) return std::nullopt;
  return frame;
}

std::vector<RawInstruction> parse_raw_listing(const std::string& text) {
  auto lines = lines_of(text);
  std::vector<RawInstruction> out;
  for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
    std::string_view line = lines[i];
    if (!is_instruction_line(line)) continue;
    std::size_t close = line.find("*/", kInstruction.size());
    std::size_t enc = line.rfind(kEncoding);
    auto address = close == std::string_view::npos
                       ? std::nullopt
                       : parse_hex(line.substr(kInstruction.size(), close - kInstruction.size()));
    std::string high = trim(lines[i + 1]);
    if (!address || enc < close || high.rfind(kEncoding, 0) != 0) {
      throw InputError("nvdisasm raw listing", static_cast<int>(i + 1), "unexpected instruction line",
                       std::string(line));
    }
    out.push_back(
        {*address, rtrim(line.substr(close + 2, enc - close - 2)), std::string(line.substr(enc)), std::move(high)});
    ++i;
  }
  return out;
}

namespace {

// Whether the last operand of `body` is an address nvdisasm printed as
// absolute from a PC-relative encoding: branches, BSSY, and calls and
// returns with .REL. Sets `at`/`len` to the hex digits.
bool relative_target(std::string_view body, std::size_t& at, std::size_t& len) {
  std::string t = trim(body);
  std::string_view v = t;
  if (!v.empty() && v[0] == '@') v.remove_prefix(std::min(v.size(), v.find(' ') + 1));
  std::string_view opcode = v.substr(0, v.find(' '));
  std::string_view base = base_opcode(opcode);
  bool relative = (base == "BRA" || base == "BSSY" || has_modifier(opcode, "REL")) && !has_modifier(opcode, "ABS");
  if (!relative) return false;
  std::size_t semi = body.rfind(';');
  std::size_t x = body.rfind("0x", semi);
  if (semi == std::string_view::npos || x == std::string_view::npos || x == 0 ||
      (body[x - 1] != ' ' && body[x - 1] != ',')) {
    return false;
  }
  at = x + 2;
  len = body.find_first_not_of("0123456789abcdef", at) - at;
  return len > 0;
}

}  // namespace

std::optional<std::string> render_function(const ListingFrame& frame, const std::string& function,
                                           const std::vector<RawInstruction>& instructions, std::uint64_t base,
                                           std::uint64_t size) {
  std::vector<std::string> left;
  std::size_t width = 0;
  for (const auto& insn : instructions) {
    std::string body = insn.body;
    std::size_t at = 0, len = 0;
    if (relative_target(body, at, len)) {
      auto target = parse_hex(std::string_view(body).substr(at, len));
      if (!target || *target < base || *target - base > size) return std::nullopt;
      body.replace(at, len, fmt::format("{:x}", *target - base));
    }
    left.push_back(fmt::format("{}{:04x}*/{}", kInstruction, insn.address - base, body));
    width = std::max(width, left.back().size());
  }
  // nvdisasm leaves at least two spaces before the encoding column.
  width += 2;
  std::string out = frame.before_name + function + frame.after_name;
  for (std::size_t i = 0; i < instructions.size(); ++i) {
    out += left[i] + std::string(width - left[i].size(), ' ') + instructions[i].low + "\n";
    out += std::string(width, ' ') + instructions[i].high + "\n";
  }
  return out + frame.trailer;
}

std::optional<CubinCode> cubin_code(const std::string& data, const std::string& filename) {
  ElfFile elf = parse_elf(data, filename);
  std::optional<std::size_t> text;
  for (std::size_t i = 0; i < elf.sections.size(); ++i) {
    if (!elf.sections[i].is_text()) continue;
    if (text) return std::nullopt;
    text = i;
  }
  if (!text) return std::nullopt;
  const ElfSection& s = elf.sections[*text];
  if (s.name.size() <= 6 || s.size == 0 || s.size % kSlot != 0 || !s.has_file_data()) return std::nullopt;
  for (const auto& r : elf.sections) {
    bool relocation = r.type == 4 /* SHT_RELA */ || r.type == 9 /* SHT_REL */;
    if (relocation && r.info == *text && r.size > 0) return std::nullopt;
  }
  return CubinCode{s.name.substr(6), std::string(section_data(data, s)), elf.flags, elf.abi};
}

namespace {

BatchListing alone(const Toolchain& tc, const std::string& cubin, std::size_t& processes) {
  ++processes;
  try {
    return {run_disassembler(tc, cubin), ""};
  } catch (const Error& e) {
    return {std::nullopt, e.what()};
  }
}

// A scratch file for the raw bytes, removed when it goes out of scope.
class ScratchFile {
 public:
  explicit ScratchFile(const std::string& data) {
    std::string pattern = (fs::temp_directory_path() / "tileperf-raw.XXXXXX").string();
    int fd = ::mkstemp(pattern.data());
    if (fd < 0) throw IoError(pattern, errno, "cannot create");
    ::close(fd);
    path_ = pattern;
    write_file_atomic(path_, data, Durability::kRenamed);
  }
  ~ScratchFile() { ::unlink(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

struct Member {
  std::size_t index;  // into the batch's cubins
  CubinCode code;
  std::uint64_t base = 0;
  const ListingFrame* frame = nullptr;
};

// Where the frames learned for one nvdisasm are kept between batches: a
// file per ELF flags value, named by nvdisasm's identity and the flags.
std::string frame_file(const Toolchain& tc, const std::string& dir, const CubinCode& code) {
  if (dir.empty()) return "";
  std::error_code ec;
  auto size = fs::file_size(tc.nvdisasm(), ec);
  auto time = fs::last_write_time(tc.nvdisasm(), ec).time_since_epoch().count();
  std::string id = fmt::format("{}|{}|{}|{:x}|{:x}", tc.nvdisasm(), size, time, code.flags, code.abi);
  return (fs::path(dir) / (sha256_hex(id) + ".json")).string();
}

std::optional<ListingFrame> read_frame(const std::string& file) {
  std::error_code ec;
  if (file.empty() || !fs::is_regular_file(file, ec)) return std::nullopt;
  try {
    auto j = nlohmann::json::parse(read_file(file));
    return ListingFrame{j.at("before_name"), j.at("after_name"), j.at("trailer"), j.at("raw_arch")};
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

void save_frame(const std::string& file, const ListingFrame& f) {
  if (file.empty()) return;
  nlohmann::json j = {
      {"before_name", f.before_name}, {"after_name", f.after_name}, {"trailer", f.trailer}, {"raw_arch", f.raw_arch}};
  try {
    write_file_atomic(file, j.dump() + "\n", Durability::kRenamed);
  } catch (const Error&) {
    // Learned again by the next batch.
  }
}

// The raw bytes of one call: each member's code at an aligned offset, which
// becomes its base.
std::string lay_out(std::vector<Member*>& call) {
  std::string buffer;
  for (Member* m : call) {
    buffer.resize((buffer.size() + kAlign - 1) / kAlign * kAlign, '\0');
    m->base = buffer.size();
    buffer += m->code.bytes;
  }
  return buffer;
}

// The listings of `call`'s members, cubins of one raw architecture, from the
// output of its one raw-mode call (nullopt when the call failed); a cubin the
// output does not stand for is disassembled alone.
void take_listings(const Toolchain& tc, const std::vector<std::string>& cubins, const std::vector<Member*>& call,
                   const std::optional<std::string>& output, Disassembled& done) {
  std::vector<RawInstruction> raw;
  try {
    if (output) raw = parse_raw_listing(*output);
  } catch (const Error&) {
    raw.clear();
  }
  std::size_t at = 0;
  for (Member* m : call) {
    std::uint64_t end = m->base + m->code.bytes.size();
    while (at < raw.size() && raw[at].address < m->base) ++at;
    std::size_t from = at;
    while (at < raw.size() && raw[at].address < end) ++at;
    std::vector<RawInstruction> mine(raw.begin() + static_cast<std::ptrdiff_t>(from),
                                     raw.begin() + static_cast<std::ptrdiff_t>(at));
    bool whole = mine.size() == m->code.bytes.size() / kSlot;
    for (std::size_t k = 0; whole && k < mine.size(); ++k) whole = mine[k].address == m->base + k * kSlot;
    auto listing =
        whole ? render_function(*m->frame, m->code.function, mine, m->base, m->code.bytes.size()) : std::nullopt;
    done.listings[m->index] = listing ? BatchListing{listing, ""} : alone(tc, cubins[m->index], done.processes);
  }
}

// The raw-mode calls: each architecture's members, cut where a call would
// pass kRawCallBytes, then the largest call halved while there are fewer
// calls than workers, so that every worker has one.
std::vector<std::vector<Member*>> plan_calls(const std::map<std::string, std::vector<Member*>>& by_arch, int workers) {
  auto bytes_of = [](const std::vector<Member*>& call) {
    std::uint64_t bytes = 0;
    for (const Member* m : call) bytes += m->code.bytes.size();
    return bytes;
  };
  std::vector<std::vector<Member*>> calls;
  for (const auto& [arch, group] : by_arch) {
    std::vector<Member*> call;
    std::uint64_t bytes = 0;
    for (Member* m : group) {
      if (!call.empty() && bytes + m->code.bytes.size() > kRawCallBytes) {
        calls.push_back(std::move(call));
        call.clear();
        bytes = 0;
      }
      call.push_back(m);
      bytes += m->code.bytes.size();
    }
    if (!call.empty()) calls.push_back(std::move(call));
  }
  while (calls.size() < static_cast<std::size_t>(std::max(1, workers))) {
    auto largest = std::max_element(calls.begin(), calls.end(),
                                    [&](const auto& a, const auto& b) { return bytes_of(a) < bytes_of(b); });
    if (largest == calls.end() || largest->size() < 2) break;
    std::uint64_t half = bytes_of(*largest) / 2, bytes = 0;
    std::size_t cut = 1;
    while (cut + 1 < largest->size() && bytes + (*largest)[cut - 1]->code.bytes.size() < half) {
      bytes += (*largest)[cut - 1]->code.bytes.size();
      ++cut;
    }
    std::vector<Member*> second(largest->begin() + static_cast<std::ptrdiff_t>(cut), largest->end());
    largest->resize(cut);
    calls.push_back(std::move(second));
  }
  return calls;
}

}  // namespace

Disassembled disassemble_many(const Toolchain& tc, const std::vector<std::string>& cubins, const std::string& frame_dir,
                              int workers) {
  Disassembled done;
  done.listings.resize(cubins.size());
  std::vector<Member> members;
  bool raw = fs::exists(tc.nvdisasm());
  for (std::size_t i = 0; i < cubins.size(); ++i) {
    std::optional<CubinCode> code;
    try {
      if (raw) code = cubin_code(read_file(cubins[i]), cubins[i]);
    } catch (const Error&) {
      code.reset();  // disassembled alone, which reports what is wrong
    }
    if (code) {
      members.push_back(Member{i, std::move(*code)});
    } else {
      done.listings[i] = alone(tc, cubins[i], done.processes);
    }
  }
  // A frame per ELF flags value: kept from an earlier batch, else learned
  // from the ELF-mode listing of the first cubin with those flags (those
  // listings made side by side, up to `workers` at a time).
  auto key_of = [](const Member& m) { return std::uint64_t(m.code.abi) << 32 | m.code.flags; };
  std::map<std::uint64_t, std::optional<ListingFrame>> frames;
  std::vector<Member*> learners;
  for (auto& m : members) {
    auto [it, fresh] = frames.try_emplace(key_of(m));
    if (fresh) {
      it->second = read_frame(frame_file(tc, frame_dir, m.code));
      if (!it->second) learners.push_back(&m);
    }
  }
  auto learned = texts_forked(learners.size(), workers,
                              [&](std::size_t i) { return run_disassembler(tc, cubins[learners[i]->index]); });
  done.processes += learners.size();
  std::vector<bool> learner(cubins.size(), false);
  for (std::size_t i = 0; i < learners.size(); ++i) {
    learner[learners[i]->index] = true;
    const Member& m = *learners[i];
    done.listings[m.index] = BatchListing{learned[i].text, learned[i].error};
    auto& frame = frames[key_of(m)];
    frame = learned[i].text ? listing_frame(*learned[i].text, m.code.function) : std::nullopt;
    if (frame) save_frame(frame_file(tc, frame_dir, m.code), *frame);
  }
  std::map<std::string, std::vector<Member*>> by_arch;
  for (auto& m : members) {
    if (learner[m.index]) continue;
    const auto& frame = frames[key_of(m)];
    m.frame = frame ? &*frame : nullptr;
    if (m.frame) {
      by_arch[m.frame->raw_arch].push_back(&m);
    } else {
      done.listings[m.index] = alone(tc, cubins[m.index], done.processes);
    }
  }
  // The raw-mode calls, side by side.
  auto calls = plan_calls(by_arch, workers);
  std::vector<std::string> buffers;
  for (auto& call : calls) buffers.push_back(lay_out(call));
  auto outputs = texts_forked(calls.size(), workers, [&](std::size_t i) {
    ScratchFile file(buffers[i]);
    return run_nvdisasm_raw(tc, calls[i][0]->frame->raw_arch, file.path());
  });
  done.processes += calls.size();
  for (std::size_t i = 0; i < calls.size(); ++i) take_listings(tc, cubins, calls[i], outputs[i].text, done);
  return done;
}

}  // namespace tileperf
