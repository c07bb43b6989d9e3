// Policies and invariants from checks/.
//
// Rules: for each metric pattern a direction and a tolerance. Files hold an
// ordered list of rules; the first rule whose pattern matches a metric
// decides. Per-kernel files (checks/<kernel>.json) are consulted before
// checks/default.json, and a kernel file's "configs": {"<config>": {...}}
// before the kernel's own rules.
//
// Invariants: structural facts a kernel declares ("invariants": [...] at the
// top of a file or inside a config), which must hold whatever the baseline
// says: `"require": "<metric> <op> <integer>"` (op: == != <= >= < >), or
// `"require": "<prefix>.* == {a, b, ...}"`: the metrics under the prefix that
// are non-zero are exactly those suffixes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tileperf {

struct Metrics;

enum class Direction { kLower, kHigher, kExact, kInfo };

struct Tolerance {
  double relative = 0;  // fraction of the baseline value: "5%" -> 0.05
  std::int64_t absolute = 0;
  // The largest change allowed for a metric whose baseline is `baseline`.
  double limit(std::int64_t baseline) const;
};

struct Rule {
  std::string pattern;  // '*' matches any run of characters
  Direction direction = Direction::kLower;
  Tolerance tolerance;
  std::string origin;  // "checks/default.json: rules[3]"
};

struct Invariant {
  std::string text;    // the require string
  std::string metric;  // metric name, or the prefix (without ".*") of a set
  std::string op;
  std::int64_t value = 0;
  std::vector<std::string> set;  // for set invariants, sorted
  bool is_set = false;
  std::string why;
  std::string origin;  // "checks/matmul.json: invariants[0]"
};

struct Policy {
  std::vector<Rule> rules;                            // in priority order
  std::vector<Invariant> invariants;                  // all must hold
  const Rule* find(const std::string& metric) const;  // nullptr: no rule
};

// Parses "5%", "10", "5% | 10" (both), "0". Throws UsageError on bad text.
Tolerance parse_tolerance(const std::string& text);
// Parses a require string. Throws UsageError on bad text.
Invariant parse_invariant(const std::string& text);
const char* direction_name(Direction d);
Direction direction_from_name(const std::string& name);  // kInfo for an unknown name
bool glob_match(const std::string& pattern, const std::string& text);

// The rules and invariants of one policy file's text, for `config`.
Policy parse_policy(const std::string& text, const std::string& file, const std::string& config);

// Loads checks/<kernel>.json (if present, config entries first) and
// checks/default.json (required). Errors name the file and the key; a
// kernel or config name outside [A-Za-z0-9_]+ is a UsageError.
Policy load_policy(const std::string& checks_dir, const std::string& kernel, const std::string& config);

struct BrokenInvariant {
  const Invariant* invariant;
  std::string found;  // what the metrics say instead
};

// Every invariant that does not hold for `current`. An invariant on a metric
// that was not measured at all breaks ("not measured"), so that a check on a
// metric the toolchain does not report never passes by default.
std::vector<BrokenInvariant> check_invariants(const Policy& policy, const Metrics& current);

}  // namespace tileperf
