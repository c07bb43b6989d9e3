// Metric policies from checks/: for each metric pattern a direction and a
// tolerance. Files hold an ordered list of rules; the first rule whose
// pattern matches a metric decides. Per-kernel files (checks/<kernel>.json)
// are consulted before checks/default.json, and a kernel file's
// "configs": {"<config>": {"rules": [...]}} before the kernel's own rules.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tileperf {

enum class Direction { kLower, kHigher, kExact, kInfo };

struct Tolerance {
  double relative = 0;     // fraction of the baseline value: "5%" -> 0.05
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

struct Policy {
  std::vector<Rule> rules;  // in priority order
  const Rule* find(const std::string& metric) const;  // nullptr: no rule
};

// Parses "5%", "10", "5% | 10" (both), "0". Throws UsageError on bad text.
Tolerance parse_tolerance(const std::string& text);
const char* direction_name(Direction d);
bool glob_match(const std::string& pattern, const std::string& text);

// Loads checks/<kernel>.json (if present, config overrides first) and
// checks/default.json (required). Errors name the file and the key.
Policy load_policy(const std::string& checks_dir, const std::string& kernel,
                   const std::string& config);

}  // namespace tileperf
