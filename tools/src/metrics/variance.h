// How tileiras's output varies: every configuration of a batch list compiled
// N times with the compiler's address-space randomisation on, off or both,
// in the controlled process of compile_bytecode, never through the result
// cache. The cubins of each configuration are told apart by their SHA-256;
// a configuration that gave more than one is measured once per variant, and
// the metrics that differ are reported. The runs are kept in a folder, one
// file per run, so that a measurement stopped half way goes on where it was
// (the same command again), and a bigger N adds runs to those made.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "metrics/compile_batch.h"
#include "toolchain/toolchain.h"
#include "toolchain/toolchain_record.h"

namespace tileperf {

struct VarianceOptions {
  int runs = 3;
  bool randomized = true;  // runs with the randomisation on
  bool fixed = false;      // runs with it off
  std::string folder;      // where the runs are kept
  std::string evidence;    // "": none; else one folder per varying configuration
  int jobs = 1;
};

// One cubin a configuration compiled to, and how often.
struct CompileVariant {
  std::string sha256;
  int randomized = 0, fixed = 0;               // runs that gave it, with the randomisation on and off
  std::string cubin, remarks;                  // kept in the measurement's folder
  std::map<std::string, std::int64_t> values;  // its metrics (measured only where there are several)
};

struct ConfigurationVariance {
  std::string test;
  int randomized_runs = 0, fixed_runs = 0;
  std::vector<std::string> errors;       // runs that failed: "<mode> run N: <why>"
  std::vector<CompileVariant> variants;  // the most frequent first
  std::string process;                   // how a run with the randomisation off ran (compile_process_text)
  bool varies() const { return variants.size() > 1; }
  bool varies_fixed() const;  // more than one variant among the runs with it off
};

struct VarianceReport {
  std::vector<ConfigurationVariance> configurations;
  int compiled = 0, reused = 0;  // runs made now, runs found in the folder
};

VarianceReport measure_variance(const std::vector<BatchEntry>& entries, const ToolchainRecord& tools,
                                const Toolchain& tc, const VarianceOptions& options);

// The metrics that differ between a configuration's variants, largest
// relative spread first: "loop.main.loads 208 / 287 (+38.0%)".
std::vector<std::string> differing_metrics(const ConfigurationVariance& c, std::size_t at_most);

// The report as Markdown (the table of docs/design/toolchain.md) and JSON.
std::string variance_markdown(const VarianceReport& r, const VarianceOptions& options, const std::string& command);
std::string variance_json(const VarianceReport& r);

// What a measurement's variance.json says varies, for a toolchain bump's
// preview: one line per varying configuration, after a line of totals; a
// line that says where none was measured (`run_file`: the run to measure).
std::string variance_summary(const std::string& variance_json_file, const std::string& run_file);

}  // namespace tileperf
