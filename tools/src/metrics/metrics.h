// The metrics model: named integer metrics plus provenance (test identity,
// tool versions, flags, generator), read from and written to JSON with
// sorted keys so that baseline diffs show exactly what moved.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/json_input.h"
#include "support/work_paths.h"

namespace tileperf {

inline constexpr const char* kMetricsFormat = "tileperf-metrics/1";

struct TestId {
  std::string kernel;
  std::string config;
  std::string arch;
  std::string name() const { return "perf." + kernel + "." + config + "." + arch; }
};

// The parts of `name` ("perf.<kernel>.<config>.<arch>", as name() makes
// it), or nullopt when it has other parts; validate_test_id checks them.
std::optional<TestId> parse_test_name(const std::string& name);

// Another cubin the same bytecode compiled to (a configuration whose
// compilation varies), and its metrics.
struct CompileVariantMetrics {
  std::string cubin;  // SHA-256
  std::map<std::string, std::int64_t> values;
  // The model's version its estimate was measured under, where it is not
  // the baseline's (an update that met another variant under a new model
  // leaves this one's estimate as it was measured: "" before the stamp).
  std::optional<std::string> model;
  bool operator==(const CompileVariantMetrics&) const = default;
};

struct Metrics {
  TestId id;
  std::map<std::string, std::string> toolchain;     // tool -> version
  nlohmann::json flags = nlohmann::json::object();  // tool -> argument list
  std::string generator;
  // Provenance besides the toolchain, neither of which makes another
  // toolchain: the library the kernel's code belongs to (distribution ->
  // version: {"flashinfer-python": "0.7.4"}; empty for a project's own
  // kernel), and the version of the model that turned the counts into loop
  // costs and the launch estimate (kModelVersion when measured; "" in a
  // baseline written before it was recorded).
  std::map<std::string, std::string> library;
  std::string model;
  // What the configuration exported: symbol, calling convention, each
  // parameter's constraint, compiler hints, bytecode version (one field per key).
  std::map<std::string, std::string> signature;
  std::map<std::string, std::int64_t> values;
  // Instructions per source line ("gelu.py:21"): never gated, shown as the
  // lines that moved.
  std::map<std::string, std::int64_t> lines;
  // The text of each of those lines (trimmed): a baseline's lines are
  // matched to the current source's by content, after edits shift them.
  std::map<std::string, std::string> line_text;
  // What was compiled, as a check records it: the bytecode's identity (its
  // folders left out, cache_paths.h) and the cubin's SHA-256. A baseline
  // keeps them only where its configuration's compilation varies.
  std::string bytecode, cubin;
  // A baseline of a configuration whose compilation varies: every other
  // variant recorded (`values` above are the first's).
  std::vector<CompileVariantMetrics> variants;

  std::int64_t get(const std::string& name) const;  // 0 when absent
};

// A baseline's variants as metrics of their own, the baseline's first:
// each with its cubin and values, the rest as the baseline's. One, the
// baseline itself, where it records none.
std::vector<Metrics> known_variants(const Metrics& baseline);

// The fields of the signature that differ: "parameters[0].dtype: bfloat16 ->
// float16" ("(none)" for a field one side lacks). Empty when they are the same.
std::vector<std::string> signature_changes(const Metrics& baseline, const Metrics& current);

// What kind of change a signature change is. A *tuning* change alters only
// the values of compile-time constants (a parameter that is a
// ConstantConstraint on both sides: tile sizes, group sizes) and compiler
// hints (`hints.*`: occupancy, num_ctas, ...): the same kernel, tuned. Any
// other field (a dtype, a rank, a divisibility, the parameter list, the
// symbol, the bytecode version) is an *identity* change: another kernel.
enum class SignatureChange { kNone, kTuning, kIdentity };
SignatureChange classify_signature(const Metrics& baseline, const Metrics& current);

// What differs between two toolchains: "tileiras 13.4.92 -> 13.5.37", one
// entry per tool (a tool only one side names: "none"), then the flags.
// Empty when they are the same.
std::vector<std::string> toolchain_changes(const Metrics& old, const Metrics& now);

// What differs between two libraries: "flashinfer-python 0.7.2.post1 ->
// 0.7.4" (a side without the library: "none"). Empty when they are the same.
std::vector<std::string> library_changes(const Metrics& old, const Metrics& now);

// Validates names against the name rules of support/defaults.h: kNamePattern
// ([A-Za-z0-9_]+) for kernel and config, kArchPattern (sm_[0-9]+[a-z]?, so
// sm_90a too) for arch.
void validate_test_id(const TestId& id);

nlohmann::json to_json(const Metrics& m);
std::string to_json_text(const Metrics& m);  // stable: sorted keys, 2-space indent, final newline
// Every metric value must be a count (json_count); names are validated.
Metrics metrics_from_json(const nlohmann::json& j, const std::string& filename);
Metrics read_metrics(const std::string& path);  // InputError names file and line or key

}  // namespace tileperf
