#include "model/skeleton.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>

#include "model/control_dependences.h"
#include "analysis/cost_model.h"
#include "model/skeleton_evaluator.h"
#include "support/error.h"
#include "support/text.h"
#include "analysis/loop_trips.h"

namespace tileperf {

namespace {

bool loop_declared_by(const TripDeclaration& d, const SkeletonLoop& l) {
  return l.where.known() && declares(d, l.where.file, l.where.line, l.where.calls);
}

}  // namespace

std::string_view count_source_name(CountSource s) {
  switch (s) {
    case CountSource::kComputed:
      return "computed";
    case CountSource::kDeclared:
      return "declared";
    case CountSource::kOverride:
      return "override";
    case CountSource::kAssumed:
      return "assumed";
  }
  return "";
}

std::string SkeletonLoop::name() const {
  if (!where.known()) return kind + " (no location)";
  std::string out = fmt::format("{}:{}", file_name(where.file), where.line);
  for (const auto& [file, line] : where.calls) out += fmt::format("@{}:{}", file_name(file), line);
  return out;
}

std::int64_t Skeleton::blocks() const {
  std::int64_t n = 1;
  for (auto g : grid) n *= g;
  return n;
}

int Skeleton::class_of(std::int64_t block) const {
  if (classes.size() <= 1 || class_tree.empty()) return 0;
  std::int64_t coords[3] = {0, 0, 0};
  for (std::size_t d = 0; d < grid.size() && d < 3; ++d) {
    coords[d] = block % grid[d];
    block /= grid[d];
  }
  const ClassNode* node = &class_tree.front();
  while (node->dim >= 0) {
    node = &class_tree[static_cast<std::size_t>(coords[node->dim] < node->split ? node->low : node->high)];
  }
  return node->cls;
}

std::vector<TripDeclaration> Skeleton::trips(int cls) const {
  std::vector<TripDeclaration> out;
  for (std::size_t l = 0; l < loops.size(); ++l) {
    const SkeletonLoop& loop = loops[l];
    if (!loop.where.known()) continue;
    TripDeclaration d;
    d.key = loop.source == CountSource::kComputed  ? "computed"
            : loop.source == CountSource::kAssumed ? "assumed"
                                                   : loop.declared_key;
    d.file = loop.where.file;
    d.lines = {loop.where.line};
    d.calls = loop.where.calls;
    d.group = loop.group;
    d.ordinal = loop.ordinal;
    d.source = static_cast<int>(l);
    d.trips = cls < 0 ? loop.trips() : classes[static_cast<std::size_t>(cls)].trips(l);
    d.executions = cls < 0 ? loop.executions : classes[static_cast<std::size_t>(cls)].executions[l];
    d.parent_source = loop.parent;
    for (const auto& at : loop.places)
      d.places.push_back(SourceLine{.file = at.file, .line = at.line, .calls = at.calls});
    out.push_back(std::move(d));
  }
  return out;
}

namespace {

// The declaration of each loop (the first that names it); a note for each
// declaration that names no loop.
std::vector<const TripDeclaration*> declarations(const SkeletonInputs& in, Skeleton& out) {
  std::vector<const TripDeclaration*> declared(out.loops.size(), nullptr);
  if (!in.problem) return declared;
  std::vector<bool> used(in.problem->trips.size(), false);
  for (std::size_t l = 0; l < out.loops.size(); ++l) {
    for (std::size_t k = 0; k < in.problem->trips.size(); ++k) {
      if (loop_declared_by(in.problem->trips[k], out.loops[l])) {
        declared[l] = &in.problem->trips[k];
        used[k] = true;
        break;
      }
    }
  }
  for (std::size_t k = 0; k < used.size(); ++k) {
    if (!used[k]) {
      const auto& d = in.problem->trips[k];
      out.notes.push_back(fmt::format("declared trips of loop '{}' ({} line {}) name no loop of the kernel's TileIR",
                                      d.key, file_name(d.file), fmt::join(d.lines, ",")));
    }
  }
  return declared;
}

// The place of operation `op`: its source line where the listing names
// one, else the listing's line.
std::pair<std::string, int> place_of(const TileIrProgram& p, int op) {
  const IrOp& o = p.ops[static_cast<std::size_t>(op)];
  const IrLocation* at = p.location_of(o);
  if (at && at->known()) return {at->file, at->line};
  return {p.file, o.listing_line};
}

std::string dims_text(std::uint8_t dims) {
  std::vector<std::string> names;
  for (int d = 0; d < 3; ++d) {
    if (dims >> d & 1) names.push_back(std::string(1, "xyz"[d]));
  }
  return names.empty() ? "no dimension" : fmt::format("{}", fmt::join(names, " and "));
}

// The groups of blocks and their classes (skeleton.h): boxes of the grid
// evaluated at once, each halved where a decision differs between its
// blocks, the lower half first.
class Grouping {
 public:
  Grouping(const TileIrProgram& p, Evaluator& eval, Skeleton& out, std::size_t memory_ops)
      : p_(p), eval_(eval), out_(out), memory_ops_(memory_ops), counts_(out.loops.size(), memory_ops) {}

  void run() {
    BlockBox all;
    for (std::size_t d = 0; d < out_.grid.size() && d < 3; ++d) all.hi[d] = out_.grid[d] - 1;
    out_.class_tree.assign(1, ClassNode());
    std::vector<std::pair<BlockBox, int>> pending{{all, 0}};
    while (!pending.empty()) {
      auto [box, node] = pending.back();
      pending.pop_back();
      current_ = box;
      if (++evaluations_ > kMaxEvaluations) too_many(fmt::format("more than {} groups", kMaxEvaluations));
      try {
        eval_.run(box, counts_);
      } catch (const Split& s) {
        halve(s, box, node, pending);
        continue;
      }
      ++out_.evaluated_blocks;
      out_.class_tree[static_cast<std::size_t>(node)].cls = class_for(box);
    }
    order_classes();
  }

  // The first block of the group being evaluated, in dispatch order.
  std::int64_t first_block() const { return linear(current_); }

 private:
  std::int64_t linear(const BlockBox& box) const {
    std::int64_t at = 0, scale = 1;
    for (std::size_t d = 0; d < out_.grid.size() && d < 3; ++d) {
      at += box.lo[d] * scale;
      scale *= out_.grid[d];
    }
    return at;
  }

  void halve(const Split& s, const BlockBox& box, int node, std::vector<std::pair<BlockBox, int>>& pending) {
    split_ = s;
    read_[s.op] |= s.dims;
    int dim = -1;
    for (int pass = 0; pass < 2 && dim < 0; ++pass) {  // a dimension the decision reads, else any
      for (int d = 0; d < 3; ++d) {
        bool read = pass == 1 || (s.dims >> d & 1);
        if (read && box.hi[d] > box.lo[d] && (dim < 0 || box.hi[d] - box.lo[d] > box.hi[dim] - box.lo[dim])) dim = d;
      }
    }
    if (dim < 0) throw std::logic_error("the scalar evaluator split a group of one block");
    BlockBox low = box, high = box;
    std::int64_t mid = box.lo[dim] + (box.hi[dim] - box.lo[dim] + 1) / 2;
    low.hi[dim] = mid - 1;
    high.lo[dim] = mid;
    int first = static_cast<int>(out_.class_tree.size());
    ClassNode& n = out_.class_tree[static_cast<std::size_t>(node)];
    n.dim = dim;
    n.split = mid;
    n.low = first;
    n.high = first + 1;
    out_.class_tree.resize(out_.class_tree.size() + 2);
    split_dims_ |= static_cast<std::uint8_t>(1u << dim);
    pending.push_back({high, first + 1});
    pending.push_back({low, first});
  }

  // The class of the counts just evaluated for `box`, new or not.
  int class_for(const BlockBox& box) {
    auto counts = counts_.nonzero();
    std::string key(reinterpret_cast<const char*>(counts.data()), counts.size() * sizeof(counts[0]));
    auto [it, fresh] = ids_.emplace(std::move(key), static_cast<int>(out_.classes.size()));
    if (fresh) {
      std::size_t loops = out_.loops.size(), width = loops * 2 + memory_ops_;
      if ((out_.classes.size() + 1) * std::max<std::size_t>(width, 1) > kMaxClassCounts) {
        too_many(fmt::format("more classes than {} counts hold", kMaxClassCounts));
      }
      BlockClass c;
      c.executions.assign(loops, 0);
      c.iterations.assign(loops, 0);
      c.memory.assign(memory_ops_, 0);
      for (const auto& [k, v] : counts) {
        if (k < loops)
          c.executions[k] = v;
        else if (k < 2 * loops)
          c.iterations[k - loops] = v;
        else
          c.memory[k - 2 * loops] = v;
      }
      c.first_block = linear(box);
      out_.classes.push_back(std::move(c));
    }
    BlockClass& c = out_.classes[static_cast<std::size_t>(it->second)];
    c.blocks += box.blocks();
    c.first_block = std::min(c.first_block, linear(box));
    return it->second;
  }

  // Classes in the order of their first block, as the launch dispatches them.
  void order_classes() {
    std::vector<int> order(out_.classes.size());
    for (std::size_t k = 0; k < order.size(); ++k) order[k] = static_cast<int>(k);
    std::sort(order.begin(), order.end(), [&](int a, int b) {
      return out_.classes[static_cast<std::size_t>(a)].first_block <
             out_.classes[static_cast<std::size_t>(b)].first_block;
    });
    std::vector<int> rank(order.size());
    std::vector<BlockClass> sorted;
    for (std::size_t k = 0; k < order.size(); ++k) {
      rank[static_cast<std::size_t>(order[k])] = static_cast<int>(k);
      sorted.push_back(std::move(out_.classes[static_cast<std::size_t>(order[k])]));
    }
    out_.classes = std::move(sorted);
    for (auto& n : out_.class_tree) {
      if (n.dim < 0) n.cls = rank[static_cast<std::size_t>(n.cls)];
    }
    for (int d = 0; d < 3; ++d) {
      if (split_dims_ >> d & 1) out_.varying_dims.push_back(d);
    }
  }

  [[noreturn]] void too_many(const std::string& what) const {
    if (split_.op < 0) throw InputError(p_.file, 0, fmt::format("the launch's blocks differ in {}", what));
    auto [file, line] = place_of(p_, split_.op);
    throw InputError(file, line,
                     fmt::format("the launch's {} blocks differ here ({} on the block id along {}) in {}: too many "
                                 "to evaluate; declare the trips it decides with override(), or launch fewer blocks",
                                 out_.blocks(), p_.ops[static_cast<std::size_t>(split_.op)].name,
                                 dims_text(read_.at(split_.op)), what));
  }

  const TileIrProgram& p_;
  Evaluator& eval_;
  Skeleton& out_;
  std::size_t memory_ops_;
  RunCounts counts_;
  std::unordered_map<std::string, int> ids_;
  BlockBox current_;
  Split split_;
  std::uint8_t split_dims_ = 0;
  std::map<int, std::uint8_t> read_;  // the grid dimensions each decision that split a group read
  std::int64_t evaluations_ = 0;
};

// The grid of the launch: 1 to 3 dimensions (none: one block).
std::vector<std::int64_t> grid_of(const SkeletonInputs& in, const TileIrProgram& p) {
  if (in.grid.empty()) return {1};
  if (in.grid.size() > 3) {
    throw InputError(p.file, 0, fmt::format("a grid of {} dimensions: a launch has 1 to 3", in.grid.size()));
  }
  for (auto g : in.grid) {
    if (g < 1 || g > std::numeric_limits<std::int32_t>::max()) {
      throw InputError(p.file, 0, fmt::format("a grid dimension of {} blocks: each has 1 to 2147483647", g));
    }
  }
  return in.grid;
}

// A declaration of a computed loop must agree with it.
void check_declarations(const SkeletonInputs& in, const Skeleton& out,
                        const std::vector<const TripDeclaration*>& declared) {
  const TileIrProgram& p = *in.program;
  for (std::size_t l = 0; l < out.loops.size(); ++l) {
    const SkeletonLoop& loop = out.loops[l];
    const TripDeclaration* d = declared[l];
    if (!d || d->override || loop.source != CountSource::kComputed || loop.executions == 0) continue;
    if (d->trips + 1e-9 < loop.min_trips || d->trips - 1e-9 > loop.max_trips) {
      std::string computed = loop.min_trips == loop.max_trips
                                 ? fmt::format("{} in every execution", trips_text(loop.min_trips))
                                 : fmt::format("from {} to {} (mean {})", trips_text(loop.min_trips),
                                               trips_text(loop.max_trips), trips_text(loop.trips()));
      std::string file = in.problem && !in.problem->declared_file.empty() ? in.problem->declared_file : p.file;
      int line = in.problem ? in.problem->declared_line : 0;
      throw InputError(file, line,
                       fmt::format("stale trip count: trips['{}'] = {} declares the loop at {}, which the kernel "
                                   "runs {} (computed from its TileIR); remove the declaration, or write "
                                   "override({}) to replace the computed count",
                                   d->key, trips_text(d->trips), loop.name(), computed, trips_text(d->trips)));
    }
  }
}

// Loops grouped by location, numbered in program order within each group.
void group_loops(std::vector<SkeletonLoop>& loops) {
  std::map<std::tuple<std::string, int, std::vector<std::pair<std::string, int>>>, int> groups;
  std::map<int, int> next_ordinal;
  for (auto& l : loops) {
    auto [it, fresh] = groups.emplace(std::make_tuple(file_name(l.where.file), l.where.line, l.where.calls),
                                      static_cast<int>(groups.size()));
    l.group = it->second;
    l.ordinal = next_ordinal[l.group]++;
    l.min_trips = std::numeric_limits<double>::infinity();
    l.max_trips = -std::numeric_limits<double>::infinity();
  }
}

}  // namespace

Skeleton evaluate_skeleton(const SkeletonInputs& in) {
  Skeleton out;
  const TileIrProgram& p = *in.program;
  out.grid = grid_of(in, p);
  ControlDependences analysis(p);
  out.loops = analysis.loops();
  if (out.loops.size() > kMaxSkeletonLoops) {
    const IrOp& past = p.ops[static_cast<std::size_t>(out.loops[kMaxSkeletonLoops].op)];
    throw InputError(p.file, past.listing_line, fmt::format("more than {} loops in one kernel", kMaxSkeletonLoops));
  }
  group_loops(out.loops);
  std::vector<const TripDeclaration*> declared = declarations(in, out);
  Evaluator eval(analysis, in, out.loops, declared);
  Grouping grouping(p, eval, out, in.stats ? in.stats->memory.size() : 0);
  try {
    grouping.run();
  } catch (const StepLimit&) {
    int l = eval.innermost_running();
    std::string where = l >= 0 ? out.loops[static_cast<std::size_t>(l)].name() : "the kernel";
    const IrLocation* at = l >= 0 ? &out.loops[static_cast<std::size_t>(l)].where : nullptr;
    throw InputError(at && at->known() ? at->file : p.file, at && at->known() ? at->line : 0,
                     fmt::format("the scalar evaluator stopped after {} operations in the loop at {} (block {} of "
                                 "{}): a count this large is not evaluated; declare the loop's trips",
                                 in.max_steps, where, grouping.first_block(), out.blocks()));
  }
  out.steps = eval.steps();
  out.evaluated = true;
  for (std::size_t i = 0; i < out.loops.size(); ++i) {
    SkeletonLoop& l = out.loops[i];
    for (const auto& c : out.classes) {
      l.executions += c.executions[i] * static_cast<double>(c.blocks);
      l.iterations += c.iterations[i] * static_cast<double>(c.blocks);
    }
    if (l.executions == 0) l.min_trips = l.max_trips = 0;
  }
  check_declarations(in, out, declared);
  for (const auto& loop : out.loops) {
    if (loop.source == CountSource::kAssumed) {
      out.notes.push_back(
          fmt::format("the trips of the loop at {} are neither computed nor declared ({}): taken "
                      "as {}; declare them in the problem's trips",
                      loop.name(), loop.unknown, kAssumedTrips));
    }
  }
  return out;
}

}  // namespace tileperf
