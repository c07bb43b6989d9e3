// The terminal text of a bump (results/bump.h) for `tileperf summary`: each
// library's or model's bump once, what moved in its tests and the one
// command that accepts it; the signature changes that moved nothing, with
// the one command that accepts them.
#pragma once

#include <string>
#include <vector>

#include "results/bump.h"

namespace tileperf {

// `accept` is the command that accepts the group's tests (accept_command).
std::string bump_text(const BumpGroup& g, const std::string& accept);

// "" when there are none.
std::string unmoved_signatures_text(const std::vector<const TestResult*>& tests, const std::string& accept);

}  // namespace tileperf
