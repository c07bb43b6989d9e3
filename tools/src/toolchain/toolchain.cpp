#include "toolchain/toolchain.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>

#include <fmt/format.h>

#include "support/error.h"
#include "support/process.h"
#include "support/sha256.h"
#include "support/text.h"
#include "toolchain/cache_paths.h"

namespace tileperf {

namespace {

namespace fs = std::filesystem;

std::size_t digits_from(std::string_view s, std::size_t at, bool dots = false) {
  while (at < s.size() && (is_digit(s[at]) || (dots && s[at] == '.'))) ++at;
  return at;
}

// "release 13.4, V13.4.92" anywhere in `text`: "13.4.92", or "".
std::string version_in(std::string_view text) {
  constexpr std::string_view kRelease = "release ";
  for (auto at = text.find(kRelease); at != std::string_view::npos; at = text.find(kRelease, at + 1)) {
    std::size_t p = digits_from(text, at + kRelease.size(), true);
    if (p == at + kRelease.size() || text.substr(p, 3) != ", V") continue;
    std::size_t begin = p + 3, end = begin;
    for (int part = 0; part < 3; ++part) {
      std::size_t next = digits_from(text, end + (part > 0 ? 1 : 0));
      if (next == end + (part > 0 ? 1 : 0) || (part > 0 && text[end] != '.')) break;
      end = next;
      if (part == 2) return std::string(text.substr(begin, end - begin));
    }
  }
  return "";
}

// "    =sm_100    -   SM 100": "sm_100", or "".
std::string arch_option(std::string_view line) {
  std::string_view t = line.substr(std::min(line.size(), line.find_first_not_of(" \t")));
  if (t.substr(0, 4) != "=sm_") return "";
  std::size_t end = digits_from(t, 4);
  if (end == 4) return "";
  if (end < t.size() && t[end] >= 'a' && t[end] <= 'z') ++end;
  bool space_after = end < t.size() && (t[end] == ' ' || t[end] == '\t' || t[end] == '\r');
  return space_after ? std::string(t.substr(1, end - 1)) : "";
}

// tileiras finds libnvvm and ptxas relative to its own executable unless
// CUDA_HOME points elsewhere; a system toolkit of another release there makes
// it fail with no useful message. cuTile drops the variables too.
ProcessOptions tool_environment(const Toolchain& tc, const std::string& tool) {
  ProcessOptions opt;
  opt.timeout_seconds = tc.timeout_seconds;
  opt.unset_env = {"CUDA_HOME", "CUDA_PATH"};
  // cuobjdump needs nvdisasm for --dump-sass; the pip wheels put it beside.
  std::string dir = fs::path(tool).parent_path().string();
  const char* path = std::getenv("PATH");
  if (!dir.empty()) opt.set_env["PATH"] = dir + (path ? std::string(":") + path : "");
  return opt;
}

std::string first_error_line(std::string_view text) {
  for (std::size_t begin = 0, end = 0; begin < text.size(); begin = end + 1) {
    end = std::min(text.find('\n', begin), text.size());
    std::string t = trim(text.substr(begin, end - begin));
    if (t.rfind("error", 0) == 0 || t.find(": error") != std::string::npos || t.find("fatal") != std::string::npos) {
      return t;
    }
  }
  return {};
}

// The last lines of what a tool said (of its last 16 KiB: a tool may have
// written 64 MiB).
std::string tail(std::string_view text, std::size_t max_lines = 20) {
  constexpr std::size_t kRecent = 16 << 10;
  bool cut = text.size() > kRecent;
  if (cut) text = text.substr(text.size() - kRecent);
  auto lines = split(trim(text), '\n');
  if (!cut && lines.size() <= max_lines) return trim(text);
  std::size_t from = lines.size() > max_lines ? lines.size() - max_lines : 0;
  std::string out = "...";
  for (std::size_t i = from; i < lines.size(); ++i) out += "\n" + lines[i];
  return out;
}

// Whether the file system `path` would be written to has no block left.
bool device_full(const std::string& path) {
  struct statvfs st {};
  std::string dir = fs::path(path).parent_path().string();
  return ::statvfs(dir.empty() ? "." : dir.c_str(), &st) == 0 && st.f_bavail == 0;
}

void require_file(const std::string& path, const char* tool) {
  if (!fs::exists(path)) throw SkipError(fmt::format("{} not found at '{}'", tool, path));
}

// What the tool run `r`, which said `said`, did wrong, or "" when it did
// its work: failed (crash, hang, exit code, flood), reported an error with
// exit 0, or printed nothing where `needs_output` expected output.
std::string tool_failure(const ProcessResult& r, const std::string& said, bool needs_output) {
  std::string first = first_error_line(said);
  if (!r.ok())
    return fmt::format("({}){}{}", r.describe(), first.empty() && tail(said).empty() ? "" : ": ",
                       first.empty() ? tail(said) : first);
  if (!first.empty()) return "(exit 0, but it reported an error): " + first;
  if (needs_output && is_blank(r.out)) return "(exit 0, but it printed nothing)";
  return "";
}

constexpr const char* kCompileRoot = "/tmp/tileperf-tileiras";
constexpr const char* kInputName = "kernel.tileirbc";
constexpr const char* kCubinName = "kernel.cubin";
constexpr const char* kRemarksName = "kernel.remarks.yaml";

// The working folder of one compilation: /tmp/tileperf-tileiras/NN, the
// first slot whose lock is free (held while this lives), emptied; else a
// private temporary folder. Removed at the end.
class CompileFolder {
 public:
  CompileFolder() {
    std::error_code ec;
    if (fs::create_directory(kCompileRoot, ec) && !ec) {
      fs::permissions(kCompileRoot, fs::perms::all | fs::perms::sticky_bit, ec);  // every user's slots
    }
    for (int slot = 0; slot < kCompilerSlots && path_.empty(); ++slot) take(slot);
    if (path_.empty()) {
      std::string dir = (fs::temp_directory_path(ec) / "tileperf-tileiras.XXXXXX").string();
      if (!::mkdtemp(dir.data())) throw IoError(dir, errno, "cannot create");
      path_ = dir;
      fs::create_directory(fs::path(path_) / "tmp", ec);
    }
  }
  ~CompileFolder() {
    std::error_code ec;
    fs::remove_all(path_, ec);
    if (fd_ >= 0) ::close(fd_);
  }
  CompileFolder(const CompileFolder&) = delete;
  CompileFolder& operator=(const CompileFolder&) = delete;
  const std::string& path() const { return path_; }
  bool fixed() const { return fd_ >= 0; }

 private:
  void take(int slot) {
    std::string name = fmt::format("{}/{:02}", kCompileRoot, slot);
    int fd = ::open((name + ".lock").c_str(), O_RDONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return;
    std::error_code ec;
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
      fs::remove_all(name, ec);
      if (!ec && fs::create_directories(fs::path(name) / "tmp", ec) && !ec) {
        fd_ = fd;
        path_ = name;
        return;
      }
    }
    ::close(fd);
  }
  int fd_ = -1;
  std::string path_;
};

// The files tileiras reads beside itself (relative to its own folder): it
// finds them through /proc/self/exe.
constexpr const char* kCompilerFiles[] = {"tileiras", "ptxas", "../lib/libnvvm.so.4"};

bool is_elf(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[4] = {};
  return in.read(magic, 4) && std::string_view(magic, 4) ==
                                  "\x7f"
                                  "ELF";
}

// tileiras at a path of the same length on every machine: its own path
// shapes the allocations of its process (it reads /proc/self/exe, and the
// folders on the way), so it runs from /tmp/tileperf-tileiras/tools-<16 hex
// digits of its identity>/bin/tileiras, beside hard links (or copies, across
// file systems) of ptxas and libnvvm, made once per release. The tool
// itself where that cannot be made (a script, a missing file): "".
std::string fixed_tool_path(const std::string& tileiras) {
  std::error_code ec;
  fs::path bin = fs::path(tileiras).parent_path();
  if (!is_elf(tileiras)) return "";
  std::string identity = tileiras;
  for (const char* f : kCompilerFiles) {
    fs::path file = bin / f;
    if (!fs::is_regular_file(file, ec)) return "";
    identity +=
        fmt::format("\n{} {} {}", f, fs::file_size(file, ec), fs::last_write_time(file, ec).time_since_epoch().count());
  }
  fs::path view = fs::path(kCompileRoot) / ("tools-" + sha256_hex(identity).substr(0, 16));
  fs::path tool = view / "bin" / "tileiras";
  if (fs::exists(view / "complete", ec)) return tool.string();
  fs::path part = view.string() + ".part." + std::to_string(::getpid());
  fs::remove_all(part, ec);
  for (const char* f : kCompilerFiles) {
    fs::path to = (part / "bin" / f).lexically_normal();
    fs::create_directories(to.parent_path(), ec);
    fs::create_hard_link(bin / f, to, ec);
    if (ec) fs::copy_file(bin / f, to, ec);
    if (ec) break;
  }
  if (!ec) write_file_atomic((part / "complete").string(), identity + "\n", Durability::kRenamed);
  if (!ec) fs::rename(part, view, ec);
  fs::remove_all(part, ec);
  return fs::exists(view / "complete", ec) ? tool.string() : "";
}

// The controlled environment of a compilation in `folder` (compile_bytecode).
ProcessOptions compile_environment(const Toolchain& tc, const std::string& folder) {
  ProcessOptions opt;
  opt.timeout_seconds = tc.timeout_seconds;
  opt.clear_env = true;
  for (const auto& [name, value] : kCompilerEnvironment) opt.set_env[name] = value;
  opt.set_env["TMPDIR"] = folder + "/tmp";
  if (const char* pass = std::getenv("TILEPERF_COMPILER_ENV")) {
    for (const auto& name : split(pass, ' ')) {
      if (const char* v = name.empty() ? nullptr : std::getenv(name.c_str())) opt.set_env[name] = v;
    }
  }
  opt.working_dir = folder;
  opt.program = tc.tileiras;
  opt.fixed_layout = !tc.randomized;
  return opt;
}

std::string process_of(const Toolchain& tc, const ProcessResult& r, bool fixed_folder, bool fixed_tool) {
  std::string folder = fixed_folder ? "" : "; a private working folder: no slot of /tmp/tileperf-tileiras was free";
  if (!fixed_tool) folder += "; tileiras run from where it is installed";
  if (tc.randomized) return "randomized: asked" + folder;
  if (r.layout_errno != 0) {
    return fmt::format("randomized: personality refused: {}{}", std::strerror(r.layout_errno), folder);
  }
  return folder.empty() ? "fixed" : "fixed (" + folder.substr(2) + ")";
}

}  // namespace

std::string compile_process_text(const std::string& process) {
  constexpr std::string_view kRandomized = "randomized: ";
  if (process.rfind(kRandomized, 0) == 0) {
    return fmt::format("address-space randomisation on ({})", process.substr(kRandomized.size()));
  }
  if (process.rfind("fixed", 0) == 0) return "address-space randomisation off" + process.substr(5);
  return process;
}

bool randomized_from_environment() {
  const char* v = std::getenv("TILEPERF_COMPILER_ASLR");
  if (!v || !*v || std::string_view(v) == "off") return false;
  if (std::string_view(v) == "on") return true;
  throw UsageError(fmt::format("TILEPERF_COMPILER_ASLR={}: expected on or off", v));
}

std::string probe_compile_process() {
  ProcessOptions opt;
  opt.timeout_seconds = 60;
  opt.fixed_layout = true;
  auto r = run_process({"/bin/true"}, opt);
  if (r.layout_errno != 0) return fmt::format("randomized: personality refused: {}", std::strerror(r.layout_errno));
  return "fixed";
}

void check_timeout(const Toolchain& tc) {
  if (!std::isfinite(tc.timeout_seconds) || tc.timeout_seconds <= 0) {
    throw UsageError(fmt::format("--timeout must be a positive number of seconds, got {}", tc.timeout_seconds));
  }
}

std::string parse_version_banner(const std::string& banner, const std::string& tool) {
  std::string version = version_in(banner);
  if (version.empty()) {
    throw ToolError(fmt::format("cannot read the version of {} from: {}", tool, tail(banner, 3)));
  }
  return version;
}

std::string tool_version(const std::string& path) {
  require_file(path, "tool");
  Toolchain tc;
  tc.timeout_seconds = 60;
  auto r = run_process({path, "--version"}, tool_environment(tc, path));
  if (!r.ok()) throw ToolError(fmt::format("{} --version failed: {}", path, r.describe()));
  return parse_version_banner(r.out + r.err, path);
}

std::vector<std::string> parse_architectures(const std::string& help_text) {
  std::vector<std::string> archs;
  bool in_gpu_name = false;
  std::istringstream in(help_text);
  std::string line;
  while (std::getline(in, line)) {
    std::string arch = arch_option(line);
    if (line.find("--gpu-name") != std::string::npos) {
      in_gpu_name = true;
    } else if (in_gpu_name && !arch.empty()) {
      archs.push_back(arch);
    } else if (in_gpu_name && !archs.empty()) {
      break;
    }
  }
  return archs;
}

std::vector<std::string> tileiras_architectures(const std::string& tileiras) {
  require_file(tileiras, "tileiras");
  Toolchain tc;
  tc.timeout_seconds = 60;
  auto r = run_process({tileiras, "--help"}, tool_environment(tc, tileiras));
  if (!r.ok()) throw ToolError(fmt::format("{} --help failed: {}", tileiras, r.describe()));
  return parse_architectures(r.out);
}

std::vector<std::string> tileiras_flags(const std::string& arch) {
  return {"--gpu-name", arch, "-O3", "--lineinfo", "--remark-format=yaml", "--remarks=all"};
}

CompileOutput compile_bytecode(const Toolchain& tc, const std::string& bytecode, const std::string& arch,
                               const std::string& cubin, const std::string& remarks) {
  check_timeout(tc);
  require_file(tc.tileiras, "tileiras");
  std::string bytes = read_file(bytecode);
  BytecodePaths paths = bytecode_paths(bytes);
  std::vector<std::string> shown = fixed_roots(paths.roots.size());
  CompileFolder folder;
  fs::path dir(folder.path());
  write_file_atomic((dir / kInputName).string(), bytecode_at(bytes, shown).value_or(bytes), Durability::kRenamed);
  std::vector<std::string> argv = {fs::path(tc.tileiras).filename().string(), kInputName, "-o", kCubinName};
  for (const auto& f : tileiras_flags(arch)) argv.push_back(f);
  argv.push_back(std::string("--remarks-output-file=") + kRemarksName);
  fs::remove(cubin);
  fs::remove(remarks);
  std::string fixed_tool = fixed_tool_path(tc.tileiras);
  ProcessOptions options = compile_environment(tc, folder.path());
  if (!fixed_tool.empty()) options.program = fixed_tool;
  auto r = run_process(argv, options);
  std::string said = r.err + r.out;
  std::string what = fmt::format("tileiras failed to compile {} for {}", bytecode, arch);
  if (!r.ok()) {
    // A full disk is the file system's failure, not the compiler's.
    if (device_full((dir / kCubinName).string())) throw IoError(folder.path(), ENOSPC, "tileiras cannot write");
    std::string first = first_error_line(said);
    throw ToolError(
        fmt::format("{} ({}){}{}", what, r.describe(), first.empty() ? "" : ": ", first.empty() ? tail(said) : first));
  }
  // tileiras has been seen to exit 0 after printing an error.
  if (auto first = first_error_line(said); !first.empty()) {
    throw ToolError(fmt::format("{} (exit 0, but it reported an error): {}", what, first));
  }
  std::error_code ec;
  if (!fs::exists(dir / kCubinName, ec) || fs::file_size(dir / kCubinName, ec) == 0) {
    throw ToolError(fmt::format("{}: exit 0 but no cubin was written to {}", what, cubin));
  }
  // A full disk is the file system's failure, not the compiler's.
  if (device_full(cubin)) throw IoError(cubin, ENOSPC, "cannot write");
  write_file_atomic(cubin, read_file((dir / kCubinName).string()), Durability::kRenamed);
  if (fs::exists(dir / kRemarksName, ec)) {
    write_file_atomic(remarks, moved_roots(read_file((dir / kRemarksName).string()), shown, paths.roots),
                      Durability::kRenamed);
  }
  return CompileOutput{r.seconds, said, process_of(tc, r, folder.fixed(), !fixed_tool.empty())};
}

std::string Toolchain::tileirdisasm() const { return (fs::path(tileiras).parent_path() / "tileirdisasm").string(); }

std::string run_tileirdisasm(const Toolchain& tc, const std::string& bytecode) {
  check_timeout(tc);
  std::string tool = tc.tileirdisasm();
  if (!fs::exists(tool)) {
    throw ToolError(fmt::format("tileirdisasm not found at '{}' (it ships beside tileiras)", tool));
  }
  std::vector<std::string> argv = {tool};
  argv.insert(argv.end(), std::begin(kTileirdisasmArgs), std::end(kTileirdisasmArgs));
  argv.push_back(bytecode);
  auto r = run_process(argv, tool_environment(tc, tool));
  if (std::string failure = tool_failure(r, r.err, true); !failure.empty()) {
    throw ToolError(fmt::format("tileirdisasm {} {} failed {}", fmt::join(kTileirdisasmArgs, " "), bytecode, failure));
  }
  return r.out;
}

std::string Toolchain::nvdisasm() const { return (fs::path(cuobjdump).parent_path() / "nvdisasm").string(); }

std::string run_disassembler(const Toolchain& tc, const std::string& cubin) {
  check_timeout(tc);
  require_file(tc.cuobjdump, "cuobjdump");
  std::string tool = tc.nvdisasm();
  if (!fs::exists(tool)) return run_cuobjdump(tc, {"--dump-sass"}, cubin);
  std::vector<std::string> argv = {tool};
  argv.insert(argv.end(), std::begin(kNvdisasmArgs), std::end(kNvdisasmArgs));
  argv.push_back(cubin);
  auto r = run_process(argv, tool_environment(tc, tool));
  if (std::string failure = tool_failure(r, r.err, true); !failure.empty()) {
    throw ToolError(fmt::format("nvdisasm {} {} failed {}", fmt::join(kNvdisasmArgs, " "), cubin, failure));
  }
  // cuobjdump heads the listing with the target nvdisasm names first:
  // "\t.target\tsm_90a" -> "\n\tcode for sm_90a\n".
  constexpr std::string_view kTarget = "\t.target\t";
  std::size_t end = r.out.find('\n');
  if (r.out.compare(0, kTarget.size(), kTarget) != 0 || end == std::string::npos) {
    throw ToolError(
        fmt::format("nvdisasm {} printed no '.target' line first: {}", cubin, tail(r.out.substr(0, 200), 2)));
  }
  std::string target = r.out.substr(kTarget.size(), end - kTarget.size());
  return "\n\tcode for " + target + "\n" + r.out;
}

std::string run_nvdisasm_raw(const Toolchain& tc, const std::string& raw_arch, const std::string& file) {
  check_timeout(tc);
  std::string tool = tc.nvdisasm();
  require_file(tool, "nvdisasm");
  std::vector<std::string> argv = {tool, "-b", raw_arch};
  for (const char* arg : kNvdisasmArgs) {
    if (std::string_view(arg) != "-pb") argv.push_back(arg);
  }
  argv.push_back(file);
  auto r = run_process(argv, tool_environment(tc, tool));
  if (std::string failure = tool_failure(r, r.err, true); !failure.empty()) {
    throw ToolError(fmt::format("nvdisasm -b {} {} failed {}", raw_arch, file, failure));
  }
  return r.out;
}

std::string run_cuobjdump(const Toolchain& tc, const std::vector<std::string>& args, const std::string& cubin) {
  check_timeout(tc);
  require_file(tc.cuobjdump, "cuobjdump");
  std::vector<std::string> argv = {tc.cuobjdump};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.push_back(cubin);
  auto r = run_process(argv, tool_environment(tc, tc.cuobjdump));
  if (std::string failure = tool_failure(r, r.err, true); !failure.empty()) {
    throw ToolError(fmt::format("cuobjdump {} {} failed {}", fmt::join(args, " "), cubin, failure));
  }
  return r.out;
}

}  // namespace tileperf
