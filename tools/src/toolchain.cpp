#include "toolchain.h"

#include <filesystem>
#include <regex>
#include <sstream>

#include <fmt/format.h>

#include "error.h"
#include "process.h"
#include "text.h"

namespace tileperf {

namespace {

namespace fs = std::filesystem;

const std::regex kVersion(R"(release [0-9.]+, V([0-9]+\.[0-9]+\.[0-9]+))");
const std::regex kArchOption(R"(^\s*=(sm_[0-9]+[a-z]?)\s)");

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

std::string first_error_line(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::string t = trim(line);
    if (t.rfind("error", 0) == 0 || t.find(": error") != std::string::npos ||
        t.find("fatal") != std::string::npos) {
      return t;
    }
  }
  return {};
}

std::string tail(const std::string& text, std::size_t max_lines = 20) {
  auto lines = split(trim(text), '\n');
  if (lines.size() <= max_lines) return trim(text);
  std::string out = "...";
  for (std::size_t i = lines.size() - max_lines; i < lines.size(); ++i) out += "\n" + lines[i];
  return out;
}

void require_file(const std::string& path, const char* tool) {
  if (!fs::exists(path)) throw SkipError(fmt::format("{} not found at '{}'", tool, path));
}

}  // namespace

std::string parse_version_banner(const std::string& banner, const std::string& tool) {
  std::smatch m;
  if (!std::regex_search(banner, m, kVersion)) {
    throw ToolError(fmt::format("cannot read the version of {} from: {}", tool, tail(banner, 3)));
  }
  return m[1];
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
  std::smatch m;
  while (std::getline(in, line)) {
    if (line.find("--gpu-name") != std::string::npos) {
      in_gpu_name = true;
    } else if (in_gpu_name && std::regex_search(line, m, kArchOption)) {
      archs.push_back(m[1]);
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

CompileOutput compile_bytecode(const Toolchain& tc, const std::string& bytecode,
                               const std::string& arch, const std::string& cubin,
                               const std::string& remarks) {
  require_file(tc.tileiras, "tileiras");
  std::vector<std::string> argv = {tc.tileiras, bytecode, "-o", cubin};
  for (const auto& f : tileiras_flags(arch)) argv.push_back(f);
  argv.push_back("--remarks-output-file=" + remarks);
  fs::remove(cubin);
  fs::remove(remarks);
  auto r = run_process(argv, tool_environment(tc, tc.tileiras));
  std::string said = r.err + r.out;
  std::string what = fmt::format("tileiras failed to compile {} for {}", bytecode, arch);
  if (!r.ok()) {
    std::string first = first_error_line(said);
    throw ToolError(fmt::format("{} ({}){}{}", what, r.describe(), first.empty() ? "" : ": ",
                                first.empty() ? tail(said) : first));
  }
  // tileiras has been seen to exit 0 after printing an error.
  if (auto first = first_error_line(said); !first.empty()) {
    throw ToolError(fmt::format("{} (exit 0, but it reported an error): {}", what, first));
  }
  if (!fs::exists(cubin) || fs::file_size(cubin) == 0) {
    throw ToolError(fmt::format("{}: exit 0 but no cubin was written to {}", what, cubin));
  }
  return CompileOutput{r.seconds, said};
}

std::string Toolchain::tileirdisasm() const {
  return (fs::path(tileiras).parent_path() / "tileirdisasm").string();
}

std::string run_tileirdisasm(const Toolchain& tc, const std::string& bytecode) {
  std::string tool = tc.tileirdisasm();
  if (!fs::exists(tool)) {
    throw ToolError(fmt::format("tileirdisasm not found at '{}' (it ships beside tileiras)", tool));
  }
  auto r = run_process({tool, bytecode}, tool_environment(tc, tool));
  if (!r.ok()) {
    throw ToolError(fmt::format("tileirdisasm {} failed ({}): {}", bytecode, r.describe(), tail(r.err)));
  }
  return r.out;
}

std::string run_cuobjdump(const Toolchain& tc, const std::vector<std::string>& args,
                          const std::string& cubin) {
  require_file(tc.cuobjdump, "cuobjdump");
  std::vector<std::string> argv = {tc.cuobjdump};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.push_back(cubin);
  auto r = run_process(argv, tool_environment(tc, tc.cuobjdump));
  std::string first = first_error_line(r.err);
  if (!r.ok() || !first.empty()) {
    throw ToolError(fmt::format("cuobjdump {} {} failed ({}): {}", fmt::join(args, " "), cubin,
                                r.describe(), first.empty() ? tail(r.err) : first));
  }
  return r.out;
}

}  // namespace tileperf
