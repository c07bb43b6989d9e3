#include "results/bump.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

namespace tileperf {

namespace {

bool made_by_model(const std::string& name) {
  for (const char* prefix : {"cost.", "loop.", "launch."}) {
    if (name.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

// "flashinfer-python 0.7.2.post1 -> 0.7.4" -> "flashinfer-python".
std::string library_name(const std::string& change) { return change.substr(0, change.find(' ')); }

}  // namespace

BumpMove bump_move(const TestResult& r) {
  if (r.state == State::kNew) return BumpMove::kNew;
  if (r.state == State::kSignatureChanged) return BumpMove::kSignature;
  bool counts = false, model = false;
  for (const auto& d : r.diff) {
    if (d.change == Change::kUnchanged) continue;
    (made_by_model(d.name) ? model : counts) = true;
  }
  return counts ? BumpMove::kCounts : model ? BumpMove::kEstimate : BumpMove::kNothing;
}

std::size_t BumpGroup::moved(BumpMove m) const {
  return static_cast<std::size_t>(std::count(moves.begin(), moves.end(), m));
}

std::size_t BumpGroup::moved(BumpMove m, State s) const {
  std::size_t n = 0;
  for (std::size_t i = 0; i < tests.size(); ++i) n += moves[i] == m && tests[i]->state == s;
  return n;
}

std::vector<BumpGroup> make_bumps(const std::vector<const TestResult*>& results) {
  std::map<std::string, std::map<std::string, std::size_t>> releases;  // library -> change -> tests
  std::map<std::string, std::vector<const TestResult*>> by_library, by_model;
  for (const TestResult* r : results) {
    for (const auto& change : r->library_change) {
      ++releases[library_name(change)][change];
      by_library[library_name(change)].push_back(r);
    }
    if (!r->model_change.empty()) by_model[r->model_change].push_back(r);
  }
  for (const TestResult* r : results) {  // a new kernel of a library that moved
    if (r->state != State::kNew) continue;
    for (const auto& [library, version] : r->library) {
      if (by_library.count(library)) by_library[library].push_back(r);
    }
  }
  std::vector<BumpGroup> out;
  auto add = [&](std::string what, std::vector<const TestResult*> tests) {
    std::sort(tests.begin(), tests.end(),
              [](const TestResult* a, const TestResult* b) { return a->id.name() < b->id.name(); });
    BumpGroup g{std::move(what), std::move(tests), 0, {}};
    for (const TestResult* r : g.tests) {
      g.moves.push_back(bump_move(*r));
      g.signature_unmoved += r->unmoved;
    }
    out.push_back(std::move(g));
  };
  for (auto& [library, tests] : by_library) {
    std::vector<std::string> changes;
    for (const auto& [change, n] : releases[library]) changes.push_back(change);
    add(fmt::format("{}", fmt::join(changes, ", ")), std::move(tests));
  }
  for (auto& [change, tests] : by_model) add("tileperf's model " + change, std::move(tests));
  return out;
}

std::vector<const TestResult*> unmoved_signatures(const std::vector<const TestResult*>& results) {
  std::vector<const TestResult*> out;
  for (const TestResult* r : results) {
    if (r->state == State::kSignatureChanged && r->unmoved) out.push_back(r);
  }
  return out;
}

std::string tests_filter(const std::vector<const TestResult*>& tests) {
  // Names are [A-Za-z0-9_] parts joined by dots: only the dots need escaping.
  std::map<std::string, std::set<std::string>> by_kernel;  // kernel -> "config\\.arch"
  for (const TestResult* r : tests) by_kernel[r->id.kernel].insert(r->id.config + "\\." + r->id.arch);
  std::vector<std::string> kernels;
  for (const auto& [kernel, rest] : by_kernel) {
    kernels.push_back(rest.size() == 1 ? fmt::format("{}\\.{}", kernel, *rest.begin())
                                       : fmt::format("{}\\.({})", kernel, fmt::join(rest, "|")));
  }
  return fmt::format("^perf\\.({})$", fmt::join(kernels, "|"));
}

}  // namespace tileperf
