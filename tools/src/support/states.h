// The states a test ends in, in one table: the name result files and
// reports use, the exit code of the `tileperf check` that ends so, and
// whether a reader must look at it. The table's order is the order of
// every report: what needs action first.
#pragma once

#include <string>
#include <vector>

namespace tileperf {

enum class State {
  kRegressed,         // a gated metric past its limit, or an invariant broken
  kSignatureChanged,  // the configuration exports another kernel than the baseline's
  kCompilerVaries,    // the same bytecode compiled to a variant the baseline does not know
  kToolchainFailure,  // a tool crashed, hung or failed
  kBadInput,          // malformed input or usage
  kIoFailure,         // the file system refused a read or write (disk full, permissions, read-only)
  kError,             // tileperf's own failure
  kNotRun,            // could not run where every test must (CI)
  kStale,             // improved, in strict mode
  kToolchainChanged,  // the baseline was made by other tools or flags
  kNew,               // no baseline yet
  kImproved,          // better than the baseline beyond tolerance
  kSkipped,           // a tool or the architecture is missing
  kUpdated,           // update mode: the baseline was rewritten
  kCreated,           // update mode: the baseline was written
  kUnchanged,         // update mode: nothing to write
  kPass,              // nothing past its limit
};

struct StateInfo {
  State state;
  const char* name;
  int exit_code;
  bool needs_look;  // shown first and in full by reports
};

// Every state, in report order.
const std::vector<StateInfo>& all_states();
const StateInfo& state_info(State s);
inline const char* state_name(State s) { return state_info(s).name; }

// The state of a name; InputError naming `file` when there is none.
State state_from_name(const std::string& name, const std::string& file);

}  // namespace tileperf
