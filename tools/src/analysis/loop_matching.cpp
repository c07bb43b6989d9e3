#include "analysis/loop_matching.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "support/text.h"
#include "analysis/loop_trips.h"

namespace tileperf {

namespace {

using Index = std::size_t;

bool same_place(const SourceLine& a, const SourceLine& b) {
  if (a.line != b.line || a.calls.size() != b.calls.size() || file_name(a.file) != file_name(b.file)) return false;
  for (Index k = 0; k < a.calls.size(); ++k) {
    if (a.calls[k].second != b.calls[k].second || file_name(a.calls[k].first) != file_name(b.calls[k].first)) {
      return false;
    }
  }
  return true;
}

std::string tileir_name(const TripDeclaration& d) {
  return fmt::format("the loop at {}:{}", file_name(d.file), d.lines.empty() ? 0 : d.lines.front());
}

class Matcher {
 public:
  Matcher(const std::vector<CompiledLoop>& loops, const std::vector<TripDeclaration>& computed)
      : loops_(loops), t_(computed), out_(loops.size()), peeled_(loops.size(), false) {
    for (Index k = 0; k < t_.size(); ++k) by_source_[t_[k].source] = static_cast<int>(k);
  }

  std::vector<LoopMatch> run() {
    std::vector<Index> order(loops_.size());
    for (Index i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](Index a, Index b) { return depth(a) > depth(b); });
    for (Index i : order) match(i);
    peel();
    share_copies();
    return out_;
  }

 private:
  int depth(Index i) const {
    int d = 0;
    for (int p = loops_[i].parent; p >= 0; p = loops_[static_cast<Index>(p)].parent) ++d;
    return d;
  }

  // The TileIR loop around TileIR loop `k` (an index into the trips), -1: none.
  int tileir_parent(int k) const {
    auto it = by_source_.find(t_[static_cast<Index>(k)].parent_source);
    return it == by_source_.end() ? -1 : it->second;
  }

  int tileir_depth(int k) const {
    int d = 0;
    for (int p = tileir_parent(k); p >= 0; p = tileir_parent(p)) ++d;
    return d;
  }

  bool tileir_inside(int k, int outer) const {
    for (int p = tileir_parent(k); p >= 0; p = tileir_parent(p)) {
      if (p == outer) return true;
    }
    return false;
  }

  // The TileIR loops compiled loop `i` may be: around those its matched
  // compiled loops run (nothing else when it holds some), else any.
  std::vector<int> candidates(Index i, bool& constrained) const {
    std::vector<int> inner;
    for (Index c = 0; c < loops_.size(); ++c) {
      if (loops_[c].parent == static_cast<int>(i) && out_[c].tileir >= 0) inner.push_back(out_[c].tileir);
    }
    constrained = !inner.empty();
    std::vector<int> out;
    for (int k = 0; k < static_cast<int>(t_.size()); ++k) {
      bool around = std::all_of(inner.begin(), inner.end(), [&](int c) { return tileir_inside(c, k); });
      if (around) out.push_back(k);
    }
    return out;
  }

  // Per candidate, the instructions of the body whose line is one of its
  // places: each goes to the innermost candidates that hold its line (the
  // same line can hold operations of a loop and of loops around it, such as
  // a load's view made before the loop).
  std::map<int, int> votes(Index i, const std::vector<int>& cands) const {
    std::map<int, int> out;
    for (const auto& line : loops_[i].body) {
      std::vector<int> holders;
      int deepest = -1;
      for (int k : cands) {
        const auto& places = t_[static_cast<Index>(k)].places;
        if (!std::any_of(places.begin(), places.end(), [&](const SourceLine& p) { return same_place(p, line); }))
          continue;
        holders.push_back(k);
        deepest = std::max(deepest, tileir_depth(k));
      }
      for (int k : holders) out[k] += tileir_depth(k) == deepest ? 1 : 0;
    }
    return out;
  }

  bool closes(Index i, int k) const {
    const TripDeclaration& d = t_[static_cast<Index>(k)];
    return std::any_of(loops_[i].latches.begin(), loops_[i].latches.end(),
                       [&](const SourceLine& l) { return declares(d, l.file, l.line, l.calls); });
  }

  using Key = std::tuple<bool, int, int, int>;  // closes it, votes, depth, first

  // Of `cands`, the TileIR loop whose location a closing branch of `i`
  // carries, else the one whose places hold most of its body, then the
  // deepest, then the first; -1 when there is none.
  std::pair<int, Key> best_of(Index i, const std::vector<int>& cands) const {
    auto tally = votes(i, cands);
    int best = -1;
    Key best_key{false, -1, -1, 0};
    for (int k : cands) {
      Key key{closes(i, k), tally[k], tileir_depth(k), -k};
      if (best < 0 || key > best_key) std::tie(best, best_key) = std::tie(k, key);
    }
    return {best, best_key};
  }

  // Around matched compiled loops, one of the TileIR loops around theirs
  // (the innermost when no instruction tells); elsewhere the best of all,
  // when some instruction tells.
  void match(Index i) {
    const CompiledLoop& l = loops_[i];
    if (l.retry || l.elect) return;
    unmatch_inner_copies(i);
    bool constrained = false;
    auto [best, key] = best_of(i, candidates(i, constrained));
    bool evidence = best >= 0 && (std::get<0>(key) || std::get<1>(key) > 0);
    if (best >= 0 && (evidence || constrained)) {
      out_[i].tileir = best;
    } else if (constrained) {
      out_[i].why_not = "it holds compiled loops of outermost loops of the kernel's TileIR";
    } else {
      out_[i].why_not =
          "its instructions come from code outside every loop of the kernel's TileIR: a loop the "
          "compiler made";
    }
  }

  // A compiled loop inside `i` that took the TileIR loop `i` itself runs,
  // with less to tell so (it does not close it where `i` does, or holds
  // fewer of its places), is a loop the compiler made inside one
  // operation of that loop's body.
  void unmatch_inner_copies(Index i) {
    std::vector<int> all(t_.size());
    for (Index k = 0; k < t_.size(); ++k) all[k] = static_cast<int>(k);
    auto [own, own_key] = best_of(i, all);
    if (own < 0) return;
    for (Index c = 0; c < loops_.size(); ++c) {
      if (loops_[c].parent != static_cast<int>(i) || out_[c].tileir != own) continue;
      Key inner = best_of(c, {own}).second;
      bool weaker =
          std::get<0>(own_key) != std::get<0>(inner) ? std::get<0>(own_key) : std::get<1>(own_key) > std::get<1>(inner);
      if (!weaker) continue;
      out_[c].tileir = -1;
      out_[c].why_not = fmt::format("it runs inside one operation of {} (compiled {:#06x}): a loop the compiler made",
                                    tileir_name(t_[static_cast<Index>(own)]), loops_[i].begin);
    }
  }

  // The nearest compiled loop around `i` that runs a TileIR loop, -1: none.
  int matched_ancestor(Index i) const {
    for (int p = loops_[i].parent; p >= 0; p = loops_[static_cast<Index>(p)].parent) {
      if (out_[static_cast<Index>(p)].tileir >= 0) return p;
    }
    return -1;
  }

  // The compiled loop of TileIR loop `k` beside `i` (the same loop around
  // them, warps in common), -1: none.
  int sibling_of(Index i, int k) const {
    for (Index j = 0; j < loops_.size(); ++j) {
      if (j != i && out_[j].tileir == k && loops_[j].parent == loops_[i].parent && (loops_[j].warps & loops_[i].warps))
        return static_cast<int>(j);
    }
    return -1;
  }

  // A compiled loop of an inner TileIR loop outside every compiled loop of
  // the loop around it runs in an iteration of that loop the compiler
  // unrolled, or peeled off its compiled loop beside it (which then runs
  // fewer iterations); either way it runs its own loop's every iteration.
  void peel() {
    std::map<std::pair<int, int>, int> peeled;  // (compiled loop, inner TileIR loop) -> copies beside it
    for (Index i = 0; i < loops_.size(); ++i) {
      int k = out_[i].tileir, around = k >= 0 ? tileir_parent(k) : -1;
      if (around < 0) continue;
      int a = matched_ancestor(i);
      if (a >= 0 && out_[static_cast<Index>(a)].tileir == around) continue;
      peeled_[i] = true;
      int j = sibling_of(i, around);
      if (j < 0) {
        out_[i].share.text = fmt::format("in an iteration of {}, which the compiler unrolled here",
                                         tileir_name(t_[static_cast<Index>(around)]));
        continue;
      }
      ++peeled[{j, k}];
      out_[i].share.text =
          fmt::format("in an iteration peeled off {} (compiled {:#06x})", tileir_name(t_[static_cast<Index>(around)]),
                      loops_[static_cast<Index>(j)].begin);
    }
    for (const auto& [key, n] : peeled) {
      TripShare& s = out_[static_cast<Index>(key.first)].share;
      s.peeled = std::max(s.peeled, static_cast<double>(n));
      s.text = fmt::format("less {} iteration(s) peeled off before it", trips_text(s.peeled));
    }
  }

  // Copies of one TileIR loop beside one another, run by the same warps,
  // share its iterations (copies run by other warps each run them all).
  void share_copies() {
    std::map<std::pair<int, int>, std::vector<Index>> beside;  // (compiled parent, TileIR loop) -> copies
    for (Index i = 0; i < loops_.size(); ++i) {
      if (out_[i].tileir >= 0 && !peeled_[i] && !split_by_cutile(out_[i].tileir))
        beside[{loops_[i].parent, out_[i].tileir}].push_back(i);
    }
    for (const auto& [key, copies] : beside) {
      for (const auto& same_warps : by_warps(copies)) {
        if (same_warps.size() > 1) share(same_warps, t_[static_cast<Index>(key.second)]);
      }
    }
  }

  // A TileIR loop whose location cuTile split into several loops: their
  // compiled loops take the loops' counts in address order (loops.h).
  bool split_by_cutile(int k) const {
    const TripDeclaration& d = t_[static_cast<Index>(k)];
    return std::count_if(t_.begin(), t_.end(), [&](const TripDeclaration& o) { return o.group == d.group; }) > 1;
  }

  // The copies, in groups whose warps overlap.
  std::vector<std::vector<Index>> by_warps(const std::vector<Index>& copies) const {
    std::vector<std::vector<Index>> groups;
    std::vector<WarpMask> masks;
    for (Index i : copies) {
      std::size_t g = 0;
      while (g < groups.size() && !(masks[g] & loops_[i].warps)) ++g;
      if (g == groups.size()) {
        groups.emplace_back();
        masks.push_back(0);
      }
      groups[g].push_back(i);
      masks[g] |= loops_[i].warps;
    }
    return groups;
  }

  // Each copy's iterations of the TileIR loop per trip: its work against
  // the smallest copy's.
  std::vector<double> unroll_factors(const std::vector<Index>& copies) const {
    bool work = std::all_of(copies.begin(), copies.end(), [&](Index i) { return loops_[i].work > 0; });
    auto size = [&](Index i) { return work ? loops_[i].work : std::max(loops_[i].instructions, 1.0); };
    double least = size(copies.front());
    for (Index i : copies) least = std::min(least, size(i));
    std::vector<double> out;
    for (Index i : copies) out.push_back(std::max(1.0, std::round(size(i) / least)));
    return out;
  }

  void share(const std::vector<Index>& copies, const TripDeclaration& d) {
    auto u = unroll_factors(copies);
    double most = *std::max_element(u.begin(), u.end());
    auto mains = static_cast<double>(std::count(u.begin(), u.end(), most));
    std::vector<std::string> others;
    for (Index c = 0; c < copies.size(); ++c) {
      if (u[c] < most) others.push_back(fmt::format("{:#06x}", loops_[copies[c]].begin));
    }
    for (Index c = 0; c < copies.size(); ++c) {
      TripShare& s = out_[copies[c]].share;
      if (most == 1) {
        s.divide = static_cast<double>(copies.size());
        s.text = fmt::format("one of {} copies of {} run by the same warps, sharing its iterations", copies.size(),
                             tileir_name(d));
      } else if (u[c] == most) {
        s.unroll = most;
        s.divide = mains;
        s.text = fmt::format("{} iterations of {} per trip, the rest in {}", trips_text(most), tileir_name(d),
                             fmt::join(others, ", "));
      } else {
        s.unroll = most;
        s.remainder = true;
        s.divide = u[c] * static_cast<double>(others.size());
        s.text =
            fmt::format("the iterations of {} that the copy unrolled {}x leaves", tileir_name(d), trips_text(most));
      }
    }
  }

  const std::vector<CompiledLoop>& loops_;
  const std::vector<TripDeclaration>& t_;
  std::vector<LoopMatch> out_;
  std::vector<bool> peeled_;
  std::map<int, int> by_source_;  // skeleton loop -> its trip declaration
};

}  // namespace

std::vector<LoopMatch> match_compiled_loops(const std::vector<CompiledLoop>& loops,
                                            const std::vector<TripDeclaration>& computed) {
  return Matcher(loops, computed).run();
}

}  // namespace tileperf
