// The dump record's launch facts (<config>.tileirbc.json, written by the
// dump step): the record as one architecture sees it, and its problem.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "model/launch_model.h"

namespace tileperf {

// The version of the dump record this tileperf reads: the one the dump step
// writes (RECORD_FORMAT of tools/tileperf_dump/export.py). Its fields and
// their types: docs/reference/dump-record.md; tests/fixtures/dump_record/
// holds both sides to them.
inline constexpr const char* kDumpRecordFormat = "tileperf-dump-record/1";

// The dump record in `text`, the file `filename`: a JSON object of version
// kDumpRecordFormat whose fields, those of each architecture under "archs"
// and those of their problems hold what the version says they hold.
// InputError naming the file and the field otherwise ("key
// 'archs.sm_90.problem' must be an object"); for a record of another
// version, or of none (an older dump step's), one that says to run the dump
// step again.
nlohmann::json parse_dump_record(const std::string& text, const std::string& filename);

// The "problem" of a dump record, if it has one; InputError naming
// `filename` when it is malformed, and the configuration file's place
// when the dump step found the problem not to fit the kernel
// ("problem_error": a trip count naming no loop).
std::optional<Problem> problem_from_record(const nlohmann::json& record, const std::string& filename);

// The dump record as architecture `arch` sees it: a configuration exported
// per architecture (its launch or its problem depends on it) keeps each
// one's problem, signature and bytecode file name under "archs"; they
// replace the record's own (an empty `arch`: the record as it is, whose
// own are the first architecture's). InputError when it has none for `arch`.
nlohmann::json record_for_arch(const nlohmann::json& record, const std::string& arch, const std::string& filename);

}  // namespace tileperf
