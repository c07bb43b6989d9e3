// The diff of two builds shown: the terminal text of `tileperf diff` and
// its --json file.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "inspect/build_diff.h"

namespace tileperf {

// The text of the tests that are not unchanged, those of one side only, a
// summary line and, when the diff fails and the head's run record keeps
// it, the command that updates the head's baselines.
std::string build_diff_text(const BuildDiff& d, const DiffOptions& o);

// The diff as the --json file's document (format "tileperf-diff/1").
nlohmann::json build_diff_json(const BuildDiff& d, const DiffOptions& o);

}  // namespace tileperf
