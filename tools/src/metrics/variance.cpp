#include "metrics/variance.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "metrics/compilation.h"
#include "metrics/dump_record.h"
#include "metrics/measure.h"
#include "metrics/tool_outputs.h"
#include "readers/sass.h"
#include "support/error.h"
#include "support/forked.h"
#include "support/json_input.h"
#include "support/sha256.h"
#include "support/text.h"
#include "toolchain/cache_paths.h"

namespace tileperf {

namespace {

namespace fs = std::filesystem;

const char* mode_name(bool randomized) { return randomized ? "on" : "off"; }

// One configuration of the measurement: its bytecode and its folder.
struct Subject {
  const BatchEntry* entry;
  std::string bytecode;  // this architecture's
  nlohmann::json dump;
  fs::path dir;  // <folder>/<test>
};

struct Run {
  std::size_t subject;
  bool randomized;
  int index;
  fs::path file() const;
};

struct Context {
  const std::vector<Subject>* subjects;
  const std::vector<Run>* runs;
  const Toolchain* tc;
};

fs::path run_file(const Subject& s, bool randomized, int index) {
  return s.dir / "runs" / fmt::format("{}.{}", mode_name(randomized), index);
}

// What decides a configuration's runs: a change starts it afresh.
std::string subject_input(const Subject& s, const ToolchainRecord& tools, const Toolchain& tc) {
  CompileSetup setup = compile_setup(tools, s.dump, s.entry->arch, tc);
  nlohmann::json j = {{"bytecode", bytecode_paths(read_file(s.bytecode)).identity},
                      {"toolchain", setup.toolchain},
                      {"flags", setup.flags}};
  return j.dump(2) + "\n";
}

// In a worker: one compilation; its cubin kept by its SHA-256, the run's
// file naming it (or, on failure, <run>.error).
void compile_run(std::size_t i, void* context) {
  const auto& c = *static_cast<Context*>(context);
  const Run& run = (*c.runs)[i];
  const Subject& s = (*c.subjects)[run.subject];
  fs::path file = run_file(s, run.randomized, run.index);
  std::string stem = (s.dir / ("tmp." + file.filename().string())).string();
  try {
    Toolchain tc = *c.tc;
    tc.randomized = run.randomized;
    CompileOutput out = compile_bytecode(tc, s.bytecode, s.entry->arch, stem + ".cubin", stem + ".remarks.yaml");
    std::string sha = sha256_hex(read_file(stem + ".cubin"));
    fs::path kept = s.dir / "cubins" / sha.substr(0, 16);
    std::error_code ec;
    if (!fs::exists(kept.string() + ".cubin", ec)) {
      fs::rename(stem + ".remarks.yaml", kept.string() + ".remarks.yaml", ec);
      fs::rename(stem + ".cubin", kept.string() + ".cubin");
    }
    fs::remove(stem + ".cubin", ec);
    fs::remove(stem + ".remarks.yaml", ec);
    write_file_atomic(file.string(), sha + "\n" + out.process + "\n", Durability::kRenamed);
  } catch (const std::exception& e) {
    try {
      write_file_atomic(file.string() + ".error", std::string(e.what()) + "\n", Durability::kRenamed);
    } catch (const std::exception&) {
      // The run counts as not made: the next measurement makes it.
    }
  }
}

std::vector<Subject> subjects_of(const std::vector<BatchEntry>& entries, const ToolchainRecord& tools,
                                 const Toolchain& tc, const std::string& folder, VarianceReport& report) {
  std::vector<Subject> subjects;
  for (const auto& e : entries) {
    Subject s{&e, e.bytecode, nullptr, fs::path(folder) / e.test};
    try {
      s.dump = read_dump_record(s.bytecode, e.dump_info, e.arch);
    } catch (const InputError& err) {
      ConfigurationVariance c;
      c.test = e.test;
      c.errors.push_back(err.what());
      report.configurations.push_back(std::move(c));
      continue;
    }
    std::string input = subject_input(s, tools, tc);
    fs::path recorded = s.dir / "input.json";
    std::error_code ec;
    if (!fs::exists(recorded, ec) || read_file(recorded.string()) != input) {
      fs::remove_all(s.dir, ec);
      fs::create_directories(s.dir / "runs");
      fs::create_directories(s.dir / "cubins");
      write_file_atomic(recorded.string(), input, Durability::kRenamed);
    }
    subjects.push_back(std::move(s));
  }
  return subjects;
}

// The runs still to make (those without their file), the largest bytecode first.
std::vector<Run> pending_runs(const std::vector<Subject>& subjects, const VarianceOptions& o, VarianceReport& report) {
  std::vector<Run> runs;
  for (std::size_t i = 0; i < subjects.size(); ++i) {
    for (bool randomized : {true, false}) {
      if (randomized ? !o.randomized : !o.fixed) continue;
      for (int n = 0; n < o.runs; ++n) {
        std::error_code ec;
        if (fs::exists(run_file(subjects[i], randomized, n), ec)) {
          ++report.reused;
        } else {
          fs::remove(run_file(subjects[i], randomized, n).string() + ".error", ec);
          runs.push_back({i, randomized, n});
        }
      }
    }
  }
  std::stable_sort(runs.begin(), runs.end(), [&](const Run& a, const Run& b) {
    return fs::file_size(subjects[a.subject].bytecode) > fs::file_size(subjects[b.subject].bytecode);
  });
  return runs;
}

// The runs of one configuration, read back.
ConfigurationVariance collect(const Subject& s, const VarianceOptions& o) {
  ConfigurationVariance c;
  c.test = s.entry->test;
  std::map<std::string, CompileVariant> by_sha;
  for (bool randomized : {true, false}) {
    if (randomized ? !o.randomized : !o.fixed) continue;
    for (int n = 0; n < o.runs; ++n) {
      fs::path file = run_file(s, randomized, n);
      std::error_code ec;
      if (!fs::exists(file, ec)) {
        std::string why =
            fs::exists(file.string() + ".error", ec) ? trim(read_file(file.string() + ".error")) : "not made";
        c.errors.push_back(fmt::format("run {} with the randomisation {}: {}", n, mode_name(randomized), why));
        continue;
      }
      auto lines = split(read_file(file.string()), '\n');
      if (lines.empty()) continue;
      CompileVariant& v = by_sha[lines[0]];
      v.sha256 = lines[0];
      fs::path kept = s.dir / "cubins" / lines[0].substr(0, 16);
      v.cubin = kept.string() + ".cubin";
      v.remarks = kept.string() + ".remarks.yaml";
      ++(randomized ? v.randomized : v.fixed);
      ++(randomized ? c.randomized_runs : c.fixed_runs);
      if (!randomized && lines.size() > 1) c.process = compile_process_text(lines[1]);
    }
  }
  for (auto& [sha, v] : by_sha) c.variants.push_back(std::move(v));
  std::stable_sort(c.variants.begin(), c.variants.end(), [](const CompileVariant& a, const CompileVariant& b) {
    return std::make_pair(a.fixed, a.randomized) > std::make_pair(b.fixed, b.randomized);
  });
  return c;
}

// Each variant's metrics, and its listing beside its cubin.
void measure_variants(const Subject& s, ConfigurationVariance& c, const Toolchain& tc) {
  std::string tileir = run_tileirdisasm(tc, s.bytecode);
  auto problem = problem_from_record(s.dump, s.entry->dump_info);
  for (auto& v : c.variants) {
    ToolOutputs o;
    o.from_tools = true;
    o.sass_text = run_disassembler(tc, v.cubin);
    o.sass_name = v.cubin;
    o.res_usage_text = run_cuobjdump(tc, {std::begin(kResUsageArgs), std::end(kResUsageArgs)}, v.cubin);
    o.res_usage_name = v.cubin;
    o.tileir_text = tileir;
    o.tileir_name = s.bytecode;
    std::error_code ec;
    if (fs::exists(v.remarks, ec)) o.remarks_text = read_file(v.remarks), o.remarks_name = v.remarks;
    write_file_atomic(fs::path(v.cubin).replace_extension(".sass").string(), o.sass_text, Durability::kRenamed);
    v.values = measure(o, v.cubin, problem ? &*problem : nullptr).values;
  }
}

std::string safe_name(const std::string& name) {
  std::string out;
  for (char ch : name) out += std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-' ? ch : '_';
  return out.substr(0, 120);
}

// The text of each function of a listing, and what its instructions are.
struct FunctionText {
  std::string text, code;
};
std::map<std::string, FunctionText> functions_of(const std::string& sass, const std::string& name) {
  std::istringstream in(sass);
  SassListing listing = parse_sass(in, name);
  auto lines = split(sass, '\n');
  std::map<std::string, FunctionText> out;
  for (const auto& f : listing.functions) {
    FunctionText& t = out[f.name];
    if (f.instructions.empty()) continue;
    for (const auto& i : f.instructions) t.code += i.predicate + " " + i.opcode + " " + i.operands + "\n";
    int first = f.instructions.front().line, last = f.instructions.back().line + 1;
    for (int l = first; l <= last && l <= static_cast<int>(lines.size()); ++l) t.text += lines[l - 1] + "\n";
  }
  return out;
}

// The reproducer of one varying configuration, for the compiler's authors.
void write_evidence(const Subject& s, const ConfigurationVariance& c, const ToolchainRecord& tools,
                    const std::string& folder) {
  fs::path dir = fs::path(folder) / c.test;
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir);
  std::string bytes = read_file(s.bytecode);
  auto roots = bytecode_paths(bytes).roots;
  write_file_atomic((dir / "kernel.tileirbc").string(), bytecode_at(bytes, fixed_roots(roots.size())).value_or(bytes),
                    Durability::kRenamed);
  std::vector<std::map<std::string, FunctionText>> functions;
  std::string variants;
  for (std::size_t k = 0; k < c.variants.size(); ++k) {
    const auto& v = c.variants[k];
    std::string stem = fmt::format("variant-{}-{}", k + 1, v.sha256.substr(0, 16));
    fs::copy_file(v.cubin, dir / (stem + ".cubin"), fs::copy_options::overwrite_existing);
    std::string sass = read_file(fs::path(v.cubin).replace_extension(".sass").string());
    write_file_atomic((dir / (stem + ".sass")).string(), sass, Durability::kRenamed);
    functions.push_back(functions_of(sass, stem + ".sass"));
    variants +=
        fmt::format("- `{}.cubin` (SHA-256 {}): {} of {} runs with the randomisation on, {} of {} with it off\n", stem,
                    v.sha256, v.randomized, c.randomized_runs, v.fixed, c.fixed_runs);
  }
  std::string differing;
  for (const auto& [name, text] : functions.front()) {
    bool same = true;
    for (const auto& other : functions) same = same && other.count(name) && other.at(name).code == text.code;
    if (same) continue;
    differing += fmt::format("- `{}`:", name);
    for (std::size_t k = 0; k < functions.size(); ++k) {
      if (!functions[k].count(name)) continue;
      std::string file = fmt::format("{}.variant-{}.sass", safe_name(name), k + 1);
      write_file_atomic((dir / file).string(), functions[k].at(name).text, Durability::kRenamed);
      differing += fmt::format(" `{}`", file);
    }
    differing += "\n";
  }
  std::string versions;
  for (const auto& [name, t] : tools.tools)
    versions += fmt::format("{}{} {}", versions.empty() ? "" : ", ", name, t.version);
  std::string flags = fmt::format("{}", fmt::join(tileiras_flags(s.entry->arch), " "));
  std::string readme = fmt::format(
      "# {test}: tileiras gives different cubins for the same input\n\n"
      "Tools: {versions}.\n\n"
      "`kernel.tileirbc` is the TileIR bytecode exactly as tileiras was given it (its source folders shown as "
      "`/tileperf/source-N`). Compiled again and again with the same flags, in the same environment and folder, "
      "it gave {n} different cubins:\n\n{variants}\n"
      "The functions whose SASS differs, each variant's listing of them beside:\n\n{differing}\n"
      "The metrics that differ (tileperf's measurement of each variant, in the order above):\n\n{metrics}\n"
      "To reproduce (each run prints the cubin's SHA-256; the variants come at random, with the process's "
      "address-space randomisation; with it off, `setarch -R` before tileiras, every run gives the same one):\n\n"
      "```sh\n"
      "for i in $(seq 11); do\n"
      "  env -i LC_ALL=C PATH=/usr/bin:/bin TMPDIR=/tmp tileiras kernel.tileirbc -o kernel.cubin {flags} "
      "--remarks-output-file=kernel.remarks.yaml && sha256sum kernel.cubin\n"
      "done\n"
      "```\n",
      fmt::arg("test", c.test), fmt::arg("versions", versions), fmt::arg("n", c.variants.size()),
      fmt::arg("variants", variants),
      fmt::arg("differing", differing.empty() ? "- (none: they differ elsewhere)\n" : differing),
      fmt::arg("metrics",
               [&] {
                 std::string out;
                 for (const auto& m : differing_metrics(c, 40)) out += "- " + m + "\n";
                 return out.empty() ? std::string("- (none)\n") : out;
               }()),
      fmt::arg("flags", flags));
  write_file_atomic((dir / "README.md").string(), readme, Durability::kRenamed);
}

}  // namespace

bool ConfigurationVariance::varies_fixed() const {
  return std::count_if(variants.begin(), variants.end(), [](const CompileVariant& v) { return v.fixed > 0; }) > 1;
}

VarianceReport measure_variance(const std::vector<BatchEntry>& entries, const ToolchainRecord& tools,
                                const Toolchain& tc, const VarianceOptions& options) {
  if (options.runs < 1) throw UsageError("variance: --runs must be at least 1");
  VarianceReport report;
  fs::create_directories(options.folder);
  std::vector<Subject> subjects = subjects_of(entries, tools, tc, options.folder, report);
  std::vector<Run> runs = pending_runs(subjects, options, report);
  Context context{&subjects, &runs, &tc};
  run_forked(runs.size(), options.jobs, compile_run, &context);
  report.compiled = static_cast<int>(runs.size());
  for (const auto& s : subjects) {
    ConfigurationVariance c = collect(s, options);
    if (c.varies()) {
      try {
        measure_variants(s, c, tc);
        if (!options.evidence.empty()) write_evidence(s, c, tools, options.evidence);
      } catch (const Error& e) {
        c.errors.push_back(std::string("measuring its variants: ") + e.what());
      }
    }
    report.configurations.push_back(std::move(c));
  }
  std::sort(report.configurations.begin(), report.configurations.end(),
            [](const auto& a, const auto& b) { return a.test < b.test; });
  return report;
}

std::vector<std::string> differing_metrics(const ConfigurationVariance& c, std::size_t at_most) {
  std::map<std::string, std::vector<std::int64_t>> values;
  for (std::size_t k = 0; k < c.variants.size(); ++k) {
    for (const auto& [name, v] : c.variants[k].values) {
      auto& row = values[name];
      row.resize(c.variants.size(), 0);
      row[k] = v;
    }
  }
  // The counts a reader gates first (loops, cost, resources), then the
  // per-opcode detail, each by its relative spread.
  std::vector<std::tuple<bool, double, std::string>> rows;
  for (auto& [name, row] : values) {
    row.resize(c.variants.size(), 0);
    auto [lo, hi] = std::minmax_element(row.begin(), row.end());
    if (*lo == *hi) continue;
    double base = static_cast<double>(row.front());
    std::int64_t far = std::abs(*hi - row.front()) >= std::abs(*lo - row.front()) ? *hi : *lo;
    double pct = base == 0 ? INFINITY : 100.0 * static_cast<double>(far - row.front()) / std::abs(base);
    std::string shown = fmt::format("{} {}", name, fmt::join(row, " / "));
    shown += std::isinf(pct) ? " (new)" : fmt::format(" ({:+.1f}%)", pct);
    bool detail = name.find(".opcode.") != std::string::npos || name.rfind("tileir.", 0) == 0;
    rows.emplace_back(detail, std::isinf(pct) ? 1e300 : std::abs(pct), shown);
  }
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return std::get<0>(a) != std::get<0>(b) ? !std::get<0>(a) : std::get<1>(a) > std::get<1>(b);
  });
  std::vector<std::string> out;
  for (std::size_t i = 0; i < rows.size() && i < at_most; ++i) out.push_back(std::get<2>(rows[i]));
  return out;
}

std::string variance_markdown(const VarianceReport& r, const VarianceOptions& o, const std::string& command) {
  std::size_t on = 0, off = 0, failed = 0;
  for (const auto& c : r.configurations) {
    on += std::count_if(c.variants.begin(), c.variants.end(), [](const auto& v) { return v.randomized > 0; }) > 1;
    off += c.varies_fixed();
    failed += !c.errors.empty();
  }
  std::string out = fmt::format("`{}`: {} configuration(s)", command, r.configurations.size());
  if (o.randomized) out += fmt::format(", {} run(s) each with the randomisation on", o.runs);
  if (o.fixed) out += fmt::format(", {} with it off", o.runs);
  out += ".";
  if (o.randomized) out += fmt::format(" {} vary with the randomisation on.", on);
  if (o.fixed) out += fmt::format(" {} vary with it off.", off);
  if (failed) out += fmt::format(" {} could not be measured in full.", failed);
  out +=
      "\n\n| configuration | variants: runs with randomisation on | with it off | how the variants differ |\n"
      "| --- | --- | --- | --- |\n";
  for (const auto& c : r.configurations) {
    if (!c.varies() && c.errors.empty()) continue;
    std::vector<std::string> counts_on, counts_off;
    for (const auto& v : c.variants) {
      counts_on.push_back(fmt::format("{}", v.randomized));
      counts_off.push_back(fmt::format("{}", v.fixed));
    }
    std::string how = fmt::format("{}", fmt::join(differing_metrics(c, 6), "; "));
    for (const auto& e : c.errors) how += (how.empty() ? "" : "; ") + e;
    out += fmt::format("| `{}` | {} of {} | {} of {} | {} |\n", c.test, fmt::join(counts_on, " + "), c.randomized_runs,
                       fmt::join(counts_off, " + "), c.fixed_runs, how);
  }
  return out;
}

std::string variance_json(const VarianceReport& r) {
  nlohmann::json configurations = nlohmann::json::array();
  for (const auto& c : r.configurations) {
    nlohmann::json variants = nlohmann::json::array();
    for (const auto& v : c.variants) {
      nlohmann::json j = {{"sha256", v.sha256}, {"runs_randomized", v.randomized}, {"runs_fixed", v.fixed}};
      if (!v.values.empty()) j["metrics"] = v.values;
      variants.push_back(std::move(j));
    }
    configurations.push_back({{"test", c.test},
                              {"runs_randomized", c.randomized_runs},
                              {"runs_fixed", c.fixed_runs},
                              {"variants", variants},
                              {"differing", differing_metrics(c, 1000)},
                              {"errors", c.errors},
                              {"process", c.process}});
  }
  return nlohmann::json{{"format", "tileperf-variance/1"}, {"configurations", configurations}}.dump(1) + "\n";
}

std::string variance_summary(const std::string& file, const std::string& run_file) {
  std::error_code ec;
  if (!fs::exists(file, ec)) {
    return fmt::format(
        "whether a compilation varies under this toolchain is not measured for this run: "
        "tileperf variance --run-file {} (then this preview lists what varies)\n",
        run_file);
  }
  nlohmann::json j = parse_json(read_file(file), file);
  if (!j.is_object() || j.value("format", "") != "tileperf-variance/1" || !j.contains("configurations") ||
      !j.at("configurations").is_array()) {
    throw InputError(file, 0, "not a tileperf-variance/1 report");
  }
  std::string lines;
  std::size_t n = 0, varying = 0;
  for (const auto& c : j.at("configurations")) {
    ++n;
    if (!c.is_object() || !c.contains("variants") || !c.at("variants").is_array() || c.at("variants").size() < 2) {
      continue;
    }
    ++varying;
    std::vector<std::string> counts;
    for (const auto& v : c.at("variants")) {
      counts.push_back(fmt::format("{}+{}", v.value("runs_randomized", 0), v.value("runs_fixed", 0)));
    }
    std::vector<std::string> how;
    if (c.contains("differing") && c.at("differing").is_array()) {
      for (const auto& d : c.at("differing")) {
        if (d.is_string() && how.size() < 3) how.push_back(d.get<std::string>());
      }
    }
    lines += fmt::format("  {}: {} variants (runs with the randomisation on+off: {}){}\n", c.value("test", "?"),
                         c.at("variants").size(), fmt::join(counts, ", "),
                         how.empty() ? "" : fmt::format("; {}", fmt::join(how, "; ")));
  }
  return fmt::format("compilations that vary under this toolchain ({}): {} of {} configuration(s)\n{}", file, varying,
                     n, lines);
}

}  // namespace tileperf
