// Reading JSON that a person or another run wrote: bounded nesting, no
// duplicate keys, and counts that are exact integers, each error located.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace tileperf {

// Deepest nesting of arrays and objects accepted: tileperf's files use 4.
inline constexpr int kMaxJsonDepth = 64;

// The largest count a metric may hold: 2^53 - 1, exact as a double too, so
// that differences and percentages of two counts never overflow.
inline constexpr std::int64_t kMaxCount = (std::int64_t(1) << 53) - 1;

// A figure as a count: rounded, 0 for nothing (negative, or not a number),
// kMaxCount for anything at or past it (an estimate off the scale), so
// that every metric tileperf writes reads back.
std::int64_t saturated_count(double v);

// Parses JSON text. Syntax errors, numbers out of range, nesting deeper than
// kMaxJsonDepth and a key given twice in one object are InputErrors naming
// `filename` and the line (or the key).
nlohmann::json parse_json(const std::string& text, const std::string& filename);

// `value` as a count: an integer from 0 to kMaxCount. Anything else (27.9,
// 1e20, -3, "7") is an InputError naming the file and `key`.
std::int64_t json_count(const nlohmann::json& value, const std::string& filename, const std::string& key);

// The string at `key` of `object`: an InputError naming the file and the key
// when it is missing or not a string.
std::string json_string(const nlohmann::json& object, const std::string& key, const std::string& filename);

// The same, "" when `object` has no `key`.
std::string json_optional_string(const nlohmann::json& object, const std::string& key, const std::string& filename);

// The number at `key` of `object` (an integer with `whole`), the object
// being the one at `place` of the file ("archs.sm_90"): an InputError
// "<place>.<key> must be a number" (or "an integer") naming the file when
// it is missing or of another type.
double json_number(const nlohmann::json& object, const std::string& key, const std::string& filename,
                   const std::string& place, bool whole = false);

// An object of counts, checked entry by entry; `key` names the object.
std::map<std::string, std::int64_t> json_counts(const nlohmann::json& object, const std::string& filename,
                                                const std::string& key);

}  // namespace tileperf
