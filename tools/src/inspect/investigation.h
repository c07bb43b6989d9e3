// The work of `tileperf investigate`: one configuration on one
// architecture, as it is and as the what-if variants of the analysis guide
// make it (isolating a costly operation, exp against exp2, token order
// off, other hints, other tile sizes), each exported by the dump step's
// Python (tileperf_dump.investigate, which edits no file), compiled (side
// by side, through the result cache), measured and estimated, then ranked
// by the launch estimate's change. report/investigation_text shows it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tileperf {

struct InvestigationInputs {
  std::string test;  // perf.<kernel>.<config>.<arch>
  std::string kernel, config, arch;
  std::string kernel_record;  // <work>/<kernel>/configs.json
  std::string work_dir;       // the run's work folder
  std::string toolchain_file, cache_dir;
  double timeout = 120;        // seconds per tool
  int jobs = 1;                // tileiras processes at a time
  std::string kinds;           // the variant kinds, comma-separated ("": all)
  std::string update_command;  // how the run updates its baselines (for the notes)
};

struct VariantOutcome {
  std::string id, kind, what, where;  // id: base, v01, ...
  nlohmann::json changes = nlohmann::json::object();
  std::string error;                           // why it has no estimate ("": it has one)
  std::map<std::string, std::int64_t> values;  // its metrics
  std::string limit, occupancy_limit;          // the launch estimate's limiting term, what limits residency
  std::string cache;                           // hit, miss, off
  std::string bytecode;                        // its bytecode file

  bool estimated() const { return error.empty() && values.count("cost.time_ns"); }
  std::int64_t value(const std::string& name) const {
    auto it = values.find(name);
    return it == values.end() ? 0 : it->second;
  }
};

struct Investigation {
  InvestigationInputs inputs;
  std::string source;
  VariantOutcome base;
  std::vector<VariantOutcome> variants;              // best estimate first; those without one last
  nlohmann::json sites = nlohmann::json::array();    // the costly operations found, by class and line
  nlohmann::json tuning = nlohmann::json::object();  // the tuning arguments and hints the variants start from
  std::vector<std::string> notes;
  std::size_t compiled = 0, cached = 0;
  double export_seconds = 0, compile_seconds = 0, measure_seconds = 0, seconds = 0;
};

// Runs the investigation; InputError when the configuration itself does
// not export or its record cannot be read (a variant that does not is its
// row's error).
Investigation investigate(const InvestigationInputs& in);

// The estimate's change of a variant against the base, as a fraction
// (-0.38: 38% less estimated time); 0 without an estimate.
double estimate_change(const Investigation& inv, const VariantOutcome& v);

}  // namespace tileperf
