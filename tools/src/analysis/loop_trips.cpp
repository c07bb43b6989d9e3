#include "analysis/loop_trips.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "support/text.h"

namespace tileperf {

namespace {

using Index = std::size_t;

bool same_file(const std::string& a, const std::string& b) { return a == b || file_name(a) == file_name(b); }

// The trips to match the loops against: those the skeleton computed, else
// the problem's declarations.
const std::vector<TripDeclaration>* trips_of(const LoopOptions& o) {
  if (o.computed) return o.computed;
  return o.problem ? &o.problem->trips : nullptr;
}

// The loops of one group of computed loops (one source location cuTile
// split) take the compiled loops of one place in address order when the
// numbers agree, else each their mean (iterations over executions of the
// group's loops together).
void assign_group(std::vector<LoopInfo>& loops, std::vector<std::size_t> members,
                  std::vector<const TripDeclaration*> sources) {
  std::sort(members.begin(), members.end(),
            [&](std::size_t a, std::size_t b) { return loops[a].begin < loops[b].begin; });
  std::sort(sources.begin(), sources.end(), [](auto* a, auto* b) { return a->ordinal < b->ordinal; });
  for (std::size_t k = 0; k < members.size(); ++k) {
    LoopInfo& l = loops[members[k]];
    l.trips_sources.clear();
    if (members.size() == sources.size()) {
      l.trips = sources[k]->trips;
      if (sources[k]->source >= 0) l.trips_sources.push_back(sources[k]->source);
      continue;
    }
    double executions = 0, iterations = 0;
    for (const auto* d : sources) {
      executions += d->executions;
      iterations += d->executions * d->trips;
      if (d->source >= 0) l.trips_sources.push_back(d->source);
    }
    l.trips = executions > 0 ? iterations / executions : 0;
  }
}

}  // namespace

bool declares(const TripDeclaration& decl, const std::string& file, int line,
              const std::vector<std::pair<std::string, int>>& calls) {
  auto at_call = [&](const std::pair<std::string, int>& site) {
    return std::any_of(calls.begin(), calls.end(),
                       [&](const auto& c) { return c.second == site.second && same_file(c.first, site.first); });
  };
  return same_file(file, decl.file) && std::find(decl.lines.begin(), decl.lines.end(), line) != decl.lines.end() &&
         (decl.calls.empty() || std::any_of(decl.calls.begin(), decl.calls.end(), at_call));
}

double shared_trips(const TripShare& share, double trips) {
  double t = std::max(trips - share.peeled, 0.0);
  if (share.unroll > 1) {
    double whole = std::floor(t / share.unroll + 1e-9);
    t = share.remainder ? t - share.unroll * whole : whole;
  }
  return t / std::max(share.divide, 1.0);
}

void assign_trips(LoopInfo& info, const FunctionGraph& g, const Loop& loop, const std::vector<Index>& own,
                  const LoopOptions& o) {
  info.trips = static_cast<double>(kAssumedTrips);
  info.trips_from = "assumed";
  const auto* trips = trips_of(o);
  if (!trips || !o.lines) return;
  auto line_of = [&](Index i) { return o.lines->find(g.function->name, g.instruction(i).address); };
  auto take = [&](const TripDeclaration& decl) {
    info.trips = decl.trips;
    info.trips_from = decl.key;
    info.trips_group = decl.group;
    info.trips_sources.clear();
    if (decl.source >= 0) info.trips_sources.push_back(decl.source);
  };
  for (const auto& decl : *trips) {
    for (Index latch : loop.latches) {
      auto line = line_of(g.blocks[latch].end - 1);
      if (line && declares(decl, line->file, line->line, line->calls)) {
        take(decl);
        return;
      }
    }
  }
  std::size_t best = 0;
  for (const auto& decl : *trips) {
    std::size_t hits = 0;
    for (Index i : g.instructions_of(own)) {
      auto line = line_of(i);
      hits += line && declares(decl, line->file, line->line, line->calls);
    }
    if (hits > best) {
      best = hits;
      take(decl);
    }
  }
}

void assign_groups(std::vector<LoopInfo>& loops, std::size_t first, const std::vector<TripDeclaration>& trips) {
  std::map<std::pair<int, int>, std::vector<std::vector<std::size_t>>> places;  // (group, parent) -> by warps
  for (std::size_t i = first; i < loops.size(); ++i) {
    if (loops[i].trips_group < 0) continue;
    auto& by_warps = places[{loops[i].trips_group, loops[i].parent}];
    auto same = std::find_if(by_warps.begin(), by_warps.end(),
                             [&](const auto& m) { return (loops[m.front()].warps & loops[i].warps) != 0; });
    if (same == by_warps.end()) same = by_warps.insert(by_warps.end(), std::vector<std::size_t>());
    same->push_back(i);
  }
  for (auto& [key, by_warps] : places) {
    std::vector<const TripDeclaration*> sources;
    for (const auto& d : trips) {
      if (d.group == key.first) sources.push_back(&d);
    }
    if (sources.size() < 2) continue;
    for (const auto& members : by_warps) assign_group(loops, members, sources);
  }
}

void note_unmatched_trips(LoopAnalysis& analysis, const LoopOptions& o) {
  if (!o.problem || o.computed) return;
  for (const auto& decl : o.problem->trips) {
    bool used = std::any_of(analysis.loops.begin(), analysis.loops.end(),
                            [&](const LoopInfo& l) { return l.trips_from == decl.key; });
    if (!used) {
      analysis.notes.push_back(fmt::format("declared trips of loop '{}' ({} lines {}) match no compiled loop{}",
                                           decl.key, file_name(decl.file), fmt::join(decl.lines, ","),
                                           o.lines && !o.lines->empty() ? "" : " (the cubin has no line table)"));
    }
  }
}

}  // namespace tileperf
