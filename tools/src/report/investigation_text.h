// What `tileperf investigate` shows of an investigation
// (inspect/investigation.h): the ranked table of variants, what each kind
// of experiment says (an operation's share of the estimate, token order,
// register pressure, the tuning suggestion), the estimate's standing on the
// architecture; as text, as JSON (format tileperf-investigation/1, which
// the HTML report reads back) and as a section of the HTML report.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "inspect/investigation.h"

namespace tileperf {

inline constexpr const char* kInvestigationFormat = "tileperf-investigation/1";

nlohmann::json investigation_json(const Investigation& inv);

// The terminal text of an investigation's JSON (investigation_json).
std::string investigation_text(const nlohmann::json& inv);

// The HTML report's section of an investigation's JSON.
std::string investigation_html(const nlohmann::json& inv);

// The command that investigates a test, for a failing test's message.
std::string investigate_command(const std::string& test);

}  // namespace tileperf
