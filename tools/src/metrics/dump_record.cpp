// The dump record's launch facts (dump_record.h).
#include "metrics/dump_record.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "support/error.h"
#include "support/json_input.h"
#include "support/text.h"

namespace tileperf {

namespace {

// Bounds of a declared problem: CUDA's grid limits (1 to 3 dimensions),
// and trip counts and lines that keep every cost estimate far below
// kMaxCount.
constexpr std::int64_t kMaxGridDimension = (std::int64_t(1) << 31) - 1;
constexpr std::int64_t kMaxBlocks = std::int64_t(1) << 40;
constexpr std::int64_t kMaxTrips = (std::int64_t(1) << 31) - 1;
constexpr std::int64_t kMaxLine = (std::int64_t(1) << 31) - 1;

std::int64_t bounded_integer(const nlohmann::json& j, const std::string& what, const std::string& filename,
                             std::int64_t minimum, std::int64_t maximum) {
  bool fits = j.is_number_integer() && !(j.is_number_unsigned() && j.get<std::uint64_t>() > std::uint64_t(maximum));
  if (!fits || j.get<std::int64_t>() < minimum || j.get<std::int64_t>() > maximum) {
    throw InputError(filename, 0, fmt::format("problem: {} must be an integer from {} to {}", what, minimum, maximum));
  }
  return j.get<std::int64_t>();
}

// The configuration's problem error that the dump step recorded, thrown
// where the configuration file declares the problem.
void throw_problem_error(const nlohmann::json& e, const std::string& filename) {
  if (!e.is_object() || !e.contains("file") || !e.at("file").is_string() || !e.contains("message") ||
      !e.at("message").is_string()) {
    throw InputError(filename, 0, "problem_error: expected an object with a 'file', a 'line' and a 'message'");
  }
  int line = e.contains("line")
                 ? static_cast<int>(bounded_integer(e.at("line"), "the line of problem_error", filename, 0, kMaxLine))
                 : 0;
  throw InputError(e.at("file").get<std::string>(), line, e.at("message").get<std::string>());
}

std::vector<std::pair<std::string, int>> call_sites(const nlohmann::json& t, const std::string& filename) {
  std::vector<std::pair<std::string, int>> calls;
  if (!t.contains("calls")) return calls;
  if (!t.at("calls").is_array()) throw InputError(filename, 0, "problem: 'calls' of a trips entry must be a list");
  for (const auto& c : t.at("calls")) {
    if (!c.is_object() || !c.contains("file") || !c.at("file").is_string() || !c.contains("line")) {
      throw InputError(filename, 0, "problem: each call of a trips entry needs a 'file' and a 'line'");
    }
    calls.emplace_back(c.at("file").get<std::string>(),
                       static_cast<int>(bounded_integer(c.at("line"), "a call's line", filename, 1, kMaxLine)));
  }
  return calls;
}

// What a field of the dump record holds.
enum class Holds { kString, kNumber, kBoolean, kList, kObject, kStrings };

struct Field {
  const char* key;
  Holds holds;
};

// The fields of each part of a record of version kDumpRecordFormat
// (docs/reference/dump-record.md). Each may be absent here: the reader that
// needs one says so. A key not listed is left alone.
constexpr Field kRecordFields[] = {{"format", Holds::kString},
                                   {"config", Holds::kString},
                                   {"kernel", Holds::kString},
                                   {"symbol", Holds::kString},
                                   {"source", Holds::kString},
                                   {"cuda_tile", Holds::kString},
                                   {"bytecode_version", Holds::kString},
                                   {"seconds", Holds::kNumber},
                                   {"signature", Holds::kStrings},
                                   {"library", Holds::kStrings},
                                   {"problem", Holds::kObject},
                                   {"problem_error", Holds::kObject},
                                   {"archs", Holds::kObject}};
constexpr Field kArchFields[] = {{"signature", Holds::kStrings},
                                 {"problem", Holds::kObject},
                                 {"problem_error", Holds::kObject},
                                 {"bytecode", Holds::kString}};
constexpr Field kProblemFields[] = {{"grid", Holds::kList},           {"blocks", Holds::kNumber},
                                    {"trips", Holds::kList},          {"bytes", Holds::kNumber},
                                    {"args", Holds::kList},           {"args_error", Holds::kString},
                                    {"arrays", Holds::kList},         {"case_grid", Holds::kList},
                                    {"launch_error", Holds::kString}, {"declared_at", Holds::kObject}};
constexpr Field kTripFields[] = {{"loop", Holds::kString},  {"file", Holds::kString}, {"lines", Holds::kList},
                                 {"trips", Holds::kNumber}, {"calls", Holds::kList},  {"override", Holds::kBoolean}};
constexpr Field kPlaceFields[] = {{"file", Holds::kString}, {"line", Holds::kNumber}};  // declared_at
constexpr Field kErrorFields[] = {{"file", Holds::kString}, {"line", Holds::kNumber}, {"message", Holds::kString}};

bool holds(const nlohmann::json& value, Holds what) {
  switch (what) {
    case Holds::kString:
      return value.is_string();
    case Holds::kNumber:
      return value.is_number();
    case Holds::kBoolean:
      return value.is_boolean();
    case Holds::kList:
      return value.is_array();
    case Holds::kObject:
      return value.is_object();
    case Holds::kStrings:
      return value.is_object() && std::all_of(value.begin(), value.end(), [](const auto& v) { return v.is_string(); });
  }
  return false;
}

const char* described(Holds what) {
  switch (what) {
    case Holds::kString:
      return "a string";
    case Holds::kNumber:
      return "a number";
    case Holds::kBoolean:
      return "true or false";
    case Holds::kList:
      return "a list";
    case Holds::kObject:
      return "an object";
    case Holds::kStrings:
      return "an object of strings";
  }
  return "";
}

// Where a value of a record is: the file, and the path of its key
// ("archs.sm_90.problem"; "" for the record itself).
struct Place {
  const std::string& file;
  std::string path;
  Place in(const std::string& key) const { return {file, path.empty() ? key : path + "." + key}; }
};

[[noreturn]] void refuse(const Place& at, const std::string& what) {
  throw InputError(at.file, 0, fmt::format("key '{}' {}", at.path, what));
}

// The fields of `object` that `fields` lists, each of its kind.
template <std::size_t N>
void check_fields(const nlohmann::json& object, const Field (&fields)[N], const Place& at) {
  for (const auto& f : fields) {
    auto it = object.find(f.key);
    if (it != object.end() && !holds(*it, f.holds)) refuse(at.in(f.key), fmt::format("must be {}", described(f.holds)));
  }
}

void check_problem(const nlohmann::json& problem, const Place& at) {
  check_fields(problem, kProblemFields, at);
  if (auto d = problem.find("declared_at"); d != problem.end()) check_fields(*d, kPlaceFields, at.in("declared_at"));
  auto trips = problem.find("trips");
  if (trips == problem.end()) return;
  for (std::size_t i = 0; i < trips->size(); ++i) {
    Place entry = at.in(fmt::format("trips[{}]", i));
    if (!(*trips)[i].is_object()) refuse(entry, "must be an object");
    check_fields((*trips)[i], kTripFields, entry);
  }
}

// A part of the record that may hold a problem and its error: the record
// itself, or an architecture's entry under "archs".
template <std::size_t N>
void check_part(const nlohmann::json& part, const Field (&fields)[N], const Place& at) {
  check_fields(part, fields, at);
  if (auto p = part.find("problem"); p != part.end()) check_problem(*p, at.in("problem"));
  if (auto e = part.find("problem_error"); e != part.end()) check_fields(*e, kErrorFields, at.in("problem_error"));
}

// A record of version kDumpRecordFormat, or an InputError saying that the
// dump step that wrote it was another tileperf's (an older one's, without a
// version): running the dump step again writes this one's.
void check_format(const nlohmann::json& record, const std::string& file) {
  if (!record.is_object()) throw InputError(file, 0, "the dump record must be a JSON object");
  auto format = record.find("format");
  if (format != record.end() && *format == kDumpRecordFormat) return;
  std::string found = format == record.end()
                          ? "is missing: a record of an older dump step"
                          : "is " + cut_text(format->dump(), 80) + ": a record of another tileperf's dump step";
  throw InputError(
      file, 0,
      fmt::format("key 'format' {} (this tileperf reads \"{}\"): re-run the dump step", found, kDumpRecordFormat));
}

}  // namespace

nlohmann::json parse_dump_record(const std::string& text, const std::string& filename) {
  nlohmann::json record = parse_json(text, filename);
  check_format(record, filename);
  Place top{filename, ""};
  check_part(record, kRecordFields, top);
  if (auto archs = record.find("archs"); archs != record.end()) {
    for (const auto& [arch, entry] : archs->items()) {
      Place at = top.in("archs").in(arch);
      if (!entry.is_object()) refuse(at, "must be an object");
      check_part(entry, kArchFields, at);
    }
  }
  return record;
}

nlohmann::json record_for_arch(const nlohmann::json& record, const std::string& arch, const std::string& filename) {
  if (arch.empty() || !record.is_object() || !record.contains("archs")) return record;
  const auto& archs = record.at("archs");
  if (!archs.is_object()) throw InputError(filename, 0, "archs: expected an object of architectures");
  if (!archs.contains(arch)) {
    std::vector<std::string> known;
    for (const auto& [name, entry] : archs.items()) known.push_back(name);
    throw InputError(filename, 0,
                     fmt::format("the configuration was exported for {} but not for {}: "
                                 "re-run the dump step",
                                 fmt::join(known, ", "), arch));
  }
  const auto& entry = archs.at(arch);
  if (!entry.is_object()) throw InputError(filename, 0, fmt::format("archs.{}: expected an object", arch));
  nlohmann::json out = record;
  out.erase("archs");
  out.erase("problem");
  out.erase("problem_error");
  for (const auto& [key, value] : entry.items()) out[key] = value;
  return out;
}

std::optional<Problem> problem_from_record(const nlohmann::json& record, const std::string& filename) {
  if (record.is_object() && record.contains("problem_error")) {
    throw_problem_error(record.at("problem_error"), filename);
  }
  if (!record.is_object() || !record.contains("problem")) return std::nullopt;
  const auto& j = record.at("problem");
  if (!j.is_object() || !j.contains("grid") || !j.at("grid").is_array() || !j.contains("trips") ||
      !j.at("trips").is_array()) {
    throw InputError(filename, 0, "problem: expected an object with a 'grid' and a 'trips' list");
  }
  Problem p;
  p.blocks = 1;
  if (j.at("grid").empty() || j.at("grid").size() > 3) {
    throw InputError(filename, 0,
                     fmt::format("problem: a grid has 1 to 3 dimensions, this one {}", j.at("grid").size()));
  }
  for (const auto& g : j.at("grid")) {
    p.grid.push_back(bounded_integer(g, "each grid dimension", filename, 1, kMaxGridDimension));
    if (p.blocks > kMaxBlocks / p.grid.back()) {
      throw InputError(filename, 0, fmt::format("problem: the grid has more than {} blocks", kMaxBlocks));
    }
    p.blocks *= p.grid.back();
  }
  for (const auto& t : j.at("trips")) {
    if (!t.is_object() || !t.contains("loop") || !t.contains("file") || !t.contains("lines") || !t.contains("trips") ||
        !t.at("lines").is_array()) {
      throw InputError(filename, 0, "problem: each trips entry needs 'loop', 'file', 'lines' and 'trips'");
    }
    TripDeclaration d;
    d.key = t.at("loop").is_string() ? t.at("loop").get<std::string>() : "";
    d.file = t.at("file").is_string() ? t.at("file").get<std::string>() : "";
    for (const auto& l : t.at("lines")) {
      d.lines.push_back(static_cast<int>(bounded_integer(l, "a line", filename, 1, kMaxLine)));
    }
    d.trips = static_cast<double>(bounded_integer(t.at("trips"), "trips of '" + d.key + "'", filename, 0, kMaxTrips));
    d.calls = call_sites(t, filename);
    d.override = t.contains("override") && t.at("override").is_boolean() && t.at("override").get<bool>();
    p.trips.push_back(std::move(d));
  }
  if (j.contains("bytes")) p.floor_bytes = bounded_integer(j.at("bytes"), "bytes", filename, 0, kMaxCount);
  if (j.contains("args")) {
    if (!j.at("args").is_array()) throw InputError(filename, 0, "problem: 'args' must be a list of numbers and nulls");
    for (const auto& a : j.at("args")) {
      LaunchArgument arg;
      if (a.is_boolean()) {
        arg.known = true;
        arg.integer = a.get<bool>() ? 1 : 0;
      } else if (a.is_number_integer() &&
                 !(a.is_number_unsigned() && a.get<std::uint64_t>() > std::uint64_t(INT64_MAX))) {
        arg.known = true;
        arg.integer = a.get<std::int64_t>();
      } else if (a.is_number()) {
        arg.known = true;
        arg.is_float = true;
        arg.real = a.get<double>();
      } else if (!a.is_null()) {
        throw InputError(filename, 0, "problem: each of 'args' must be a number, a boolean or null");
      }
      p.arguments.push_back(arg);
    }
  }
  if (j.contains("args_error") && j.at("args_error").is_string())
    p.no_arguments = j.at("args_error").get<std::string>();
  if (j.contains("declared_at") && j.at("declared_at").is_object()) {
    const auto& at = j.at("declared_at");
    if (at.contains("file") && at.at("file").is_string()) p.declared_file = at.at("file").get<std::string>();
    if (at.contains("line"))
      p.declared_line = static_cast<int>(bounded_integer(at.at("line"), "declared_at.line", filename, 0, kMaxLine));
  }
  if (j.contains("launch_error")) {
    p.floor_unknown = j.at("launch_error").is_string() ? j.at("launch_error").get<std::string>() : "not a string";
  }
  return p;
}

}  // namespace tileperf
