#include "report/bump_text.h"

#include <fmt/format.h>

namespace tileperf {

namespace {

// "1 regressed, 3 improved, 12 pass": the states of the tests of one move.
std::string states_text(const BumpGroup& g, BumpMove m) {
  std::vector<std::string> parts;
  for (const auto& s : all_states()) {
    if (std::size_t n = g.moved(m, s.state)) parts.push_back(fmt::format("{} {}", n, s.name));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace

std::string bump_text(const BumpGroup& g, const std::string& accept) {
  std::string out = fmt::format("{}: {} test(s)\n", g.what, g.tests.size());
  struct Row {
    BumpMove move;
    const char* what;
  };
  for (const Row& row : {Row{BumpMove::kCounts, "code changed (the counts moved)"},
                         Row{BumpMove::kEstimate, "the estimate alone moved (cost.*, loop.*, launch.*)"},
                         Row{BumpMove::kSignature, "signature changed"}, Row{BumpMove::kNew, "new (no baseline)"},
                         Row{BumpMove::kNothing, "nothing moved"}}) {
    std::size_t n = g.moved(row.move);
    if (n == 0) continue;
    std::string more = row.move == BumpMove::kSignature && g.signature_unmoved
                           ? fmt::format(", {} with no gated metric or opcode moved", g.signature_unmoved)
                           : "";
    out += fmt::format("  {}: {}: {}{}\n", row.what, n, states_text(g, row.move), more);
  }
  out += fmt::format("  accept the whole bump with: {}\n", accept);
  return out;
}

std::string unmoved_signatures_text(const std::vector<const TestResult*>& tests, const std::string& accept) {
  if (tests.empty()) return "";
  std::vector<std::string> names;
  for (const TestResult* r : tests) names.push_back(r->id.name());
  return fmt::format(
      "signature changed and no gated metric or opcode moved (the same code) in {} test(s): {}\n"
      "  accept them all with: {}\n",
      tests.size(), fmt::join(names, ", "), accept);
}

}  // namespace tileperf
