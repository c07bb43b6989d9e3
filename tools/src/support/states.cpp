#include "support/states.h"

#include <algorithm>

#include "support/error.h"

namespace tileperf {

const std::vector<StateInfo>& all_states() {
  static const std::vector<StateInfo> kStates = {
      {State::kRegressed, "regressed", kExitRegression, true},
      {State::kSignatureChanged, "signature changed", kExitSignatureChanged, true},
      {State::kCompilerVaries, "compiler varies", kExitCompilerVaries, true},
      {State::kToolchainFailure, "toolchain failure", kExitToolchain, true},
      {State::kBadInput, "bad input", kExitBadInput, true},
      {State::kIoFailure, "I/O failure", kExitIo, true},
      {State::kError, "error", kExitInternal, true},
      {State::kNotRun, "not run", kExitNotRun, true},
      {State::kStale, "stale", kExitRegression, true},
      {State::kToolchainChanged, "toolchain changed", kExitToolchainChanged, true},
      {State::kNew, "new", kExitNew, true},
      {State::kImproved, "improved", kExitOk, true},
      {State::kSkipped, "skipped", kExitSkipped, false},
      {State::kUpdated, "updated", kExitOk, true},
      {State::kCreated, "created", kExitOk, false},
      {State::kUnchanged, "unchanged", kExitOk, false},
      {State::kPass, "pass", kExitOk, false},
  };
  return kStates;
}

const StateInfo& state_info(State s) {
  const auto& states = all_states();
  return *std::find_if(states.begin(), states.end(), [s](const StateInfo& i) { return i.state == s; });
}

State state_from_name(const std::string& name, const std::string& file) {
  for (const auto& i : all_states()) {
    if (name == i.name) return i.state;
  }
  throw InputError(file, 0, "unknown state '" + name + "'");
}

}  // namespace tileperf
